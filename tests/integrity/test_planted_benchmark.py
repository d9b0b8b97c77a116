"""The planted benchmark's honest reports (benchmarks/collusion.py): their balanced seating, and figures that do
not depend on how many processes play them."""

from __future__ import annotations

import dataclasses
from collections import Counter
from itertools import combinations

import pytest

from arena.integrity import FLAGGING
from benchmarks.collusion import collusion_figures, population, steiner_triples
from benchmarks.common import QUICK


@pytest.mark.parametrize("points", [3, 9, 15, 147])
def test_a_steiner_triple_system_seats_every_pair_together_exactly_once(points: int) -> None:
    triples = steiner_triples(points)
    met = Counter(frozenset(pair) for triple in triples for pair in combinations(triple, 2))
    assert all(len(set(triple)) == 3 and max(triple) < points for triple in triples)
    assert len(met) == points * (points - 1) // 2
    assert set(met.values()) == {1}


def test_a_steiner_triple_system_needs_3_mod_6_points() -> None:
    with pytest.raises(ValueError, match="3 \\(mod 6\\) points, not 12"):
        steiner_triples(12)


def test_every_pair_of_the_population_shares_three_sessions_a_pass() -> None:
    family = population(bots=9, passes=2)
    assert (family.pairs, family.least_shared, family.mean_shared) == (36, 6, 6.0)
    assert family.tests == 36 * 2 * len(FLAGGING)  # every ordered pair's flagging tests


def test_the_figures_are_the_same_for_one_and_two_processes() -> None:
    tiny = dataclasses.replace(QUICK, collusion_shared=6, collusion_trials=1, collusion_honest_pools=2,
                               collusion_population=(9, 2))
    timing = {"collusion_s", "collusion_processes"}
    one, two = (collusion_figures(tiny, processes=processes) for processes in (1, 2))
    assert {k: v for k, v in one.items() if k not in timing and not k.endswith("_cpu_s")} == {
        k: v for k, v in two.items() if k not in timing and not k.endswith("_cpu_s")}
    assert one["collusion_reports"] == 4 + 2 + 1  # a planted pool per kind, the honest pools, the population
    assert one["collusion_honest_pairs"] == one["collusion_planted_honest_pairs"] + 2 * 36 + 36
