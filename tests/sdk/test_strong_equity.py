"""sample_bots/strong_bot.py: its equity for every profile's deck and hand size.

Heads-up against an opponent whose betting tells nothing, the bot's equity is exactly the share of
the opponent's possible hands it beats (ties counted half); this is counted here over every pair
of hands directly. With more opponents the bot samples deals, so only its bounds and order are
checked, at the largest table each deck allows.
"""

from __future__ import annotations

import importlib.util
import itertools
import random
from fractions import Fraction
from types import ModuleType

import pytest

from arena.engine import HAND_OPTIONS, HandEvaluator, hand_evaluator
from arena.sdk import Hello, Limits, Table

from ._launch import REPO


def _load_strong_bot() -> ModuleType:
    spec = importlib.util.spec_from_file_location("strong_bot", REPO / "sample_bots" / "strong_bot.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


STRONG = _load_strong_bot()
EVALUATORS = [
    (f"{profile}-{'-'.join(map(str, values))}", hand_evaluator(profile, **dict(zip(options, values, strict=True))))
    for profile, options in HAND_OPTIONS.items()
    for values in itertools.product(*options.values())
]


def _hands(evaluator: HandEvaluator) -> list[tuple[str, ...]]:
    return [tuple(map(str, hand)) for hand in itertools.combinations(evaluator.deck, evaluator.hand_size)]


@pytest.mark.parametrize("evaluator", [e for _, e in EVALUATORS], ids=[name for name, _ in EVALUATORS])
def test_heads_up_equity_is_the_share_of_hands_beaten(evaluator: HandEvaluator) -> None:
    hands = _hands(evaluator)
    ranked = sorted(hands, key=lambda hand: evaluator.value_of_text("".join(hand)))
    for mine in (ranked[0], ranked[len(ranked) // 2], ranked[-1]):
        my_value = evaluator.value_of_text("".join(mine))
        others = [hand for hand in hands if not set(hand) & set(mine)]
        share = Fraction(0)
        for other in others:
            other_value = evaluator.value_of_text("".join(other))
            share += 1 if my_value > other_value else Fraction(1, 2) if my_value == other_value else 0
        got = STRONG.equity(mine, [((0, 0), 0.0)], random.Random(0), evaluator=evaluator)
        assert got == pytest.approx(float(share / len(others)), abs=1e-12)
    # the strongest hand cannot lose: it wins or ties
    assert STRONG.equity(ranked[-1], [((0, 0), 0.0)], random.Random(0), evaluator=evaluator) > 0.5


@pytest.mark.parametrize("evaluator", [e for _, e in EVALUATORS], ids=[name for name, _ in EVALUATORS])
def test_multiway_equity_at_the_largest_table_the_deck_allows(evaluator: HandEvaluator) -> None:
    opponents = min(7, len(evaluator.deck) // evaluator.hand_size - 1)
    hands = sorted(_hands(evaluator), key=lambda hand: evaluator.value_of_text("".join(hand)))
    weak, strong = (STRONG.equity(hand, [((1, 1), 1.0)] * opponents, random.Random(1), samples=300,
                                  evaluator=evaluator) for hand in (hands[0], hands[-1]))
    assert 0 <= weak < strong <= 1


def test_the_bot_values_hands_by_the_profile_of_its_greeting() -> None:
    bot = STRONG.StrongBot()
    table = Table(ante=1, opening_stake=1, max_bet=10, max_actions=200, pots_per_session=8, seats=2)
    bot.on_hello(Hello("seka.v1", "svara32", table, Limits(1000, 0, 10_000), "s", 0))
    assert bot.evaluator is hand_evaluator("svara32")
    assert len(bot.evaluator.deck) == 32
