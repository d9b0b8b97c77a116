"""Planted collusion: how often `arena.integrity` flags colluding pairs, and how often an honest one (no bots run).

In-process threshold policies of random thresholds (each pool draws its own) play georgian sessions at
three-seat tables, each table dealt three times with the seats turned (a duplicate block). A planted
pool holds two honest bots and a pair of one kind, each colluder helping at its `_RATE` of its chances:
soft play (folds), passive soft play (pays the least instead of raising) and card sharing are mutual;
a chip dumper (`ann`) dumps to a partner (`bob`) that stays in against it, as dumping is one way. The pool plays until
the pair has shared `shared` sessions. The dumper's transfer is measured against its honest twin: the
same deals, seats and partner with the dumper's own thresholds played straight. An honest pool holds
six honest bots and plays `shared` blocks (three times as many sessions). A report flags at most
`alpha` = 0.01 family-wise; a pool whose report flags any honest pair is a false positive.

The honest population (`population_figures`): `bots` honest bots of varied thresholds, drawing their
choices (`SoftThresholdPolicy`), at random
three-seat tables in duplicate blocks, until every pair has shared sessions on average: one report over
all their pairs (a family of ~10^4 at 142 bots), and the share of its flagging tests' uncorrected
p-values below 0.01 and 0.001 (their calibration: at most those shares under a calibrated null).
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from arena.engine import PotSplit, PotWon, profile
from arena.integrity import FLAGGING, Aggregate, SessionEvidence, report_of, session_evidence
from arena.policies import ColludingPolicy, Policy, SoftThresholdPolicy, ThresholdPolicy, play_in_process

_KINDS = ("soft", "passive", "share", "dump")
_RATE = {"soft": 0.5, "passive": 0.5, "share": 0.5, "dump": 1.0, "collect": 1.0}
"""The share of its chances at which a colluder helps its partner (a dumper at every one: at half of them its
transfer was 3% to 4% of the pots)."""
_SEATS = 3
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


def _play(pool: list[Policy], *, tag: str, rng: random.Random, until: tuple[str, str] | None, blocks: int,
          twins: dict[str, Policy] | None = None, transfer: _Transfer | None = None) -> Aggregate:
    # `blocks` blocks of three mirrors at random tables; with `until`, as many as that pair needs to
    # share `blocks` sessions (each such session also played by `twins` for `transfer`).
    rules = profile("georgian")
    aggregate = Aggregate()
    shared = number = 0
    while (shared if until else number) < blocks:
        table = rng.sample(pool, _SEATS)
        together = until is not None and set(until) <= {policy.name for policy in table}
        mirrors = []
        for mirror in range(_SEATS):
            seated = table[mirror:] + table[:mirror]
            session = f"{tag}b{number}m{mirror}"
            state = play_in_process(rules, seated, seed=f"{tag}-{number}", session=session)
            evidence = session_evidence(state.events, rules.evaluator, session=session, block=f"{tag}b{number}")
            mirrors.append(evidence)
            if together and twins is not None and transfer is not None:
                twin = play_in_process(rules, [twins.get(p.name, p) for p in seated], seed=f"{tag}-{number}",
                                       session=session)
                transfer.add(evidence, session_evidence(twin.events, rules.evaluator, session=session, block=""),
                             state.events)
        aggregate.add_block(mirrors)
        shared += _SEATS * together
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


def planted_figures(*, shared: int, trials: int, honest_pools: int) -> dict[str, Any]:
    """Detection and family-wise false-positive rates of planted pools (`trials` per kind) and honest pools.

    Raises:
        AssertionError: a planted dumper transferred less than `_GAIN` of the shared sessions' pots.
    """
    began = time.perf_counter()
    rng = random.Random(2026)
    detected: dict[str, int] = dict.fromkeys(_KINDS, 0)
    families = false_positives = honest_pairs = 0
    transfers: list[float] = []
    for kind in _KINDS:
        for trial in range(trials):
            pool, twins = _planted(kind, trial, rng)
            transfer = _Transfer("ann", "bob") if kind == "dump" else None
            report = report_of(_play(pool, tag=f"{kind}{trial}", rng=rng, until=("ann", "bob"), blocks=shared,
                                     twins=twins, transfer=transfer))
            if transfer is not None:
                transfers.append(transfer.share)
                assert transfer.share >= _GAIN, f"the planted dumper moved only {transfer.share:.3f} of the pots"
            flagged = report.flagged_pairs
            detected[kind] += frozenset(("ann", "bob")) in flagged
            families += 1
            false_positives += bool(flagged - {frozenset(("ann", "bob"))})
            honest_pairs += len(report.shared_sessions) - 1
    for number in range(honest_pools):
        honest: list[Policy] = [_honest(f"h{index}", rng) for index in range(6)]
        report = report_of(_play(honest, tag=f"honest{number}", rng=rng, until=None, blocks=shared))
        families += 1
        false_positives += bool(report.flagged_pairs)
        honest_pairs += len(report.shared_sessions)
    planted = len(_KINDS) * trials
    return {"collusion_detection_rate": round(sum(detected.values()) / planted, 3),
            **{f"collusion_detection_rate_{kind}": round(detected[kind] / trials, 3) for kind in _KINDS},
            "collusion_dump_transfer_share": round(min(transfers), 4),
            "collusion_false_positive_rate": round(false_positives / families, 3),
            "collusion_reports": families, "collusion_honest_pairs": honest_pairs,
            "collusion_shared_sessions": shared, "collusion_s": round(time.perf_counter() - began, 1)}


def population_figures(*, bots: int, blocks: int) -> dict[str, Any]:
    """One report over an honest population's pairs (the module's docstring)."""
    began = time.perf_counter()
    rng = random.Random(142)
    pool: list[Policy] = [_mixed(f"h{index:03d}", rng) for index in range(bots)]
    report = report_of(_play(pool, tag="population", rng=rng, until=None, blocks=blocks))
    played = time.perf_counter() - began
    flagging = [test.p_value for test in report.tests if test.test in FLAGGING]
    informative = [p for p in flagging if p < 1.0] or [1.0]
    return {"collusion_population_bots": bots, "collusion_population_pairs": len(report.shared_sessions),
            "collusion_population_mean_shared": round(sum(report.shared_sessions.values())
                                                      / len(report.shared_sessions), 1),
            "collusion_population_tests": len(informative),
            "collusion_population_flagged_pairs": len(report.flagged_pairs),
            "collusion_population_p_below_0_01": round(sum(p < 0.01 for p in informative) / len(informative), 4),
            "collusion_population_p_below_0_001": round(sum(p < 0.001 for p in informative) / len(informative), 5),
            "collusion_population_s": round(played, 1)}
