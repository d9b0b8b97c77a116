"""The ladder's choice of the next table: placement first, then information, with random tables."""

from __future__ import annotations

import random
from collections import Counter

from arena.ratings import SessionOutcome
from arena.service import choose_table, information, table_information


def _sessions(a: str, b: str, wins: int, losses: int) -> list[SessionOutcome]:
    return ([SessionOutcome((a, b), (1, -1), f"{a}{b}w{index}") for index in range(wins)]
            + [SessionOutcome((a, b), (-1, 1), f"{a}{b}l{index}") for index in range(losses)])


OUTCOMES = [*_sessions("a", "b", 12, 0), *_sessions("c", "d", 6, 6), *_sessions("a", "c", 3, 3),
            *_sessions("b", "d", 3, 3)]
PLAYED = Counter({"a": 5, "b": 5, "c": 5, "d": 5})


def test_a_new_version_plays_its_placement_blocks_first() -> None:
    for seed in range(20):
        table, reason = choose_table(["a", "b", "c", "d", "new"], OUTCOMES, table_size=2, blocks_played=PLAYED,
                                     placement_blocks=2, random_share=0.5, rng=random.Random(seed))
        assert reason == "placement" and table[0] == "new"


def test_the_adaptive_choice_is_the_table_of_most_information() -> None:
    theta, variance = information(OUTCOMES, ["a", "b", "c", "d"])
    assert theta["a"] > theta["c"] > theta["b"] and variance["a"] < variance["b"] * 2
    # A lopsided pair teaches less than an even one with as many sessions.
    assert table_information(("c", "d"), theta, variance) > table_information(("a", "b"), theta, variance)
    table, reason = choose_table(["a", "b", "c", "d"], OUTCOMES, table_size=2, blocks_played=PLAYED,
                                 placement_blocks=2, random_share=0.0, rng=random.Random(1))
    best = max((("a", "b"), ("a", "c"), ("a", "d"), ("b", "c"), ("b", "d"), ("c", "d")),
               key=lambda pair: table_information(pair, theta, variance))
    assert (table, reason) == (best, "adaptive")
    assert best != ("a", "b")


def test_a_bot_with_few_sessions_is_weighted_up() -> None:
    outcomes = [*OUTCOMES, *_sessions("e", "c", 1, 1)]
    theta, variance = information(outcomes, ["a", "b", "c", "d", "e"])
    assert variance["e"] > 2 * max(variance[bot] for bot in "abcd")
    table, _ = choose_table(["a", "b", "c", "d", "e"], outcomes, table_size=2, blocks_played=Counter(
        {**PLAYED, "e": 2}), placement_blocks=2, random_share=0.0, rng=random.Random(3))
    assert "e" in table


def test_some_tables_are_random_and_bigger_tables_are_scored_too() -> None:
    reasons = Counter(choose_table(["a", "b", "c", "d"], OUTCOMES, table_size=2, blocks_played=PLAYED,
                                   placement_blocks=2, random_share=0.25, rng=random.Random(seed))[1]
                      for seed in range(400))
    assert 60 <= reasons["random"] <= 140 and reasons["adaptive"] == 400 - reasons["random"]
    table, reason = choose_table(["a", "b", "c", "d"], OUTCOMES, table_size=3, blocks_played=PLAYED,
                                 placement_blocks=2, random_share=0.0, rng=random.Random(2))
    assert len(set(table)) == 3 and reason == "adaptive"
