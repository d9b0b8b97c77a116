"""Planted collusion: how often `arena.integrity` flags colluding pairs, and how often an honest one (no bots run).

In-process threshold policies of random thresholds (each pool draws its own) play georgian sessions at
three-seat tables, each table dealt three times with the seats turned (a duplicate block). A planted
pool holds two honest bots and a pair of one kind, each colluder helping at its `_RATE` of its chances:
soft play (folds), passive soft play (pays the least instead of raising) and card sharing are mutual;
a chip dumper (`ann`) dumps to a partner (`bob`) that stays in against it, as dumping is one way. The pool plays until
the pair has shared `shared` sessions. The dumper's transfer is measured against its honest twin: the
same deals, seats and partner with the dumper's own thresholds played straight. A report flags at most
`alpha` = 0.01 family-wise; a report that flags any honest pair is a false positive.

The honest reports are of drawn-choice bots (`SoftThresholdPolicy`: a threshold bot's choices are nearly
fixed by the strata, so most of its tests say nothing, p = 1), seated by a balanced design: passes over
a Steiner triple system of the bots (`steiner_triples`), each pass under a relabelling of its own, each
triple a block of three mirrors, so that every pair shares exactly three sessions a pass. An honest pool
is nine bots (36 pairs) whose pairs each share `shared` sessions (rounded up to a whole pass); the
population is one report over every pair of many bots (147: 10,731 pairs) at fewer sessions a pair.
`collusion_false_positive_rate` is the share of all reports (planted pools, honest pools and the
population) flagging an honest pair; the honest reports' informative flagging tests (p < 1) give the
calibration: the share of their uncorrected p-values below 0.01 and 0.001 (at most those under a
calibrated null). Each honest pool, the population and the planted pools are a task of a process pool,
seeded by their own names, so the figures do not depend on the number of processes.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import random
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from arena.engine import PotSplit, PotWon, SessionState, profile
from arena.integrity import FLAGGING, Aggregate, CollusionReport, SessionEvidence, report_of, session_evidence
from arena.policies import ColludingPolicy, Policy, SoftThresholdPolicy, ThresholdPolicy, play_in_process

from .common import FULL, QUICK, Sizes

_KINDS = ("soft", "passive", "share", "dump")
_RATE = {"soft": 0.5, "passive": 0.5, "share": 0.5, "dump": 1.0, "collect": 1.0}
"""The share of its chances at which a colluder helps its partner (a dumper at every one: at half of them its
transfer was 3% to 4% of the pots)."""
_SEATS = 3
_POOL_BOTS = 9
"""Honest bots of an honest pool: a Steiner triple system of nine bots is twelve tables, 36 pairs."""
_GAIN = 0.05
"""The least transfer, as a share of the pots of the sessions the pair shares, that a planted dumper must make."""


def _honest(name: str, rng: random.Random) -> ThresholdPolicy:
    call_from = rng.randint(12, 24)
    return ThresholdPolicy(call_from=call_from, raise_from=call_from + rng.randint(3, 8), name=name,
                           evaluator=profile("georgian").evaluator)


def _mixed(name: str, rng: random.Random) -> SoftThresholdPolicy:
    # An honest bot whose choices are drawn (folds, calls and raises at every strength but the extremes):
    # a threshold bot's are nearly fixed by the strata, so its tests mostly say nothing (p = 1).
    call_from = rng.randint(12, 24)
    return SoftThresholdPolicy(call_from=call_from, raise_from=call_from + rng.randint(3, 8), name=name,
                               evaluator=profile("georgian").evaluator)


class _Transfer:
    """Per pot both were dealt in, the dumper's net chips to its partner less its honest twin's in the same pot
    (the same cards), as a share of the pot; averaged over those pots."""

    def __init__(self, giver: str, receiver: str) -> None:
        self.pair = (giver, receiver)
        self.shares: list[float] = []

    def _net(self, evidence: SessionEvidence) -> dict[int, float]:
        giver, receiver = (evidence.bots.index(name) for name in self.pair)
        return {pot.pot: pot.flow.get((giver, receiver), 0.0) - pot.flow.get((receiver, giver), 0.0)
                for pot in evidence.pots if giver in pot.hands and receiver in pot.hands}

    def add(self, played: SessionEvidence, twin: SessionEvidence, events: Sequence[object]) -> None:
        amounts = {e.pot: Fraction(e.amount) for e in events if isinstance(e, PotWon | PotSplit)}
        honest = self._net(twin)
        for pot, net in self._net(played).items():
            if pot in honest:
                self.shares.append((net - honest[pot]) / float(amounts[pot]))

    @property
    def share(self) -> float:
        return sum(self.shares) / len(self.shares) if self.shares else 0.0


def steiner_triples(points: int) -> list[tuple[int, int, int]]:
    """A Steiner triple system on `points` ≡ 3 (mod 6) points (Bose's construction): every pair of points
    lies in exactly one of its `points` (`points` - 1) / 6 triples.

    The points are (x, i) for x < m = `points` / 3 (odd) and i < 3, numbered x + m i: the triples
    {(x, 0), (x, 1), (x, 2)}, and {(x, i), (y, i), ((x + y) / 2 mod m, i + 1)} for x < y.

    >>> steiner_triples(9)[:4]
    [(0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 1, 5)]

    Raises:
        ValueError: `points` is not 3 (mod 6).
    """
    if points % 6 != 3:
        raise ValueError(f"a Steiner triple system by Bose's construction needs 3 (mod 6) points, not {points}")
    m = points // 3
    half = (m + 1) // 2  # the inverse of 2 modulo the odd m
    triples = [(x, x + m, x + 2 * m) for x in range(m)]
    for x in range(m):
        for y in range(x + 1, m):
            z = (x + y) * half % m
            triples += [(x + m * i, y + m * i, z + m * ((i + 1) % 3)) for i in range(3)]
    return triples


def _mirror(seated: Sequence[Policy], *, tag: str, number: int, mirror: int) -> tuple[SessionState, SessionEvidence]:
    # One mirror of block `number`: every mirror of a block is dealt alike (the block's seed).
    rules = profile("georgian")
    session = f"{tag}b{number}m{mirror}"
    state = play_in_process(rules, seated, seed=f"{tag}-{number}", session=session)
    return state, session_evidence(state.events, rules.evaluator, session=session, block=f"{tag}b{number}")


def _play(pool: list[Policy], *, tag: str, rng: random.Random, until: tuple[str, str], shared: int,
          twins: dict[str, Policy], transfer: _Transfer | None) -> Aggregate:
    # Blocks of three mirrors at random tables until the pair `until` has shared `shared` sessions (each
    # such session also played by `twins` for `transfer`).
    rules = profile("georgian")
    aggregate = Aggregate()
    together_sessions = number = 0
    while together_sessions < shared:
        table = rng.sample(pool, _SEATS)
        together = set(until) <= {policy.name for policy in table}
        mirrors = []
        for mirror in range(_SEATS):
            seated = table[mirror:] + table[:mirror]
            state, evidence = _mirror(seated, tag=tag, number=number, mirror=mirror)
            mirrors.append(evidence)
            if together and transfer is not None:
                twin = play_in_process(rules, [twins.get(p.name, p) for p in seated], seed=f"{tag}-{number}",
                                       session=evidence.session)
                transfer.add(evidence, session_evidence(twin.events, rules.evaluator, session=evidence.session,
                                                        block=""), state.events)
        aggregate.add_block(mirrors)
        together_sessions += _SEATS * together
        number += 1
    return aggregate


def _play_balanced(pool: Sequence[Policy], *, tag: str, passes: int) -> Aggregate:
    # `passes` passes over a Steiner triple system of the pool, each under a relabelling of its own, each
    # triple a block of three mirrors: every pair shares exactly three sessions a pass.
    triples = steiner_triples(len(pool))
    aggregate = Aggregate()
    number = 0
    for turn in range(passes):
        order = random.Random(f"{tag}-pass{turn}").sample(list(pool), len(pool))
        for triple in triples:
            table = [order[index] for index in triple]
            aggregate.add_block([_mirror(table[mirror:] + table[:mirror], tag=tag, number=number, mirror=mirror)[1]
                                 for mirror in range(_SEATS)])
            number += 1
    return aggregate


def _planted(kind: str, trial: int, rng: random.Random) -> tuple[list[Policy], dict[str, Policy]]:
    # The pool and the colluders' honest twins.
    bases = {name: _honest(name, rng) for name in ("ann", "bob")}
    kinds = {"ann": kind, "bob": "collect" if kind == "dump" else kind}
    pair: list[Policy] = [ColludingPolicy(bases[me], partner=other, kind=kinds[me], rate=_RATE[kinds[me]],
                                          rng=random.Random(f"{kind}{trial}{me}"),
                                          evaluator=profile("georgian").evaluator)
                          for me, other in (("ann", "bob"), ("bob", "ann"))]
    return [_honest("h1", rng), _honest("h2", rng), *pair], dict(bases)


def planted_figures(*, shared: int, trials: int) -> dict[str, Any]:
    """Detection rates of planted pools (`trials` per kind), and how many of their reports flag an honest pair.

    Raises:
        AssertionError: a planted dumper transferred less than `_GAIN` of the shared sessions' pots.
    """
    began = time.process_time()
    rng = random.Random(2026)
    detected: dict[str, int] = dict.fromkeys(_KINDS, 0)
    false_positives = honest_pairs = 0
    transfers: list[float] = []
    for kind in _KINDS:
        for trial in range(trials):
            pool, twins = _planted(kind, trial, rng)
            transfer = _Transfer("ann", "bob") if kind == "dump" else None
            report = report_of(_play(pool, tag=f"{kind}{trial}", rng=rng, until=("ann", "bob"), shared=shared,
                                     twins=twins, transfer=transfer))
            if transfer is not None:
                transfers.append(transfer.share)
                assert transfer.share >= _GAIN, f"the planted dumper moved only {transfer.share:.3f} of the pots"
            flagged = report.flagged_pairs
            detected[kind] += frozenset(("ann", "bob")) in flagged
            false_positives += bool(flagged - {frozenset(("ann", "bob"))})
            honest_pairs += len(report.shared_sessions) - 1
    planted = len(_KINDS) * trials
    return {"collusion_detection_rate": round(sum(detected.values()) / planted, 3),
            **{f"collusion_detection_rate_{kind}": round(detected[kind] / trials, 3) for kind in _KINDS},
            "collusion_dump_transfer_share": round(min(transfers), 4),
            "collusion_planted_reports": planted, "collusion_planted_false_positives": false_positives,
            "collusion_planted_honest_pairs": honest_pairs, "collusion_shared_sessions": shared,
            "collusion_planted_cpu_s": round(time.process_time() - began, 1)}


@dataclass(frozen=True)
class Family:
    """What one report over honest bots tells (a worker's answer: it pickles)."""

    pairs: int
    flagged_pairs: int
    least_shared: int
    """The fewest sessions a pair shared."""
    mean_shared: float
    tests: int
    """Flagging tests (`arena.integrity.FLAGGING`) run."""
    informative: tuple[float, ...]
    """The uncorrected p-values of those below 1 (a test with too few observations says p = 1)."""
    cpu_s: float

    @classmethod
    def of(cls, report: CollusionReport, *, began: float) -> Family:
        flagging = [test.p_value for test in report.tests if test.test in FLAGGING]
        shared = report.shared_sessions.values()
        return cls(pairs=len(report.shared_sessions), flagged_pairs=len(report.flagged_pairs),
                   least_shared=min(shared), mean_shared=sum(shared) / len(shared), tests=len(flagging),
                   informative=tuple(p for p in flagging if p < 1.0), cpu_s=time.process_time() - began)


def honest_pool(number: int, *, shared: int) -> Family:
    """Honest pool `number`: `_POOL_BOTS` drawn-choice bots, every pair sharing `shared` sessions (rounded up to
    a pass of three), one report."""
    began = time.process_time()
    rng = random.Random(f"honest{number}")
    pool: list[Policy] = [_mixed(f"h{index}", rng) for index in range(_POOL_BOTS)]
    return Family.of(report_of(_play_balanced(pool, tag=f"honest{number}", passes=-(-shared // _SEATS))),
                     began=began)


def population(*, bots: int, passes: int) -> Family:
    """One report over every pair of `bots` drawn-choice bots, each pair sharing 3 x `passes` sessions."""
    began = time.process_time()
    rng = random.Random(142)
    pool: list[Policy] = [_mixed(f"h{index:03d}", rng) for index in range(bots)]
    return Family.of(report_of(_play_balanced(pool, tag="population", passes=passes)), began=began)


def upper_95(events: int, trials: int) -> float:
    """The one-sided 95 % (Clopper–Pearson) upper bound of a rate seen `events` times in `trials`: the rate
    under which seeing at most `events` has chance 0.05.

    >>> round(upper_95(0, 100), 4)  # 1 - 0.05 ** (1 / 100)
    0.0295
    """
    if events >= trials:
        return 1.0
    low, high = events / trials, 1.0
    for _ in range(60):  # bisection: the binomial tail falls as the rate rises
        rate = (low + high) / 2
        tail = math.fsum(math.comb(trials, k) * rate ** k * (1 - rate) ** (trials - k) for k in range(events + 1))
        low, high = (rate, high) if tail > 0.05 else (low, rate)
    return high


def _calibration(prefix: str, families: Sequence[Family]) -> dict[str, Any]:
    informative = [p for family in families for p in family.informative]
    shown = len(informative) or 1
    return {f"{prefix}_pairs": sum(family.pairs for family in families),
            f"{prefix}_least_shared": min(family.least_shared for family in families),
            f"{prefix}_mean_shared": round(sum(f.mean_shared * f.pairs for f in families)
                                           / sum(f.pairs for f in families), 1),
            f"{prefix}_flagged_pairs": sum(family.flagged_pairs for family in families),
            f"{prefix}_tests": len(informative),
            f"{prefix}_informative_share": round(len(informative) / sum(family.tests for family in families), 3),
            f"{prefix}_p_below_0_01": float(f"{sum(p < 0.01 for p in informative) / shown:.3g}"),
            f"{prefix}_p_below_0_001": float(f"{sum(p < 0.001 for p in informative) / shown:.3g}"),
            f"{prefix}_least_p": float(f"{min(informative, default=1.0):.3g}"),
            f"{prefix}_cpu_s": round(sum(family.cpu_s for family in families), 1)}


def collusion_figures(sizes: Sizes, *, processes: int = 2) -> dict[str, Any]:
    """The planted pools' detection and every report's false positives (the module's docstring).

    The population, the planted pools and each honest pool are a task of `processes` worker processes
    (spawned: the suite runs under trio), the longest first; each is seeded by its own name.
    """
    began = time.perf_counter()
    bots, passes = sizes.collusion_population
    with ProcessPoolExecutor(max_workers=processes, mp_context=multiprocessing.get_context("spawn")) as executor:
        crowd = executor.submit(population, bots=bots, passes=passes)
        planted_run = executor.submit(planted_figures, shared=sizes.collusion_shared, trials=sizes.collusion_trials)
        pool_runs = [executor.submit(honest_pool, number, shared=sizes.collusion_shared)
                     for number in range(sizes.collusion_honest_pools)]
        planted, everyone, pools = planted_run.result(), crowd.result(), [run.result() for run in pool_runs]
    reports = planted["collusion_planted_reports"] + len(pools) + 1
    false_positives = (planted["collusion_planted_false_positives"] + sum(pool.flagged_pairs > 0 for pool in pools)
                       + (everyone.flagged_pairs > 0))
    return {**planted,
            "collusion_false_positive_rate": round(false_positives / reports, 4),
            "collusion_false_positive_upper_95": round(upper_95(false_positives, reports), 4),
            "collusion_reports": reports,
            "collusion_honest_pairs": planted["collusion_planted_honest_pairs"] + sum(p.pairs for p in pools)
            + everyone.pairs,
            "collusion_honest_pools": len(pools),
            "collusion_honest_pool_reports_flagging": sum(pool.flagged_pairs > 0 for pool in pools),
            **_calibration("collusion_honest_pool", pools),
            "collusion_population_bots": bots, "collusion_population_passes": passes,
            **_calibration("collusion_population", [everyone]),
            "collusion_flagging_tests": list(FLAGGING), "collusion_processes": processes,
            "collusion_s": round(time.perf_counter() - began, 1)}


def main(argv: Sequence[str] | None = None) -> int:
    """Only the collusion figures, at the suite's sizes: `python -m benchmarks.collusion [--quick] [--processes P]`."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.collusion", description=main.__doc__)
    parser.add_argument("--quick", action="store_true", help="the suite's --quick sizes")
    parser.add_argument("--processes", type=int, default=2, metavar="P", help="worker processes (default 2)")
    parser.add_argument("--json", metavar="FILE", help="also write the figures to FILE")
    args = parser.parse_args(argv)
    if args.processes < 1:
        parser.error("--processes must be at least 1")
    figures = collusion_figures(QUICK if args.quick else FULL, processes=args.processes)
    for key, value in figures.items():
        print(f"{key}: {value}")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
