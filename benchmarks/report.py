"""Report generation: `seka-arena report` for a 1,008-session tournament, against the bare I/O of
reading its results and writing the same bytes.

The tournament is not played by bot processes (that would take the section many minutes): eight
built-in policies play every planned session in process, and each result goes into storage
through the `Store` call the runner makes (`record_result`), with its history's text from
`history_text` (as `write_history` writes it) and standings.json from `write_results`. The
telemetry holds each policy's own decision times, measured around its calls. What the report
reads is therefore a results folder of the real format.

Goal: the report in under 10 s. Baseline, in the same run: reading every stored session and every
history file, then writing files of the report's count and bytes (`report_io_floor_seconds`). The
report's CPU time (this process's, all threads) is kept too: on a machine other jobs keep busy,
the wall time is mostly waiting for a core.
"""

from __future__ import annotations

import random
import shutil
import statistics
import time
from pathlib import Path
from typing import Any

import trio

from arena.engine import Action, Mix, SvaraAnswer, SvaraView, TurnView
from arena.history import history_text
from arena.policies import Policy, RandomPolicy, ThresholdPolicy, play_in_process
from arena.report import write_report
from arena.storage import Store, commitment_of
from arena.tournament import parse_config, plan, value_function, write_results

from .common import QUICK, Sizes

SESSIONS_PER_TABLE = 18
"""8 bots heads-up, every pair 18 blocks of two mirrored sessions: 28 x 18 x 2 = 1,008 sessions."""

_DEFINITION = """\
name: report-bench
participants:
%s
table: {pots: 8}
table_size: 2
sessions_per_table: %d
duplicate: true
seed: ad63506d36646f3452debdc1fa9d4da1
"""


class _Timed:
    """A policy whose decision times are kept, for the session's telemetry."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self.name = policy.name
        self.times: list[float] = []

    def act(self, view: TurnView) -> Action | Mix:
        begun = time.perf_counter()
        action = self.policy.act(view)
        self.times.append((time.perf_counter() - begun) * 1000)
        return action

    def svara(self, view: SvaraView) -> SvaraAnswer:
        begun = time.perf_counter()
        answer = self.policy.svara(view)
        self.times.append((time.perf_counter() - begun) * 1000)
        return answer


def _policies(rng: random.Random) -> dict[str, Policy]:
    found: dict[str, Policy] = {f"threshold-{level}": ThresholdPolicy(call_from=level, raise_from=level + 5,
                                                                      name=f"threshold-{level}")
                                for level in (14, 17, 20, 23, 26, 29)}
    found["random-a"] = RandomPolicy(random.Random(rng.random()), name="random-a")
    found["random-b"] = RandomPolicy(random.Random(rng.random()), name="random-b")
    return found


def _telemetry(times: list[float]) -> dict[str, Any]:
    if not times:
        return {"decisions": 0, "latency_ms": {"median": None, "p99": None, "max": None}}
    ordered = sorted(times)
    return {"decisions": len(times), "latency_ms": {"median": round(statistics.median(ordered), 3),
                                                    "p99": round(ordered[int(0.99 * (len(ordered) - 1))], 3),
                                                    "max": round(ordered[-1], 3)}}


def build_results(folder: Path, *, sessions_per_table: int = SESSIONS_PER_TABLE) -> int:
    """Write a finished tournament's results folder (store, histories, standings.json, crosstable.csv)
    by playing every planned session with in-process policies; return the number of sessions."""
    policies = _policies(random.Random(1))
    participants = "\n".join(f"  - {{name: {name}, address: 'localhost:{50000 + index}'}}"
                             for index, name in enumerate(policies))
    text = _DEFINITION % (participants, sessions_per_table)
    config = parse_config(text, filename="report-bench.yaml")
    sessions = plan(config)
    histories = folder / "histories"
    histories.mkdir(parents=True, exist_ok=True)
    with Store.open(folder / "tournament.sqlite") as store:
        store.init_tournament(name=config.name, definition=text, secret=config.seed,
                              commitment=commitment_of(config.seed, value_function=value_function()),
                              value_function=value_function())
        store.record_plan(sessions)
        for session in sessions:
            seated = [_Timed(policies[name]) for name in session.table]
            state = play_in_process(config.rules, seated, seed=session.seed, session=session.id)
            # The history's bytes are write_history's; written without its fsync per file, which
            # would make building the folder take a minute on a busy machine.
            history = histories / f"{session.id}.jsonl"
            history.write_text(history_text(state.events), encoding="utf-8")
            balances = {name: state.balances[seat] for seat, name in enumerate(session.table)}
            best = max(balances.values())
            store.record_result(session.id, balances, [name for name in session.table if balances[name] == best],
                                faults={name: {} for name in session.table},
                                telemetry={policy.name: _telemetry(policy.times) for policy in seated},
                                history_path=history.relative_to(folder))
        write_results(store, folder)
    return len(sessions)


def io_floor(folder: Path, report: Path, target: Path) -> float:
    """Seconds to read every stored session and history of `folder` and write `report`'s files again
    (their bytes read beforehand): what any report of these results must at least do."""
    pages = [(path.relative_to(report), path.read_bytes()) for path in sorted(report.rglob("*")) if path.is_file()]
    begun = time.perf_counter()
    with Store.open(folder / "tournament.sqlite", read_only=True) as store:
        store.sessions()
    for history in sorted((folder / "histories").glob("*.jsonl")):
        history.read_bytes()
    for relative, data in pages:
        path = target / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return time.perf_counter() - begun


def _measure(sizes: Sizes, workdir: Path) -> dict[str, Any]:
    folder = workdir / "report-bench" / "results"
    begun = time.perf_counter()
    count = build_results(folder)
    built = time.perf_counter() - begun
    rounds = 1 if sizes == QUICK else 3
    report_seconds, floor_seconds, report_cpu = [], [], []
    for round_number in range(rounds):  # alternating, so a burst of noise hits both sides
        out = workdir / "report-bench" / f"report-{round_number}"
        begun, cpu = time.perf_counter(), time.process_time()
        write_report(folder, out=out)
        report_seconds.append(time.perf_counter() - begun)
        report_cpu.append(time.process_time() - cpu)
        floor_seconds.append(io_floor(folder, out, workdir / "report-bench" / f"floor-{round_number}"))
    report = statistics.median(report_seconds)
    floor = statistics.median(floor_seconds)
    files = sum(1 for path in (workdir / "report-bench" / "report-0").rglob("*") if path.is_file())
    size = sum(path.stat().st_size for path in (workdir / "report-bench" / "report-0").rglob("*") if path.is_file())
    shutil.rmtree(workdir / "report-bench")
    return {"report_sessions": count, "report_files": files, "report_mib": round(size / 2**20, 1),
            "report_build_results_seconds": round(built, 2), "report_seconds_1000": round(report, 3),
            "report_cpu_seconds_1000": round(statistics.median(report_cpu), 3),
            "report_io_floor_seconds": round(floor, 3), "report_vs_io_floor_ratio": round(report / floor, 1)}


async def measure(sizes: Sizes, workdir: Path) -> dict[str, Any]:
    """The report section: a thread of its own, as it does no trio I/O."""
    return await trio.to_thread.run_sync(_measure, sizes, workdir)
