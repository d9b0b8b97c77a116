"""The Bradley–Terry fit against an independent maximiser, and its invariances."""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable
from fractions import Fraction

import pytest

from arena.ratings import RatingError, SessionOutcome, bradley_terry

from ._support import heads_up, simulate

# Wins of the row bot over the column bot, heads-up: every pair has results both ways, so the plain
# maximum-likelihood fit is finite.
WINS = {("a", "b"): 7, ("b", "a"): 3, ("b", "c"): 6, ("c", "b"): 4, ("a", "c"): 8, ("c", "a"): 2,
        ("a", "d"): 5, ("d", "a"): 5, ("d", "c"): 3, ("c", "d"): 9}


def _sessions_from_wins() -> list[SessionOutcome]:
    sessions = []
    for (winner, loser), count in sorted(WINS.items()):
        for n in range(count):
            sessions.append(heads_up(winner, loser, f"{winner}{loser}{n}", swap=n % 2 == 1))
    return sessions


def _ascend(loglik: Callable[[list[float]], float], bots: list[str]) -> dict[str, float]:
    # A generic maximiser, independent of the library: gradient ascent with central-difference
    # derivatives on the log-likelihood as written, in Elo units, then centred on 1500.
    r = [0.0] * len(bots)
    step = 2000.0
    value = loglik(r)
    for _ in range(20000):
        h = 1e-3
        grad = []
        for i in range(len(r)):
            up = r[:i] + [r[i] + h] + r[i + 1:]
            down = r[:i] + [r[i] - h] + r[i + 1:]
            grad.append((loglik(up) - loglik(down)) / (2 * h))
        if max(abs(g) for g in grad) < 1e-8:
            break
        candidate = [x + step * g for x, g in zip(r, grad, strict=True)]
        new = loglik(candidate)
        if new >= value:
            r, value = candidate, new
            step *= 1.2
        else:
            step /= 2
        if step < 1e-9:
            break
    shift = 1500 - sum(r) / len(r)
    return {bot: x + shift for bot, x in zip(bots, r, strict=True)}


def _p(r_a: float, r_b: float) -> float:
    return 1 / (1 + 10 ** ((r_b - r_a) / 400))


def test_matches_an_independent_maximum_likelihood_fit() -> None:
    bots = ["a", "b", "c", "d"]

    def loglik(r: list[float]) -> float:
        rating = dict(zip(bots, r, strict=True))
        return sum(count * math.log(_p(rating[winner], rating[loser])) for (winner, loser), count in WINS.items())

    expected = _ascend(loglik, bots)
    fitted = bradley_terry(_sessions_from_wins(), prior_games=0)
    assert fitted == pytest.approx(expected, abs=0.5)
    # The data make a the best and c the worst; the fit is not trivially flat.
    assert fitted["a"] - fitted["c"] > 100


def test_the_prior_is_one_virtual_draw_against_a_fixed_opponent() -> None:
    bots = ["a", "b", "c", "d"]

    def logpost(r: list[float]) -> float:
        # The virtual opponent sits at 0 on the unshifted scale; a draw scores ½ win and ½ loss.
        rating = dict(zip(bots, r, strict=True))
        value = sum(count * math.log(_p(rating[winner], rating[loser])) for (winner, loser), count in WINS.items())
        return value + sum(0.5 * math.log(_p(x, 0.0)) + 0.5 * math.log(_p(0.0, x)) for x in r)

    expected = _ascend(logpost, bots)
    assert bradley_terry(_sessions_from_wins()) == pytest.approx(expected, abs=0.5)
    # The prior pulls ratings towards the middle.
    plain = bradley_terry(_sessions_from_wins(), prior_games=0)
    shrunk = bradley_terry(_sessions_from_wins())
    assert abs(shrunk["a"] - shrunk["c"]) < abs(plain["a"] - plain["c"])


def test_a_bot_that_won_everything_stays_finite_with_the_prior() -> None:
    sessions = [heads_up("ace", "b", f"s{n}") for n in range(5)]
    sessions += [heads_up("b", "c", "t0"), heads_up("c", "b", "t1")]
    ratings = bradley_terry(sessions)
    assert all(math.isfinite(r) for r in ratings.values())
    assert ratings["ace"] > ratings["b"] + 200
    with pytest.raises(RatingError, match="infinite"):
        bradley_terry(sessions, prior_games=0)


def test_heads_up_even_record_gives_equal_ratings() -> None:
    sessions = [heads_up("a", "b", "s1"), heads_up("b", "a", "s2")]
    assert bradley_terry(sessions) == {"a": 1500.0, "b": 1500.0}


def test_order_of_sessions_and_seats_does_not_matter() -> None:
    rng = random.Random(7)
    elo = {"p": 1650.0, "q": 1550.0, "r": 1500.0, "s": 1400.0, "t": 1350.0}
    sessions = simulate(elo, 60, seats=4, rng=rng) + simulate(elo, 40, seats=2, rng=rng)
    expected = bradley_terry(sessions)
    for _ in range(3):
        shuffled = []
        for outcome in rng.sample(sessions, len(sessions)):
            seats = rng.sample(range(len(outcome.bots)), len(outcome.bots))
            shuffled.append(SessionOutcome(tuple(outcome.bots[i] for i in seats),
                                           tuple(outcome.balances[i] for i in seats), outcome.block))
        assert bradley_terry(shuffled) == expected  # exactly: tallies are exact fractions


