"""prefix_ratings: one pass over growing prefixes gives, bit for bit, what bradley_terry gives each prefix."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from arena.ratings import RatingError, SessionOutcome, bradley_terry, prefix_ratings


def _sessions(seed: int, count: int) -> list[SessionOutcome]:
    rng = random.Random(seed)
    names = [f"bot{index}" for index in range(6)]
    found = []
    for number in range(count):
        table = rng.sample(names, rng.choice((2, 3)))
        balances = [Fraction(rng.randint(-20, 20), rng.choice((1, 2))) for _ in table[:-1]]
        balances.append(-sum(balances))
        found.append(SessionOutcome(tuple(table), tuple(balances), f"b{number // 2}"))
    return found


@pytest.mark.parametrize("seed", range(5))
def test_every_prefix_equals_a_fit_of_that_prefix_alone(seed: int) -> None:
    sessions = _sessions(seed, 60)
    sizes = [1, 2, 3, 5, 8, 13, 21, 34, 55, 60]
    expected: list[dict[str, float] | None] = []
    for size in sizes:
        try:
            expected.append(bradley_terry(sessions[:size]))
        except RatingError:
            expected.append(None)
    assert prefix_ratings(sessions, sizes) == expected
    assert prefix_ratings(sessions, [60], mean=0, prior_games=2) == [bradley_terry(sessions, mean=0, prior_games=2)]


def test_a_prefix_whose_bots_never_all_met_has_no_ratings() -> None:
    sessions = [SessionOutcome(("a", "b"), (1, -1), "s1"), SessionOutcome(("c", "d"), (1, -1), "s2"),
                SessionOutcome(("b", "c"), (1, -1), "s3")]
    found = prefix_ratings(sessions, [1, 2, 3])
    assert found[1] is None and found[0] == bradley_terry(sessions[:1]) and found[2] == bradley_terry(sessions)


@pytest.mark.parametrize("sizes", [[0], [2, 1], [1, 1], [4]])
def test_sizes_must_increase_within_the_sessions(sizes: list[int]) -> None:
    sessions = _sessions(0, 3)
    with pytest.raises(RatingError, match="prefix sizes must increase within 1..3"):
        prefix_ratings(sessions, sizes)
