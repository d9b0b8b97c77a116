"""Planted collusion: how often `arena.integrity` flags colluding pairs, and how often an honest one (no bots run).

In-process threshold policies of random thresholds (each pool draws its own) play georgian sessions at
three-seat tables, each table dealt three times with the seats turned (a duplicate block). A planted
pool holds two honest bots and a pair of `ColludingPolicy` of one kind (soft play, chip dumping, card
sharing), each helping the other at `_RATE` of its chances, and plays until the pair has shared
`shared` sessions; an honest pool holds six honest bots and plays `shared` blocks (three times as many
sessions). A report flags at most `alpha` = 0.01 family-wise; a pool whose report flags any honest pair
is a false positive.
"""

from __future__ import annotations

import random
import time
from typing import Any

from arena.engine import profile
from arena.integrity import Aggregate, report_of, session_evidence
from arena.policies import ColludingPolicy, ThresholdPolicy, play_in_process

_KINDS = ("soft", "share", "dump")
_RATE = 0.5
"""The share of its chances at which a colluder helps its partner."""
_SEATS = 3


def _honest(name: str, rng: random.Random) -> ThresholdPolicy:
    call_from = rng.randint(12, 24)
    return ThresholdPolicy(call_from=call_from, raise_from=call_from + rng.randint(3, 8), name=name,
                           evaluator=profile("georgian").evaluator)


def _play(pool: list[Any], *, tag: str, rng: random.Random, until: tuple[str, str] | None,
          blocks: int) -> Aggregate:
    # `blocks` blocks of three mirrors at random tables; with `until`, as many as that pair needs to
    # share `blocks` sessions.
    rules = profile("georgian")
    aggregate = Aggregate()
    shared = number = 0
    while (shared if until else number) < blocks:
        table = rng.sample(pool, _SEATS)
        mirrors = []
        for mirror in range(_SEATS):
            seated = table[mirror:] + table[:mirror]
            session = f"{tag}b{number}m{mirror}"
            state = play_in_process(rules, seated, seed=f"{tag}-{number}", session=session)
            mirrors.append(session_evidence(state.events, rules.evaluator, session=session, block=f"{tag}b{number}"))
        aggregate.add_block(mirrors)
        if until and set(until) <= {policy.name for policy in table}:
            shared += _SEATS
        number += 1
    return aggregate


def planted_figures(*, shared: int, trials: int, honest_pools: int) -> dict[str, Any]:
    """Detection and family-wise false-positive rates of planted pools (`trials` per kind) and honest pools."""
    began = time.perf_counter()
    rng = random.Random(2026)
    detected: dict[str, int] = dict.fromkeys(_KINDS, 0)
    families = false_positives = honest_pairs = 0
    for kind in _KINDS:
        for trial in range(trials):
            pair = [ColludingPolicy(_honest(me, rng), partner=other, kind=kind, rate=_RATE,
                                    rng=random.Random(f"{kind}{trial}{me}"), evaluator=profile("georgian").evaluator)
                    for me, other in (("ann", "bob"), ("bob", "ann"))]
            pool = [_honest("h1", rng), _honest("h2", rng), *pair]
            report = report_of(_play(pool, tag=f"{kind}{trial}", rng=rng, until=("ann", "bob"), blocks=shared))
            flagged = report.flagged_pairs
            detected[kind] += frozenset(("ann", "bob")) in flagged
            families += 1
            false_positives += bool(flagged - {frozenset(("ann", "bob"))})
            honest_pairs += len(report.shared_sessions) - 1
    for number in range(honest_pools):
        pool = [_honest(f"h{index}", rng) for index in range(6)]
        report = report_of(_play(pool, tag=f"honest{number}", rng=rng, until=None, blocks=shared))
        families += 1
        false_positives += bool(report.flagged_pairs)
        honest_pairs += len(report.shared_sessions)
    planted = len(_KINDS) * trials
    return {"collusion_detection_rate": round(sum(detected.values()) / planted, 3),
            **{f"collusion_detection_rate_{kind}": round(detected[kind] / trials, 3) for kind in _KINDS},
            "collusion_false_positive_rate": round(false_positives / families, 3),
            "collusion_reports": families, "collusion_honest_pairs": honest_pairs,
            "collusion_shared_sessions": shared, "collusion_s": round(time.perf_counter() - began, 1)}
