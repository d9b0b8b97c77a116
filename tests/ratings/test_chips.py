"""Chip rate, wins, win share and faults per bot."""

from __future__ import annotations

import random
from fractions import Fraction

import numpy as np
import pytest

from arena.ratings import ChipStats, RatingError, SessionOutcome, chip_rate

from ._support import simulate


def test_a_hand_computed_case() -> None:
    sessions = [
        SessionOutcome(("a", "b", "c"), (6, -2, -4), "s1", faults={"b": 2}),
        SessionOutcome(("c", "a", "b"), (Fraction(5, 2), Fraction(5, 2), -5), "s2", faults={"b": 1, "c": 1}),
        SessionOutcome(("a", "b"), (-3, 3), "s3"),
        SessionOutcome(("b", "c"), (0, 0), "s4"),
    ]
    stats = chip_rate(sessions, resamples=200)
    # a: 6 + 5/2 - 3 over 3 sessions; wins s1 alone and shares s2 with c.
    assert stats["a"].chip_rate == Fraction(11, 6)
    assert (stats["a"].sessions, stats["a"].wins, stats["a"].win_share, stats["a"].faults) == (3, 2, Fraction(3, 2), 0)
    # b: -2 - 5 + 3 + 0 over 4 sessions; wins s3 and shares s4 with c.
    assert stats["b"].chip_rate == Fraction(-4, 4)
    assert (stats["b"].sessions, stats["b"].wins, stats["b"].win_share, stats["b"].faults) == (4, 2, Fraction(3, 2), 3)
    # c: -4 + 5/2 + 0 over 3 sessions; shares s2 and s4.
    assert stats["c"].chip_rate == Fraction(-1, 2)
    assert (stats["c"].sessions, stats["c"].wins, stats["c"].win_share, stats["c"].faults) == (3, 2, Fraction(1), 1)
    assert list(stats) == ["a", "b", "c"]
    assert isinstance(stats["a"], ChipStats)


def test_interval_brackets_the_rate_and_shrinks() -> None:
    elo = {"x": 1600.0, "y": 1500.0, "z": 1400.0}
    rng = random.Random(4)
    few = chip_rate(simulate(elo, 30, seats=3, rng=rng), resamples=300)
    many = chip_rate(simulate(elo, 300, seats=3, rng=rng), resamples=300)
    for stats in (few, many):
        for record in stats.values():
            assert record.ci_low <= float(record.chip_rate) <= record.ci_high
    assert many["x"].ci_low > 0 > many["z"].ci_high
    for bot in elo:
        assert few[bot].ci_high - few[bot].ci_low > 2 * (many[bot].ci_high - many[bot].ci_low)


def test_a_block_is_resampled_whole() -> None:
    # Each block pairs a +4 and a -4 session for a: every resample averages exactly 0.
    sessions = []
    for n in range(8):
        sessions.append(SessionOutcome(("a", "b"), (4, -4), f"block{n}"))
        sessions.append(SessionOutcome(("b", "a"), (4, -4), f"block{n}"))
    stats = chip_rate(sessions, resamples=100)
    assert (stats["a"].ci_low, stats["a"].ci_high) == (0.0, 0.0)


def test_a_bot_missing_from_a_resample_is_skipped_there() -> None:
    sessions = [SessionOutcome(("a", "b"), (1, -1), f"s{n}") for n in range(20)]
    sessions.append(SessionOutcome(("a", "rare"), (-2, 2), "once"))
    stats = chip_rate(sessions, resamples=200)
    assert (stats["rare"].chip_rate, stats["rare"].ci_low, stats["rare"].ci_high) == (Fraction(2), 2.0, 2.0)


def test_bad_options_are_errors() -> None:
    with pytest.raises(RatingError, match="no sessions"):
        chip_rate([])
    with pytest.raises(RatingError, match="confidence"):
        chip_rate([SessionOutcome(("a", "b"), (1, -1), "s")], confidence=0)


# Six heads-up blocks (a session and its mirror) with unequal margins, so every resample differs.
_PINNED_INPUT = [SessionOutcome(bots, balances, f"b{n}") for n, pair in enumerate([
    ((7, -7), (-2, 2)), ((3, -3), (Fraction(9, 2), Fraction(-9, 2))), ((-1, 1), (-6, 6)),
    ((12, -12), (1, -1)), ((0, 0), (Fraction(-5, 2), Fraction(5, 2))), ((8, -8), (-4, 4)),
]) for bots, balances in ((("a", "b"), pair[0]), (("b", "a"), pair[1]))]


def _independent_interval(bot: str, resamples: int, seed: int, confidence: float) -> tuple[float, float]:
    # docs/ratings.md read directly: blocks in id order, B of them drawn with replacement by numpy's
    # PCG64 seeded by `seed`, integers(0, B, size=B) per resample in turn; the rate of a resample is total
    # balance over total sessions; the interval is the (1 - c)/2 and (1 + c)/2 type-7 quantiles of the
    # sorted rates.
    blocks = sorted({outcome.block for outcome in _PINNED_INPUT})
    rng = np.random.Generator(np.random.PCG64(seed))
    rates = []
    for _ in range(resamples):
        drawn = [blocks[index] for index in rng.integers(0, len(blocks), size=len(blocks))]
        mine = [outcome.balance_of(bot) for block in drawn for outcome in _PINNED_INPUT if outcome.block == block]
        rates.append(float(sum(mine)) / len(mine))
    rates.sort()

    def quantile(q: float) -> float:
        h = (len(rates) - 1) * q
        low = int(h)
        return rates[low] + (h - low) * (rates[min(low + 1, len(rates) - 1)] - rates[low])

    return quantile((1 - confidence) / 2), quantile((1 + confidence) / 2)


def test_the_interval_is_pinned_for_a_fixed_input_and_seed() -> None:
    # Pinned, so that a change of resampling, of quantile or of the interval's ends is seen: an
    # upside-down quantile (the ends swapped, or q read as 1 - q) fails here.
    # 250 resamples put both ends between two unequal order statistics, so the interpolation's
    # direction shows too.
    stats = chip_rate(_PINNED_INPUT, resamples=250, rng_seed=22)
    assert stats["a"].chip_rate == Fraction(19, 6)
    assert (stats["a"].ci_low, stats["a"].ci_high) == (1.3427083333333336, 4.916666666666667)
    assert (stats["b"].ci_low, stats["b"].ci_high) == (-4.916666666666667, -1.342708333333333)
    for bot in ("a", "b"):
        assert (stats[bot].ci_low, stats[bot].ci_high) == pytest.approx(_independent_interval(bot, 250, 22, 0.95))
    narrow = chip_rate(_PINNED_INPUT, resamples=250, rng_seed=22, confidence=0.5)
    assert (narrow["a"].ci_low, narrow["a"].ci_high) == pytest.approx(_independent_interval("a", 250, 22, 0.5))
    wide = stats["a"]
    assert wide.ci_low < narrow["a"].ci_low < float(wide.chip_rate) < narrow["a"].ci_high < wide.ci_high
