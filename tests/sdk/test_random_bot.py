"""sample_bots/random_bot.py's bet amounts: drawn directly, with the distribution and draws of a list."""

from __future__ import annotations

import importlib.util
import math
import random
import sys
from fractions import Fraction
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def random_bot() -> ModuleType:
    spec = importlib.util.spec_from_file_location("random_bot", ROOT / "sample_bots" / "random_bot.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("random_bot", module)
    spec.loader.exec_module(module)
    return module


def _listed(rng: random.Random, low: Fraction | int, high: Fraction | int) -> Fraction | int:
    # What the bot did before: choose from a list of every whole number in bounds, and low itself.
    amounts: list[Fraction | int] = list(range(math.ceil(low), math.floor(high) + 1))
    if low not in amounts:
        amounts.insert(0, low)
    return rng.choice(amounts)


@pytest.mark.parametrize(("low", "high"), [
    (1, 1), (1, 10), (4, 10), (Fraction(7, 2), 10), (Fraction(7, 2), Fraction(15, 2)), (Fraction(1, 3), Fraction(2, 3)),
    (Fraction(6), 9), (10, 10), (3, Fraction(7, 2)),
])
def test_amounts_are_the_draws_a_list_gave(random_bot: ModuleType, low: Fraction | int, high: Fraction | int) -> None:
    # Same seed, same bets as before: seeded games recorded earlier play the same way.
    direct, listed = random.Random(3), random.Random(3)
    drawn = [random_bot.random_amount(direct, low, high) for _ in range(300)]
    assert drawn == [_listed(listed, low, high) for _ in range(300)]
    assert all(low <= amount <= high for amount in drawn)
    assert direct.random() == listed.random()  # and the generator is left in the same state


def test_huge_bounds_cost_nothing(random_bot: ModuleType) -> None:
    rng = random.Random(1)
    for low, high in [(1, 2**62), (Fraction(1, 3), 10**30), (10**29, 10**30)]:
        amounts = [random_bot.random_amount(rng, low, high) for _ in range(200)]
        assert all(low <= amount <= high for amount in amounts)
        assert len(set(amounts)) > 190  # spread over the whole range, not stuck at one end
        assert max(amounts) > low + (high - low) / 2
