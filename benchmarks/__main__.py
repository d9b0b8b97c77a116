"""The benchmark suite's runner: every section in turn, a table of figures, and the JSON file.

Run from a checkout: .venv/bin/python -m benchmarks [--quick] [--json FILE] [--only SECTION]
(or `make bench`). docs/benchmarks.md explains every figure and every key of the JSON file, and
records the figures of a run with its machine. Each section is a module of this package with a
`measure(sizes, workdir)` coroutine.

Theory of operation: these machines are small and noisy, so nothing here is compared with a
number from another day. Each figure that depends on the machine comes with its floor from the
same run: the engine with a fixed pure-Python loop, the arena's decision with a bare grpcio
blocking call to the same bot process, sessions in flight with bare concurrent calls to the same
bot processes, a bot's start with the interpreter importing grpc. Where two things are compared,
their rounds alternate and the median round is kept, so a burst of noise hits both sides.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import json
import os
import platform
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

import grpc
import trio

from .common import FULL, QUICK, Sizes

SECTIONS: dict[str, str | None] = {
    "engine": None,
    "decisions": None,
    "inflight": None,
    "start": None,
    "tournament": None,
    "cluster": "dask",
    "scaling": None,
    "duplicate": None,
    "efficiency": None,
    "report": None,
    "service": "service",
    "integrity": None,
}
"""The sections (modules of this package, each with `measure(sizes, workdir)`) in the order they run,
with the optional extra of seka-arena each needs; `--only` picks some of them."""

_EXTRAS: dict[str, tuple[str, ...]] = {
    "dask": ("distributed", "cryptography"),
    "service": ("starlette", "hypercorn", "multipart", "croniter", "httpx"),
}
"""What each extra installs (pyproject.toml), by the name it is imported as."""


def missing_extra(section: str) -> str | None:
    """Why `section` cannot run here (its extra is not installed), or None."""
    extra = SECTIONS[section]
    if extra is None:
        return None
    for module in _EXTRAS[extra]:
        try:
            importlib.import_module(module)
        except ImportError as error:
            return (f"needs the extra seka-arena[{extra}] ({error}): pip install -e '.[{extra}]', or "
                    "`make bench`, which installs it")
    return None


def _measure(section: str) -> Callable[[Sizes, Path], Awaitable[dict[str, Any]]]:
    # Imported only once its extra is known to be there: a section's module may import it at the top.
    measure: Callable[[Sizes, Path], Awaitable[dict[str, Any]]] = importlib.import_module(
        f"{__package__}.{section}").measure
    return measure


def machine() -> dict[str, Any]:
    model = "unknown"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {"nproc": os.cpu_count(), "cpu_model": model, "python": platform.python_version(),
            "platform": platform.platform(), "grpcio": grpc.__version__, "loadavg_at_start": os.getloadavg()[0]}


# (key, label, unit, baseline key or None): the rows of the printed table, in order.
_ROWS: list[tuple[str, str, str, str | None]] = [
    ("engine_pots_per_s", "engine: resolved pots (3 seats, random, one core)", "/s", None),
    ("hand_evaluations_per_s", "hand evaluations", "/s", None),
    ("pots_per_million_baseline_loops", "engine pots per 1e6 baseline loops", "", None),
    ("raw_call_us_unix", "raw grpcio sync Act call, unix", "µs", None),
    ("bridge_call_us_unix", "trio bridge call_unary alone, unix", "µs", "raw_call_us_unix"),
    ("arena_decision_us_unix", "arena decision (build, decide, check), unix", "µs", "raw_call_us_unix"),
    ("raw_call_us_tcp", "raw grpcio sync Act call, TCP", "µs", None),
    ("bridge_call_us_tcp", "trio bridge call_unary alone, TCP", "µs", "raw_call_us_tcp"),
    ("arena_decision_us_tcp", "arena decision, TCP", "µs", "raw_call_us_tcp"),
    ("raw_cpu_us_unix", "client CPU per raw call, unix", "µs", None),
    ("arena_cpu_us_unix", "client CPU per arena decision, unix", "µs", "raw_cpu_us_unix"),
    ("request_build_us", "building a TurnRequest from the view", "µs", None),
    ("reply_check_us", "reply to action + verify", "µs", None),
    ("sessions_per_s_inflight_1", "sessions/s, 1 in flight (8 bot processes)", "/s", None),
    ("sessions_per_s_inflight_4", "sessions/s, 4 in flight", "/s", "sessions_per_s_inflight_1"),
    ("sessions_per_s_inflight_16", "sessions/s, 16 in flight", "/s", "sessions_per_s_inflight_1"),
    ("sessions_per_s_inflight_64", "sessions/s, 64 in flight", "/s", "sessions_per_s_inflight_1"),
    ("raw_concurrent_calls_per_s_64", "raw: 64 threads of blocking Act calls", "/s", None),
    ("decisions_per_s_inflight_64", "arena decisions/s, 64 in flight", "/s", "raw_concurrent_calls_per_s_64"),
    ("rpcs_per_s_inflight_64", "arena RPCs/s (decisions + Hello + Notify), 64 in flight", "/s",
     "raw_concurrent_calls_per_s_64"),
    ("bridge_concurrent_calls_per_s_64", "bridge floor: 64 trio tasks of call_unary alone", "/s",
     "raw_concurrent_calls_per_s_64"),
    ("raw_concurrent_cpu_us_per_call_64", "arena-side CPU per raw call, 64 threads", "µs", None),
    ("bridge_concurrent_cpu_us_per_call_64", "CPU per call_unary alone, 64 trio tasks", "µs",
     "raw_concurrent_cpu_us_per_call_64"),
    ("arena_cpu_us_per_rpc_64", "arena CPU per RPC, 64 sessions in flight", "µs", "raw_concurrent_cpu_us_per_call_64"),
    ("arena_cpu_us_per_decision_64", "arena CPU per decision, 64 sessions in flight", "µs",
     "raw_concurrent_cpu_us_per_call_64"),
    ("raw_concurrent_bot_cpu_us_per_call_64", "bots' CPU per raw call, 64 threads", "µs", None),
    ("bot_cpu_us_per_rpc_64", "bots' CPU per arena RPC, 64 sessions in flight", "µs",
     "raw_concurrent_bot_cpu_us_per_call_64"),
    ("raw_concurrent_machine_busy_64", "machine CPU busy, raw 64 threads (share of all cores)", "", None),
    ("inflight_machine_busy_64", "machine CPU busy, 64 sessions in flight", "", None),
    ("rpc_calls_per_decision", "RPCs per decision in sessions (Hello, Notify, Act, Svara)", "", None),
    ("arena_memory_per_session_kib", "arena RSS per session in flight", "KiB", None),
    ("python_import_grpc_ms", "python -c 'import grpc'", "ms", None),
    ("bot_start_to_ready_ms", "Python bot launch to SERVING", "ms", "python_import_grpc_ms"),
    ("bot_start_to_ready_ms_js", "JS bot launch to SERVING", "ms", "python_import_grpc_ms"),
    ("ready_bot_ms", "Python bot launch to ready: the bot's own start", "ms", None),
    ("ready_arena_ms", "… the arena's share (set-up, detection)", "ms", "ready_bot_ms"),
    ("tournament_sessions_per_min_fresh", "demo tournament sessions/min, bot_processes: fresh", "/min", None),
    ("tournament_sessions_per_min_reuse", "demo tournament sessions/min, bot_processes: reuse", "/min",
     "tournament_sessions_per_min_fresh"),
    ("tournament_launches_fresh", "bot processes launched, fresh", "", None),
    ("tournament_launches_reuse", "bot processes launched, reuse", "", "tournament_launches_fresh"),
    ("tournament_launch_to_ready_ms_fresh", "launch to ready in the fresh tournament (median)", "ms", None),
    ("tournament_arena_cpu_ms_per_session_fresh", "arena CPU per tournament session, fresh", "ms", None),
    ("tournament_bot_cpu_ms_per_session_fresh", "bots' CPU per tournament session, fresh (start included)", "ms",
     "tournament_arena_cpu_ms_per_session_fresh"),
    ("tournament_arena_cpu_ms_per_session_reuse", "arena CPU per tournament session, reuse", "ms", None),
    ("tournament_bot_cpu_ms_per_session_reuse", "bots' CPU per tournament session, reuse", "ms",
     "tournament_arena_cpu_ms_per_session_reuse"),
    ("tournament_vs_longlived_ratio", "fresh sessions/min ÷ 4 in flight on long-lived bots", "", None),
    ("cluster_local_sessions_per_min", "8-bot round robin (fresh), local executor: sessions/min", "/min", None),
    ("cluster_dask_sessions_per_min", "… on a local Dask cluster (local:2, 2 x 2 threads)", "/min",
     "cluster_local_sessions_per_min"),
    ("cluster_dask_start_seconds", "local:2: cluster start and bundles shipped", "s", None),
    ("cluster_local_driver_cpu_ms_per_session", "driver CPU per session, local (arena side of every call)", "ms",
     None),
    ("cluster_dask_driver_cpu_ms_per_session", "driver CPU per session, local:2 (runner, client, scheduler)", "ms",
     "cluster_local_driver_cpu_ms_per_session"),
    ("cluster_dask_worker_cpu_ms_per_session", "workers' CPU per session, local:2 (arena side and bots)", "ms",
     None),
    ("plan_seconds_bots_32", "plan(), 32 bots", "s", None),
    ("ratings_seconds_bots_4", "standings, 4 bots, 12 sessions", "s", None),
    ("ratings_seconds_bots_8", "standings, 8 bots, 56 sessions", "s", "ratings_seconds_bots_4"),
    ("ratings_seconds_bots_16", "standings, 16 bots, 240 sessions", "s", "ratings_seconds_bots_4"),
    ("ratings_seconds_bots_32", "standings, 32 bots, 992 sessions", "s", "ratings_seconds_bots_4"),
    ("report_io_floor_seconds", "read a 1,008-session results folder, write the report's bytes", "s", None),
    ("report_seconds_1000", "seka-arena report, 1,008 sessions (goal < 10 s)", "s", "report_io_floor_seconds"),
    ("report_cpu_seconds_1000", "… its CPU time", "s", None),
    ("service_seed_seconds", "service: 10^5 ladder sessions written through the store's bulk API", "s", None),
    ("leaderboard_p50_ms", "leaderboard page/JSON, 8 clients, 10^5 sessions: median", "ms", None),
    ("leaderboard_p99_ms", "… 99th percentile (goal ≤ 200)", "ms", "leaderboard_p50_ms"),
    ("ladder_sessions_per_min_idle", "ladder sessions/min, nobody browsing", "/min", None),
    ("ladder_sessions_per_min_browsed", "ladder sessions/min, 32 clients browsing", "/min",
     "ladder_sessions_per_min_idle"),
    ("browsing_requests_per_s", "pages answered per second to the 32 clients", "/s", None),
    ("sessions_needed_independent", "sessions to separate the pair, independent deals", "", None),
    ("sessions_needed_duplicate", "sessions to separate the pair, duplicate deals", "", "sessions_needed_independent"),
    ("sessions_to_separate_independent", "sessions to separate soft vs loose (mixes, heads-up), independent", "",
     None),
    ("sessions_to_separate_duplicate", "… duplicate deals", "", "sessions_to_separate_independent"),
    ("sessions_to_separate_adjusted", "… duplicate deals + the adjusted result", "",
     "sessions_to_separate_independent"),
    ("adjusted_bias_se", "adjusted − raw, pooled over 10 cases, in standard errors", "", None),
    ("ratings_tally_us_per_session", "rating tally as a result lands (10^6 heads-up sessions)", "µs", None),
    ("ratings_resample_draws_1e6_s", "drawing 1,000 resamples of 5·10^5 blocks (the refit's floor)", "s", None),
    ("ratings_refit_1e6_s", "Bradley–Terry + 1,000 bootstrap refits, 10^6 sessions (goal < 10 s)", "s",
     "ratings_resample_draws_1e6_s"),
    ("ratings_refit_1e6_cpu_s", "… its CPU time", "s", None),
    ("collusion_detection_rate", "planted collusion pairs flagged (goal ≥ 0.9)", "", None),
    ("collusion_false_positive_rate", "reports flagging an honest pair (goal ≤ 0.01)", "", None),
    ("collusion_false_positive_upper_95", "… its one-sided 95 % upper bound", "", None),
    ("collusion_honest_pairs", "honest pairs those reports tested (goal ≥ 10^4)", "", None),
    ("service_refit_1e4_s", "service leaderboard refit, 10^4 stored sessions (its worker)", "s", None),
    ("service_refit_1e5_s", "… 10^5 stored sessions", "s", "service_refit_1e4_s"),
    ("service_refit_peak_rss_1e4_mib", "… its worker's peak memory, 10^4", "MiB", None),
    ("service_refit_peak_rss_1e5_mib", "… 10^5", "MiB", "service_refit_peak_rss_1e4_mib"),
]


def _format(value: Any) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, float) and not value.is_integer() and abs(value) < 100:
        return f"{value:,.3g}" if abs(value) < 1 else f"{value:,.1f}"
    if isinstance(value, (int, float)):
        return f"{value:,.0f}"
    return str(value)


def print_table(figures: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    table = Table(title="seka-arena benchmarks" + (" (quick)" if figures.get("quick") else ""))
    table.add_column("figure")
    table.add_column("value", justify="right")
    table.add_column("unit")
    table.add_column("÷ same-run baseline", justify="right")
    for key, label, unit, baseline in _ROWS:
        if key not in figures:
            continue
        value = figures[key]
        ratio = ""
        if baseline is not None and value is not None and figures.get(baseline):
            ratio = f"{value / figures[baseline]:.2f}"
        table.add_row(label, _format(value), unit, ratio)
    console = Console(width=max(110, Console().width))
    console.print(table)
    headline = [("decision_overhead_ratio", "decision overhead ratio (unix, arena ÷ raw; goal ≤ 1.25)"),
                ("decision_overhead_ratio_tcp", "decision overhead ratio (TCP)"),
                ("concurrency_efficiency_64", "concurrency efficiency at 64 in flight (goal ≥ 0.7)"),
                ("bridge_efficiency_64", "the same for the bridge alone, no arena work (its floor)"),
                ("arena_cpu_ratio_64", "arena CPU per RPC at 64 in flight ÷ raw client's (goal ≤ 1.5)"),
                ("bridge_cpu_ratio_64", "the same for the bridge alone (its floor)"),
                ("tournament_reuse_vs_fresh_ratio", "demo tournament sessions/min, reuse ÷ fresh (goal ≥ 3)"),
                ("ready_arena_ms", "arena's share of launch-to-ready, median ms (goal < 10)"),
                ("leaderboard_p99_ms", "leaderboard p99 ms, 8 clients, 10^5 ladder sessions (goal ≤ 200)"),
                ("ladder_rate_under_load_ratio", "ladder sessions/min, 32 clients browsing ÷ idle (goal ≥ 0.8)"),
                ("duplicate_saving_ratio", f"duplicate-dealing saving ({figures.get('duplicate_pair')}; goal ≥ 2)"),
                ("adjusted_saving_vs_independent", "adjusted-result saving vs independent deals (goal ≥ 20)")]
    for key, label in headline:
        if key in figures:
            extra = ""
            if key == "duplicate_saving_ratio" and figures.get("duplicate_saving_ratio_ci"):
                low, high = figures["duplicate_saving_ratio_ci"]
                extra = f"  (95% CI {low}–{high})"
            value = figures[key]  # two decimals: a ratio against its goal
            shown = f"{value:.2f}" if isinstance(value, float) else _format(value)
            console.print(f"{label}: [bold]{shown}[/bold]{extra}")
    for section, why in figures.get("skipped_sections", {}).items():
        console.print(f"[yellow]section {section} skipped: {escape(why)}[/yellow]", highlight=False)
    if figures.get("tournament_standings_identical") is False:
        console.print("[red]the demo tournament's standings differ between fresh and reuse[/red]")
    if figures.get("inflight_faults"):
        console.print(f"[red]faults during the in-flight runs: {figures['inflight_faults']}[/red]")


async def run_all(sizes: Sizes, sections: Sequence[str], *, progress: Callable[[str], None]) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    seconds: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="seka-bench-") as directory:
        workdir = Path(directory)
        for section in sections:
            if (missing := missing_extra(section)) is not None:
                progress(f"{section} skipped: {missing}")
                figures.setdefault("skipped_sections", {})[section] = missing
                continue
            progress(f"{section} ...")
            begun = time.perf_counter()
            figures |= await _measure(section)(sizes, workdir)
            seconds[section] = round(time.perf_counter() - begun, 1)
    if "tournament_sessions_per_min_fresh" in figures and "sessions_per_s_inflight_4" in figures:
        # Same concurrency (4), same kind of Python bots: what launching bots per session costs.
        figures["tournament_vs_longlived_ratio"] = round(
            figures["tournament_sessions_per_min_fresh"] / 60 / figures["sessions_per_s_inflight_4"], 3)
    figures["section_seconds"] = seconds
    return figures


def main(argv: Sequence[str] | None = None) -> int:
    """Run the suite, print the table, and write the figures as JSON when asked."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller measurements: about a minute")
    parser.add_argument("--json", metavar="FILE", help="also write every figure to FILE (keys: docs/benchmarks.md)")
    parser.add_argument("--only", metavar="SECTION", action="append", choices=tuple(SECTIONS),
                        help="run only this section (repeatable): " + ", ".join(SECTIONS))
    args = parser.parse_args(argv)
    sizes = QUICK if args.quick else FULL
    sections = args.only or list(SECTIONS)
    started = time.perf_counter()
    figures: dict[str, Any] = {"schema": 1, "quick": args.quick, "machine": machine(),
                               "command": " ".join([parser.prog, *(argv if argv is not None else sys.argv[1:])])}

    def progress(message: str) -> None:
        print(f"[{time.perf_counter() - started:6.1f}s] {message}", file=sys.stderr, flush=True)

    figures |= trio.run(functools.partial(run_all, sizes, sections, progress=progress))
    figures["total_seconds"] = round(time.perf_counter() - started, 1)
    figures["machine"]["loadavg_at_end"] = os.getloadavg()[0]
    print_table(figures)
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
