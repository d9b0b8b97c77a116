"""Classic incremental Elo, checked by hand."""

from __future__ import annotations

import pytest

from arena.ratings import SessionOutcome, sequential_elo

from ._support import heads_up


def test_a_hand_computed_case() -> None:
    sessions = [heads_up("a", "b", "s1"),
                SessionOutcome(("a", "b", "c"), (0, -5, 5), "s2")]
    ratings = sequential_elo(sessions)
    # s1: equal ratings expect ½ each; a gains 16 · ½.
    after_s1 = {"a": 1508.0, "b": 1492.0}
    # s2 starts from a 1508, b 1492, c 1500 (new); each pair is a game, k / (n - 1) = 8.
    # Expected scores on the 400-point logistic scale:
    e_ab = 1 / (1 + 10 ** (-16 / 400))  # a over b, 0.52301
    e_ac = 1 / (1 + 10 ** (-8 / 400))   # a over c, 0.51151
    e_cb = 1 / (1 + 10 ** (-8 / 400))   # c over b, 0.51151
    # Finishing order c > a > b.
    expected = {
        "a": after_s1["a"] + 8 * ((1 - e_ab) + (0 - e_ac)),
        "b": after_s1["b"] + 8 * ((0 - (1 - e_ab)) + (0 - (1 - e_cb))),
        "c": 1500.0 + 8 * ((1 - (1 - e_ac)) + (1 - e_cb)),
    }
    assert ratings == pytest.approx(expected, abs=1e-9)
    assert ratings["a"] == pytest.approx(1508 + 8 * (0.476979 - 0.511511), abs=1e-4)
    assert sum(ratings.values()) == pytest.approx(4500.0)
    assert list(ratings) == ["a", "b", "c"]


def test_ties_score_half_and_options() -> None:
    ratings = sequential_elo([heads_up("a", "b", "s1", tie=True), heads_up("a", "b", "s2")], k=32, start=1000)
    assert ratings == {"a": 1016.0, "b": 984.0}


def test_it_depends_on_the_order_of_sessions() -> None:
    sessions = [heads_up("a", "b", "s1"), heads_up("a", "b", "s2"), heads_up("b", "a", "s3")]
    assert sequential_elo(sessions) != sequential_elo(sessions[::-1])
