"""The block bootstrap of the ratings: intervals, ranks and the likelihood of superiority."""

from __future__ import annotations

import math
import random

import pytest

from arena.ratings import RatingError, SessionOutcome, bootstrap, bradley_terry

from ._support import heads_up, simulate

ELO = {"ann": 1700.0, "bea": 1600.0, "cal": 1500.0, "dee": 1450.0, "eve": 1300.0}


def _width(interval: tuple[float, float]) -> float:
    return interval[1] - interval[0]


def test_intervals_contain_the_estimate_and_shrink_with_more_sessions() -> None:
    rng = random.Random(2024)
    small = simulate(ELO, 40, seats=4, rng=rng)
    large = simulate(ELO, 400, seats=4, rng=rng)
    few = bootstrap(small, resamples=300, rng_seed=1)
    many = bootstrap(large, resamples=300, rng_seed=1)
    for result in (few, many):
        assert result.ratings == bradley_terry(small if result is few else large)
        for bot, (low, high) in result.intervals.items():
            assert low <= result.ratings[bot] <= high
    # Ten times the sessions: intervals about sqrt(10) ≈ 3.2 times narrower.
    ratio = sum(_width(few.intervals[bot]) for bot in ELO) / sum(_width(many.intervals[bot]) for bot in ELO)
    assert ratio >= 2.5
    for bot in ELO:
        assert _width(few.intervals[bot]) > 2 * _width(many.intervals[bot])
    # With 400 sessions the strongest and weakest bot are told apart and their true order recovered.
    assert many.rank_intervals["ann"] == (1, 1)
    assert many.rank_intervals["eve"] == (5, 5)


def test_rank_intervals_hold_the_point_rank() -> None:
    result = bootstrap(simulate(ELO, 60, seats=3, rng=random.Random(3)), resamples=200)
    ordered = sorted(result.ratings, key=result.ratings.__getitem__, reverse=True)
    for rank, bot in enumerate(ordered, start=1):
        low, high = result.rank_intervals[bot]
        assert 1 <= low <= rank <= high <= len(ELO)


def test_likelihood_of_superiority_matrix() -> None:
    result = bootstrap(simulate(ELO, 120, seats=4, rng=random.Random(5)), resamples=250, rng_seed=9)
    for a in ELO:
        assert result.los[a][a] == 0.5
        for b in ELO:
            assert result.los[a][b] + result.los[b][a] == pytest.approx(1.0, abs=1e-12)
            assert 0.0 <= result.los[a][b] <= 1.0
    assert result.los["ann"]["eve"] == 1.0
    # LOS follows the ratings: a bot rated higher is more likely superior than not.
    for a in ELO:
        for b in ELO:
            if result.ratings[a] > result.ratings[b]:
                assert result.los[a][b] >= 0.5


def test_sessions_of_a_block_stay_together() -> None:
    # Each block holds a win for a and a win for b on the same cards: every resample is balanced,
    # so the ratings never move. Split into separate blocks, the same sessions do move.
    together = [heads_up("a", "b", f"s{n}a") for n in range(10)] + [heads_up("b", "a", f"s{n}b") for n in range(10)]
    blocked = [SessionOutcome(o.bots, o.balances, o.block[:-1]) for o in together]
    fixed = bootstrap(blocked, resamples=100)
    assert fixed.intervals == {"a": (1500.0, 1500.0), "b": (1500.0, 1500.0)}
    assert fixed.los["a"]["b"] == 0.5
    loose = bootstrap(together, resamples=100)
    assert _width(loose.intervals["a"]) > 20


def test_resamples_depend_on_the_seed_and_block_ids_only() -> None:
    sessions = simulate(ELO, 50, seats=3, rng=random.Random(11), sessions_per_block=2)
    first = bootstrap(sessions, resamples=100, rng_seed=4)
    shuffled = random.Random(1).sample(sessions, len(sessions))
    assert bootstrap(shuffled, resamples=100, rng_seed=4) == first
    assert bootstrap(sessions, resamples=100, rng_seed=5).intervals != first.intervals


def test_anchor_carries_into_the_resamples() -> None:
    sessions = simulate(ELO, 50, seats=3, rng=random.Random(12))
    result = bootstrap(sessions, resamples=50, anchor="cal", mean=0.0)
    assert result.intervals["cal"] == (0.0, 0.0)
    assert result.ratings["cal"] == 0.0


def test_without_prior_a_degenerate_resample_is_an_error() -> None:
    sessions = [heads_up("a", "b", "s1"), heads_up("b", "a", "s2")]
    with pytest.raises(RatingError, match="resample"):
        bootstrap(sessions, resamples=50, prior_games=0)


def test_bad_options_are_errors() -> None:
    sessions = [heads_up("a", "b", "s1")]
    with pytest.raises(RatingError, match="resamples"):
        bootstrap(sessions, resamples=0)
    with pytest.raises(RatingError, match="confidence"):
        bootstrap(sessions, confidence=1.0)
    with pytest.raises(RatingError, match="no sessions"):
        bootstrap([])


def test_a_thousand_resamples_of_five_hundred_eight_bot_sessions_rank_the_strongest_first() -> None:
    # Its speed is measured in benchmarks/, never asserted in a test.
    elo = {f"bot{i}": 1400.0 + 30 * i for i in range(8)}
    sessions = simulate(elo, 500, seats=8, rng=random.Random(8), sessions_per_block=2)
    result = bootstrap(sessions, resamples=1000)
    assert result.rank_intervals["bot7"][0] == 1


def test_heads_up_intervals_hold_the_true_rating_about_95_percent_of_the_time() -> None:
    # Exact, not simulated: a heads-up record of n one-session blocks is k wins, so the chance that
    # the interval holds the true rating is a sum over k of binomial weights. Averaged over true
    # win probabilities from 0.55 to 0.85, the plain percentile intervals held it 92.0 % (n = 20)
    # and 93.2 % (n = 30) of the time; the BCa intervals 94.4 % and 95.2 %. A single (n, p) wobbles
    # by a few points either way, since the k lie on a lattice.
    coverages = []
    for n in (20, 30):
        intervals = [bootstrap([heads_up("a", "b", f"s{i:02d}") if i < k else heads_up("b", "a", f"s{i:02d}")
                                for i in range(n)]).intervals["a"] for k in range(n + 1)]
        for p in [0.55 + 0.01 * step for step in range(31)]:
            true_rating = 1500 + 200 * math.log10(p / (1 - p))  # heads-up, centred on 1500
            coverages.append(math.fsum(math.comb(n, k) * p**k * (1 - p) ** (n - k)
                                       for k, (low, high) in enumerate(intervals) if low <= true_rating <= high))
    assert 0.94 <= sum(coverages) / len(coverages) <= 0.96
