"""The trinomial GSPRT: a hand-computed LLR, bounds, and seeded simulations."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import pytest

from arena.ratings import RatingError, Sprt, pair_score


def _feed(test: Sprt, wins: int, draws: int, losses: int) -> Sprt:
    for score in [1] * wins + [0.5] * draws + [0] * losses:
        test.record(score)
    return test


def test_llr_matches_a_hand_computation() -> None:
    test = _feed(Sprt(0, 10), 10, 4, 6)
    # With half a pseudo-result per class: 21.5 results, mean (10.5 + 4.5/2) / 21.5,
    # variance (10.5 + 4.5/4) / 21.5 - mean².
    n = 21.5
    mean = (10.5 + 4.5 / 2) / n
    variance = (10.5 + 4.5 / 4) / n - mean**2
    s0 = 0.5
    s1 = 1 / (1 + 10 ** (-10 / 400))  # 0.514385
    expected = n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * variance)
    assert test.llr == pytest.approx(expected, rel=1e-12)
    assert (test.wins, test.draws, test.losses, test.games) == (10, 4, 6, 20)
    assert test.decision is None


def test_bounds() -> None:
    test = Sprt(-5, 5, alpha=0.05, beta=0.1)
    assert test.lower == pytest.approx(math.log(0.1 / 0.95))
    assert test.upper == pytest.approx(math.log(0.9 / 0.05))
    assert Sprt(0, 5).llr == 0.0


def test_one_lucky_result_decides_nothing_but_a_run_of_wins_does() -> None:
    assert _feed(Sprt(0, 40), 1, 0, 0).decision is None
    assert _feed(Sprt(0, 40), 0, 0, 1).decision is None
    assert _feed(Sprt(0, 40), 30, 0, 0).decision == "H1"
    assert _feed(Sprt(0, 40), 0, 0, 30).decision == "H0"
    assert _feed(Sprt(0, 40), 30, 5, 1).decision == "H1"


def _simulate(elo: float, elo0: float, elo1: float, rng: random.Random, draw: float = 0.05) -> Sprt:
    # Results from a bot `elo` points stronger: a draw with probability `draw`, otherwise a win
    # with the probability that keeps the expected score at the logistic value for `elo`.
    expected = 1 / (1 + 10 ** (-elo / 400))
    win = expected - draw / 2
    test = Sprt(elo0, elo1)
    while test.decision is None and test.games < 100_000:
        u = rng.random()
        test.record(1 if u < win else 0.5 if u < win + draw else 0)
    return test


def test_accepts_h1_for_a_clearly_stronger_bot() -> None:
    rng = random.Random(1)
    decisions = [_simulate(120, 0, 40, rng).decision for _ in range(20)]
    assert decisions == ["H1"] * 20


def test_accepts_h0_for_equal_bots() -> None:
    rng = random.Random(2)
    decisions = [_simulate(0, 0, 40, rng).decision for _ in range(20)]
    assert decisions.count("H0") >= 18  # alpha = 5%: about one wrong H1 in twenty
    assert _simulate(0, 0, 40, random.Random(3)).decision == "H0"


def test_error_rates_are_near_alpha_and_beta() -> None:
    rng = random.Random(4)
    wrong_h1 = sum(_simulate(0, 0, 40, rng, draw=0.0).decision == "H1" for _ in range(150))
    wrong_h0 = sum(_simulate(40, 0, 40, rng, draw=0.0).decision == "H0" for _ in range(150))
    assert wrong_h1 <= 15 and wrong_h0 <= 15  # nominal 7.5 each


def test_record_accepts_only_scores() -> None:
    test = Sprt(0, 10)
    with pytest.raises(RatingError, match="0.7"):
        test.record(0.7)
    with pytest.raises(RatingError, match="below elo1"):
        Sprt(10, 10)
    with pytest.raises(RatingError, match="alpha"):
        Sprt(0, 10, alpha=0)


def test_pair_score_sums_a_over_both_seatings() -> None:
    # a sat in seat 0 of the first session and seat 1 of the second (same cards, seats swapped).
    assert pair_score((5, -5), (-3, 3)) == 1.0  # +5 then +3
    assert pair_score((5, -5), (7, -7)) == 0.0  # +5 then -7
    assert pair_score((4, -4), (4, -4)) == 0.5  # +4 then -4: even
    assert pair_score((-1, 1), (Fraction(-3, 2), Fraction(3, 2))) == 1.0  # -1 then +3/2
    assert pair_score((0, 0), (0, 0)) == 0.5
    # Fed to the test, pairs score like single games.
    test = Sprt(0, 10)
    for first, second in [((5, -5), (-3, 3)), ((5, -5), (7, -7)), ((4, -4), (4, -4))]:
        test.record(pair_score(first, second))
    assert (test.wins, test.draws, test.losses) == (1, 1, 1)
    with pytest.raises(RatingError, match="heads-up"):
        pair_score((1, 0, -1), (1, -1))
