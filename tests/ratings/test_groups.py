"""The comparison graph's connected groups: one computation for splitting data and for refusing to fit it."""

from __future__ import annotations

import random

import pytest

from arena.ratings import RatingError, SessionOutcome, bradley_terry, comparison_groups

from ._support import heads_up, simulate


def test_groups_come_largest_first_ties_by_name_each_in_name_order() -> None:
    sessions = [heads_up("q", "p", "s1"), heads_up("z", "y", "s2"), heads_up("y", "x", "s3"),
                heads_up("d", "c", "s4"), SessionOutcome(("m", "l", "k"), (1, 0, -1), "s5")]
    assert comparison_groups(sessions) == [("k", "l", "m"), ("x", "y", "z"), ("c", "d"), ("p", "q")]
    assert comparison_groups(reversed(sessions)) == comparison_groups(sessions)
    assert comparison_groups([]) == []


def test_a_table_of_several_bots_links_them_all_and_a_later_session_joins_groups() -> None:
    sessions = [SessionOutcome(("a", "b", "c"), (2, -1, -1), "s1"), heads_up("d", "e", "s2")]
    assert comparison_groups(sessions) == [("a", "b", "c"), ("d", "e")]
    assert comparison_groups([*sessions, heads_up("e", "c", "s3")]) == [("a", "b", "c", "d", "e")]


def test_the_fit_refuses_split_data_naming_the_same_groups_and_each_group_rates_on_its_own() -> None:
    rng = random.Random(7)
    first = simulate({"a": 100, "b": 0, "c": -100}, 30, seats=2, rng=rng)
    second = simulate({"x": 50, "y": -50}, 20, seats=2, rng=rng)
    sessions = first + second
    groups = comparison_groups(sessions)
    assert groups == [("a", "b", "c"), ("x", "y")]
    with pytest.raises(RatingError, match=r"split into 2 groups .*: a, b, c; x, y$"):
        bradley_terry(sessions)
    for group, own in zip(groups, (first, second), strict=True):
        members = [outcome for outcome in sessions if set(outcome.bots) <= set(group)]
        assert members == own  # every session lies in exactly one group
        assert tuple(bradley_terry(members)) == group


def test_random_tables_split_into_a_partition_that_no_session_crosses() -> None:
    rng = random.Random(3)
    names = [f"b{i}" for i in range(12)]
    for _ in range(50):
        sessions = [SessionOutcome(tuple(table), tuple([1] + [0] * (len(table) - 2) + [-1]), f"s{s}")
                    for s in range(rng.randrange(1, 8))
                    for table in [rng.sample(names, rng.choice((2, 3)))]]
        groups = comparison_groups(sessions)
        played = sorted({bot for outcome in sessions for bot in outcome.bots})
        assert sorted(bot for group in groups for bot in group) == played
        assert all(sum(set(outcome.bots) <= set(group) for group in groups) == 1 for outcome in sessions)
        assert [len(group) for group in groups] == sorted((len(group) for group in groups), reverse=True)
        if len(groups) == 1:
            bradley_terry(sessions)
        else:
            with pytest.raises(RatingError, match=f"split into {len(groups)} groups"):
                bradley_terry(sessions)