def test_mean_and_anchor_fix_the_scale_without_changing_differences() -> None:
    sessions = _sessions_from_wins()
    centred = bradley_terry(sessions)
    assert math.fsum(centred.values()) / len(centred) == pytest.approx(1500.0, abs=1e-9)
    anchored = bradley_terry(sessions, anchor="c", mean=1000.0)
    assert anchored["c"] == 1000.0
    for a, b in itertools.combinations(centred, 2):
        assert anchored[a] - anchored[b] == pytest.approx(centred[a] - centred[b], abs=1e-9)
    zero_mean = bradley_terry(sessions, mean=0.0)
    assert zero_mean["a"] == pytest.approx(centred["a"] - 1500.0, abs=1e-9)


def test_ties_count_half() -> None:
    drawn = [heads_up("a", "b", "s1", tie=True), heads_up("a", "b", "s2", tie=True),
             heads_up("b", "c", "s3"), heads_up("c", "b", "s4")]
    split = [heads_up("a", "b", "s1"), heads_up("b", "a", "s2"),
             heads_up("b", "c", "s3"), heads_up("c", "b", "s4")]
    assert bradley_terry(drawn) == pytest.approx(bradley_terry(split), abs=1e-9)
    # A three-way session with a shared top place: a and b each beat c and draw each other.
    shared = [SessionOutcome(("a", "b", "c"), (Fraction(3, 2), Fraction(3, 2), -3), "s1")]
    ratings = bradley_terry(shared)
    assert ratings["a"] == pytest.approx(ratings["b"], abs=1e-9)
    assert ratings["c"] < ratings["a"]


def test_a_four_bot_session_counts_each_bot_once() -> None:
    # Each pair of a 4-bot session weighs 1/3, so three identical 4-bot sessions weigh exactly
    # as much as one heads-up session per pair.
    table = [SessionOutcome(("d", "b", "a", "c"), (-5, 1, 7, -3), f"s{n}") for n in range(3)]
    pairs = [heads_up(a, b, f"{a}{b}") for a, b in itertools.combinations("abcd", 2)]
    assert bradley_terry(table) == pytest.approx(bradley_terry(pairs), abs=1e-9)
    # ... and not as much as one heads-up session per pair from a single 4-bot session.
    assert bradley_terry(table[:1])["a"] < bradley_terry(pairs)["a"] - 1


def test_table_size_does_not_inflate_weight() -> None:
    # Bot x plays one 6-bot session it wins and one heads-up session against y it loses. Each
    # session weighs 1 for x, so x's five wins weigh as much as its one loss: x's score is ½ + ½ · 0.
    big = SessionOutcome(("x", "y", "p", "q", "r", "s"), (10, -2, -2, -2, -2, -2), "s1")
    ratings = bradley_terry([big, heads_up("y", "x", "s2")], prior_games=1.0)
    heavy = bradley_terry([big] * 5 + [heads_up("y", "x", "s2")], prior_games=1.0)
    assert heavy["x"] > ratings["x"]


def test_disconnected_groups_are_an_error() -> None:
    sessions = [heads_up("a", "b", "s1"), heads_up("b", "a", "s2"), heads_up("c", "d", "s3")]
    with pytest.raises(RatingError, match=r"2 groups.*: a, b; c, d$"):
        bradley_terry(sessions)


def test_bad_options_are_errors() -> None:
    with pytest.raises(RatingError, match="no sessions"):
        bradley_terry([])
    with pytest.raises(RatingError, match="anchor 'zed'"):
        bradley_terry([heads_up("a", "b", "s1")], anchor="zed")
    with pytest.raises(RatingError, match="prior_games"):
        bradley_terry([heads_up("a", "b", "s1")], prior_games=-1)


def test_session_outcome_checks_its_fields() -> None:
    with pytest.raises(RatingError, match="sum to zero"):
        SessionOutcome(("a", "b"), (1, 0), "s")
    with pytest.raises(RatingError, match="only once"):
        SessionOutcome(("a", "a"), (1, -1), "s")
    with pytest.raises(RatingError, match="exact"):
        SessionOutcome(("a", "b"), (0.5, -0.5), "s")  # type: ignore[arg-type]
    with pytest.raises(RatingError, match="two bots"):
        SessionOutcome(("a",), (0,), "s")
    with pytest.raises(RatingError, match="expected 2 balances"):
        SessionOutcome(("a", "b"), (1, -1, 0), "s")
    with pytest.raises(RatingError, match="did not sit"):
        SessionOutcome(("a", "b"), (1, -1), "s", faults={"c": 1})
    with pytest.raises(RatingError, match="non-negative"):
        SessionOutcome(("a", "b"), (1, -1), "s", faults={"a": -1})
    outcome = SessionOutcome(["a", "b"], [Fraction(1, 2), Fraction(-1, 2)], "s", faults={"a": 2})  # type: ignore[arg-type]
    assert outcome.bots == ("a", "b") and outcome.balances == (Fraction(1, 2), Fraction(-1, 2))
    assert hash(outcome) == hash(SessionOutcome(("a", "b"), (Fraction(1, 2), Fraction(-1, 2)), "s"))
