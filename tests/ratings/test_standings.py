"""The standings table gathers the other functions' results, best rating first."""

from __future__ import annotations

import random

import pytest

from arena.ratings import SessionOutcome, Standing, bootstrap, chip_rate, sequential_elo, standings

from ._support import simulate


def test_rows_combine_every_rating() -> None:
    elo = {"ann": 1650.0, "bob": 1550.0, "cy": 1500.0, "dot": 1350.0}
    sessions = simulate(elo, 80, seats=3, rng=random.Random(6), sessions_per_block=2)
    sessions[0] = SessionOutcome(sessions[0].bots, sessions[0].balances, sessions[0].block,
                                 faults={sessions[0].bots[1]: 2})
    rows = standings(sessions, resamples=150, rng_seed=3)
    fitted = bootstrap(sessions, resamples=150, rng_seed=3)
    chips = chip_rate(sessions, resamples=150, rng_seed=3)
    incremental = sequential_elo(sessions)
    assert [row.name for row in rows] == sorted(elo, key=fitted.ratings.__getitem__, reverse=True)
    assert [row.rating for row in rows] == sorted(fitted.ratings.values(), reverse=True)
    for row in rows:
        assert isinstance(row, Standing)
        assert row.rating == fitted.ratings[row.name]
        assert (row.ci_low, row.ci_high) == fitted.intervals[row.name]
        assert (row.rank_low, row.rank_high) == fitted.rank_intervals[row.name]
        record = chips[row.name]
        assert (row.sessions, row.wins, row.win_share, row.chip_rate, row.chip_ci_low, row.chip_ci_high,
                row.faults) == (record.sessions, record.wins, record.win_share, record.chip_rate,
                                record.ci_low, record.ci_high, record.faults)
        assert row.sequential_elo == incremental[row.name]
        assert row.los == fitted.los[row.name]
    assert sum(row.faults for row in rows) == 2
    los = {row.name: row.los for row in rows}
    assert los["ann"]["dot"] + los["dot"]["ann"] == pytest.approx(1.0)


def test_anchor_and_ties_by_name() -> None:
    sessions = [SessionOutcome(("b", "a"), (1, -1), "s1"), SessionOutcome(("a", "b"), (1, -1), "s2")]
    rows = standings(sessions, resamples=20, anchor="b")
    assert [(row.name, row.rating) for row in rows] == [("a", 1500.0), ("b", 1500.0)]
