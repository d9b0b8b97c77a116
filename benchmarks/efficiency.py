"""What the adjusted result saves: sessions to separate two bots with independent deals, duplicate deals and
duplicate deals plus the estimator (docs/ratings.md), and its bias over every profile and table size.

In-process policies (arena.policies), so that many thousands of sessions take minutes: the estimator reads
histories, and a history is the same whoever played it. Two pairs: `soft` against `loose`, which answer
every seen betting turn with a distribution (SoftThresholdPolicy), and `threshold` against `loose-threshold`,
which answer plainly (ThresholdPolicy) — each heads-up and at six seats with four plain fillers.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import statistics
import sys
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from arena.engine import profile
from arena.policies import Policy, SoftThresholdPolicy, ThresholdPolicy, play_in_process
from arena.ratings import SessionOutcome, SessionTerms, adjust, session_terms
from arena.tournament import mirrors

from .common import Sizes
from .duplicate import sessions_needed

BIAS_CASES = [("georgian", {}, 2), ("georgian", {}, 3), ("georgian", {"dark": "true", "tie": "split"}, 6),
              ("classic", {}, 2), ("classic", {"open": "multiway"}, 3), ("classic", {}, 6),
              ("classic", {"dark": "true"}, 8), ("seka36", {}, 2), ("svara32", {"dark": "true"}, 2), ("seka21", {}, 2)]
"""Every profile, 2, 3, 6 and 8 seats, with the dark, split and multiway options (as the test)."""


def _pair(mixed: bool) -> tuple[Policy, Policy]:
    if mixed:
        return SoftThresholdPolicy(name="soft"), SoftThresholdPolicy(name="loose", call_from=15, raise_from=22)
    return ThresholdPolicy(name="threshold"), ThresholdPolicy(name="loose-threshold", call_from=15, raise_from=22)


def _fillers(count: int) -> list[Policy]:
    return [ThresholdPolicy(name=f"filler{seat}", call_from=17 + seat, raise_from=24 + seat) for seat in range(count)]


def _play(table: Sequence[Policy], seed: str, block: str, session: str) -> tuple[SessionOutcome, SessionTerms]:
    """One session; `session` keys its mixes' draws with the seed (a tournament's session id: its own for
    every session, so mirrors that share a seed, the deals, do not share the draws)."""
    rules = profile("georgian")
    state = play_in_process(rules, table, seed=seed, session=session)
    terms = session_terms(rules, state.events)
    return SessionOutcome(state.bots, terms.raw, block), terms


def _difference(outcome: SessionOutcome, first: str, second: str) -> float:
    return float(outcome.balance_of(first) - outcome.balance_of(second))


def _by_term(played: Sequence[tuple[SessionOutcome, SessionTerms]], size: int, first: str,
             second: str) -> dict[str, float]:
    """The variance of a block's mean difference (first − second) in each of the session's terms: what
    the adjusted result removes (decisions, re-deals, the deal's luck) and what it leaves (`known`)."""
    columns: dict[str, list[float]] = {"raw": [], "decisions": [], "redeals": [], "luck": [], "known": []}
    for outcome, terms in played:
        first_seat, second_seat = outcome.bots.index(first), outcome.bots.index(second)
        for name, values in (("raw", terms.raw), ("decisions", terms.decisions), ("redeals", terms.redeals),
                             ("luck", terms.luck), ("known", terms.known)):
            columns[name].append(float(values[first_seat] - values[second_seat]))
    return {name: round(statistics.variance([statistics.fmean(values[at:at + size])
                                             for at in range(0, len(values), size)]), 2)
            for name, values in columns.items()}


def separation(*, mixed: bool, seats: int, blocks: int) -> dict[str, Any]:
    """Per-session chip differences (first minus second) by unit: independent sessions, duplicate blocks (raw),
    and the same blocks adjusted; the sessions each needs to separate the pair at 95 %."""
    first, second = _pair(mixed)
    by_name = {player.name: player for player in (first, second, *_fillers(seats - 2))}
    # Every bot in every seat slot (twice from 3 seats: both directions of play), as a tournament's blocks.
    seatings = [[by_name[name] for name in seating] for seating in mirrors(list(by_name))]
    singles: list[tuple[SessionOutcome, SessionTerms]] = []
    played: list[tuple[SessionOutcome, SessionTerms]] = []
    tag = f"eff-{'mixed' if mixed else 'plain'}-{seats}"
    for number in range(blocks):
        block = f"{tag}-block-{number}"
        for mirror, seating in enumerate(seatings):
            # A block's mirrors share the seed (the deals), not the draws: each session has its own id.
            played.append(_play(seating, block, block, f"{block}-{mirror}"))
            singles.append(_play(seating, f"{tag}-single-{number}-{mirror}", f"{block}-single-{mirror}", ""))
    independent = [_difference(outcome, first.name, second.name) for outcome, _ in singles]
    # Not a key of the issue's: independent deals with the estimator, where the deal control variate works.
    independent_adjusted = [_difference(outcome, first.name, second.name) for outcome in adjust(singles)]
    size = len(seatings)
    raw = [statistics.fmean(_difference(outcome, first.name, second.name) for outcome, _ in played[at:at + size])
           for at in range(0, len(played), size)]
    fixed = adjust(played)
    adjusted = [statistics.fmean(_difference(outcome, first.name, second.name) for outcome in fixed[at:at + size])
                for at in range(0, len(fixed), size)]
    variances = {"independent": (statistics.variance(independent), 1, len(independent)),
                 "duplicate": (statistics.variance(raw), size, len(raw)),
                 "adjusted": (statistics.variance(adjusted), size, len(adjusted)),
                 "independent_adjusted": (statistics.variance(independent_adjusted), 1, len(independent_adjusted))}
    means = {"independent": statistics.fmean(independent), "duplicate": statistics.fmean(raw),
             "adjusted": statistics.fmean(adjusted), "independent_adjusted": statistics.fmean(independent_adjusted)}
    # One estimate of the true difference for every count (the means weighted by their precision), so that
    # the counts differ by the variances alone, as the duplicate section does.
    weights = {kind: count / variance for kind, (variance, _, count) in variances.items()}
    mean = sum(weights[kind] * means[kind] for kind in means) / sum(weights.values())
    return {
        "pair": f"{first.name} vs {second.name}",
        "seats": seats,
        "mean_difference": round(mean, 3),
        "mean_difference_se": round(1 / math.sqrt(sum(weights.values())), 3),
        "means": {kind: round(value, 3) for kind, value in means.items()},
        "sd_per_session": {kind: round(math.sqrt(variance * per_unit), 3)
                           for kind, (variance, per_unit, _) in variances.items()},
        "sessions_to_separate": {kind: sessions_needed(mean, variance, per_unit=per_unit)
                                 for kind, (variance, per_unit, _) in variances.items()},
        "block_variance_by_term": _by_term(played, size, first.name, second.name),
        "sessions_played": len(singles) + len(played),
    }


_CHUNK = 250
"""Sessions of one case a worker plays and values at a time: small enough to spread a case over the cores."""


def _bias_chunk(case: int, start: int, stop: int) -> list[tuple[tuple[str, ...], SessionTerms]]:
    """Sessions `start`..`stop` of a bias case, played and valued: each one's bots by seat and terms (a
    worker's share; seeded, so the same wherever it runs; a `SessionOutcome` does not pickle)."""
    name, options, seats = BIAS_CASES[case]
    rules = profile(name, options)
    evaluator = rules.evaluator
    table: list[Policy] = [SoftThresholdPolicy(name="soft", evaluator=evaluator),
                           SoftThresholdPolicy(name="loose", call_from=15, raise_from=22, evaluator=evaluator)]
    table += [ThresholdPolicy(name=f"plain{seat}", call_from=16 + 2 * seat, evaluator=evaluator)
              for seat in range(seats - 2)]
    played = []
    for number in range(start, stop):
        shift = number % seats
        state = play_in_process(rules, table[shift:] + table[:shift], seed=f"bias-{name}-{seats}-{number}")
        terms = session_terms(rules, state.events)
        played.append((tuple(state.bots), terms))
    return played


def bias(sessions_per_case: int, *, processes: int = 2) -> dict[str, Any]:
    """|mean adjusted − mean raw| of the bot `soft` in standard errors of the difference, case by case and
    pooled (each case's difference standardised, the z-scores summed over √cases).

    The sessions are played and valued by `processes` worker processes (spawned: the suite runs under trio),
    a chunk at a time; each case is adjusted whole once its chunks are in, so the figures do not depend on
    `processes`."""
    chunks = {case: [(start, min(start + _CHUNK, sessions_per_case))
                     for start in range(0, sessions_per_case, _CHUNK)] for case in range(len(BIAS_CASES))}
    with ProcessPoolExecutor(max_workers=processes, mp_context=multiprocessing.get_context("spawn")) as pool:
        futures = {case: [pool.submit(_bias_chunk, case, start, stop) for start, stop in spans]
                   for case, spans in chunks.items()}
        cases = [_bias_case(case, [(SessionOutcome(bots, terms.raw, f"s{number}"), terms) for number, (bots, terms)
                                   in enumerate(session for future in futures[case] for session in future.result())])
                 for case in range(len(BIAS_CASES))]
    pooled = sum(case["z"] for case in cases) / math.sqrt(len(cases))
    return {"adjusted_bias_se": round(pooled, 3),
            "adjusted_bias_max_abs_se": max(abs(case["z"]) for case in cases),
            "adjusted_bias_cases": cases,
            "adjusted_bias_sessions": sessions_per_case * len(cases)}


def _bias_case(case: int, played: list[tuple[SessionOutcome, SessionTerms]]) -> dict[str, Any]:
    name, options, seats = BIAS_CASES[case]
    differences = [float(fixed.balance_of("soft") - outcome.balance_of("soft"))
                   for fixed, (outcome, _) in zip(adjust(played), played, strict=True)]
    raw = [float(outcome.balance_of("soft")) for outcome, _ in played]
    se = statistics.stdev(differences) / math.sqrt(len(differences))
    adjusted = [r + d for r, d in zip(raw, differences, strict=True)]
    return {"case": f"{name}{''.join(f' {k}={v}' for k, v in options.items())} {seats} seats",
            "z": round(statistics.fmean(differences) / se, 3),
            "sd_raw": round(statistics.stdev(raw), 3),
            "sd_adjusted": round(statistics.stdev(adjusted), 3)}


async def measure(sizes: Sizes, workdir: Path) -> dict[str, Any]:
    """The suite's `efficiency` section."""
    figures: dict[str, Any] = {}
    pairs = []
    for mixed in (True, False):
        for seats, blocks in ((2, sizes.separation_blocks), (6, max(sizes.separation_blocks // 12, 10))):
            pairs.append(separation(mixed=mixed, seats=seats, blocks=blocks))
    headline = pairs[0]  # the distribution-answering pair, heads-up
    for kind in ("independent", "duplicate", "adjusted"):
        figures[f"sessions_to_separate_{kind}"] = headline["sessions_to_separate"][kind]
    counts = headline["sessions_to_separate"]
    figures["adjusted_saving_vs_independent"] = round(counts["independent"] / counts["adjusted"], 2)
    figures["adjusted_saving_vs_duplicate"] = round(counts["duplicate"] / counts["adjusted"], 2)
    figures["efficiency_pairs"] = pairs
    figures |= bias(sizes.bias_sessions)
    return figures


def main(argv: Sequence[str] | None = None) -> int:
    """Only the bias of the adjusted result, at any size: `python -m benchmarks.efficiency --bias-sessions N`."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.efficiency", description=main.__doc__)
    parser.add_argument("--bias-sessions", type=int, required=True, metavar="N",
                        help=f"sessions of each of the {len(BIAS_CASES)} cases (10,000: 10^5 in all)")
    parser.add_argument("--processes", type=int, default=2, metavar="P", help="worker processes (default 2)")
    parser.add_argument("--json", metavar="FILE", help="also write the figures to FILE")
    args = parser.parse_args(argv)
    if args.bias_sessions < 2 or args.processes < 1:
        parser.error("--bias-sessions must be at least 2 and --processes at least 1")
    figures = bias(args.bias_sessions, processes=args.processes)
    for case in figures["adjusted_bias_cases"]:
        print(f"{case['case']:<40} z {case['z']:+.3f}  sd raw {case['sd_raw']:.3f}  adjusted {case['sd_adjusted']:.3f}")
    print(f"pooled over {figures['adjusted_bias_sessions']:,} sessions: {figures['adjusted_bias_se']:+.3f} SE "
          f"(largest |z| {figures['adjusted_bias_max_abs_se']})")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
