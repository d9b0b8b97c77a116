"""Blocks tallied as results land, and the bootstrap over their kinds: the ladder's scale."""

from __future__ import annotations

import random

import numpy as np
import pytest

from arena.ratings import BlockTally, RatingError, SessionOutcome, bootstrap, bootstrap_blocks, bradley_terry
from arena.ratings._bradley_terry import comparisons_from_tally, pair_results
from arena.ratings._newton import PairIndex, fit_batch

from ._support import simulate

ELO = {"ann": 1700.0, "bea": 1600.0, "cal": 1500.0, "dee": 1450.0, "eve": 1300.0}


def test_a_tally_fed_session_by_session_rates_as_the_sessions_do() -> None:
    sessions = simulate(ELO, 300, seats=3, rng=random.Random(7), sessions_per_block=3)
    tally = BlockTally()
    for outcome in sessions:  # grouped by block, as the ladder reads them
        tally.add(outcome)
    fitted = bootstrap_blocks(tally, resamples=200, rng_seed=3)
    assert tally.blocks == 100
    assert fitted == bootstrap(random.Random(2).sample(sessions, len(sessions)), resamples=200, rng_seed=3)
    assert fitted.ratings == pytest.approx(bradley_terry(sessions), abs=1e-9)


def test_identical_blocks_are_one_kind_whatever_their_ids_and_mirror_order() -> None:
    tally = BlockTally()
    for block in range(50):
        first, second = ((3, -3), (-1, 1)) if block % 2 else ((-1, 1), (3, -3))
        tally.add(SessionOutcome(("ann", "bea"), first, f"block {block}"))
        tally.add(SessionOutcome(("bea", "ann"), (second[1], second[0]), f"block {block}"))
    assert list(tally.kinds().values()) == [50]


def test_the_resamples_do_not_depend_on_block_ids() -> None:
    # Today's resamples drew block ids: renaming the blocks changed every interval.
    sessions = simulate(ELO, 120, seats=2, rng=random.Random(5), sessions_per_block=2)
    renamed = [SessionOutcome(o.bots, o.balances, f"z{999 - int(o.block[5:])}") for o in sessions]
    assert bootstrap(renamed, resamples=150) == bootstrap(sessions, resamples=150)


def test_a_block_whose_sessions_come_apart_is_refused() -> None:
    tally = BlockTally()
    tally.add(SessionOutcome(("ann", "bea"), (1, -1), "b1"))
    tally.add(SessionOutcome(("ann", "bea"), (1, -1), "b2"))
    with pytest.raises(RatingError, match="'b1' do not arrive together"):
        tally.add(SessionOutcome(("bea", "ann"), (1, -1), "b1"))


@pytest.mark.parametrize("prior_games", [1.0, 0.0])
def test_the_batched_fit_matches_one_fit_per_data_set_with_or_without_a_chord(prior_games: float) -> None:
    rng = random.Random(13)
    data = [comparisons_from_tally(tuple(sorted(ELO)), {
        (sorted(ELO).index(a), sorted(ELO).index(b)): list(result)
        for (a, b), result in pair_results(simulate(ELO, 80, seats=4, rng=rng)).items()}) for _ in range(6)]
    assert len({(d.first, d.second) for d in data}) == 1  # every pair met in every data set
    pairs = PairIndex.of(data[0].first, data[0].second, len(ELO))
    scores = np.array([d.scores for d in data])
    games = np.array([d.games for d in data])
    newton = fit_batch(pairs, scores, games, prior_games=prior_games, start=np.zeros((6, len(ELO))))
    free = 0 if prior_games else 1
    chord = np.linalg.inv(np.eye(len(ELO) - free) * 20.0)  # a poor matrix: the line search and Newton finish
    chorded = fit_batch(pairs, scores, games, prior_games=prior_games, start=np.zeros((6, len(ELO))), chord=chord)
    for row in range(len(data)):
        alone = fit_batch(pairs, scores[row:row + 1], games[row:row + 1], prior_games=prior_games,
                          start=np.zeros((1, len(ELO))))
        assert newton[row] - newton[row][0] == pytest.approx(alone[0] - alone[0][0], abs=1e-9)
        assert chorded[row] - chorded[row][0] == pytest.approx(alone[0] - alone[0][0], abs=1e-9)
