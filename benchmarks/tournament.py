"""The demo tournament played twice in one run, with fresh bot processes and with warm ones: sessions a minute, CPU."""

from __future__ import annotations

import json
import resource
import sqlite3
import statistics
import time
from pathlib import Path
from typing import Any

from arena.tournament import TournamentRunner, parse_config

from .common import REPO, SAMPLE_BOTS, Sizes

DEMO = REPO / "tournaments" / "demo.yaml"
_TOURNAMENT_BOTS = [
    ("random", "random_bot.py --seed 7"),
    ("call", "call_bot.py"),
    ("threshold", "threshold_bot.py"),
    ("strong", "strong_bot.py"),
    ("minimal", "minimal_bot.py"),
    ("threshold-tight", "threshold_bot.py --strong 30 --medium 24"),
    ("random-2", "random_bot.py --seed 8"),
    ("threshold-loose", "threshold_bot.py --strong 26 --medium 18"),
]


def tournament_yaml(bots: int, *, concurrency: int = 4) -> str:
    """A round robin of the first `bots` sample bots above, one block per table, fresh bot processes
    (the `cluster` section's tournament)."""
    participants = "\n".join(f"  - name: {name}\n    command: python3 {SAMPLE_BOTS / line}\n    cwd: {REPO}"
                             for name, line in _TOURNAMENT_BOTS[:bots])
    return (f"name: bench\nparticipants:\n{participants}\nprofile: georgian\ntable_size: 2\nformat: round_robin\n"
            f"sessions_per_table: 1\nduplicate: true\nseed: 1b32c28cb38c05480eccc1bd60ff9702\n"
            f"concurrency: {concurrency}\n"
            "limits:\n  decision_ms: 5000\n  start_ms: 30000\nisolation: none\nrestart_crashed: true\n")


def demo_yaml(*, bot_processes: str, blocks: int) -> str:
    """tournaments/demo.yaml as it is (its bots, concurrency and isolation left to the machine), with a
    fixed seed so both runs play the same deals, run from anywhere, and `bot_processes` set."""
    text = DEMO.read_text().replace("cwd: ..", f"cwd: {REPO}").replace("name: demo", f"name: demo-{bot_processes}")
    text = text.replace("sessions_per_table: 4", f"sessions_per_table: {blocks}")
    return text + f"seed: d876a00582049324dab8b3e4922510a9\nbot_processes: {bot_processes}\n"


def _cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


async def _play(text: str, workdir: Path) -> dict[str, Any]:
    config = parse_config(text, filename="<bench>")
    runner = TournamentRunner(config, out=workdir)
    try:
        start, own = time.perf_counter(), _cpu(resource.RUSAGE_SELF)
        complete = await runner.run()  # every bot process stopped and reaped when it returns
        played = time.perf_counter()
        own = _cpu(resource.RUSAGE_SELF) - own
        runner.write_results()
        written = time.perf_counter()
    finally:
        runner.close()
    if not complete:
        raise RuntimeError("the benchmark tournament did not complete")
    results = runner.directory
    with sqlite3.connect(results / "tournament.sqlite") as connection:
        seats = [entry for (telemetry,) in connection.execute("SELECT telemetry FROM sessions")
                 for entry in json.loads(telemetry).values()]
    ready = [entry["launch"]["ready_ms"] for entry in seats if entry.get("launch")]
    standings = json.loads((results / "standings.json").read_text())
    sessions = len(runner.plan)
    return {
        "sessions": sessions,
        "bots": len(config.participants),
        "concurrency": config.concurrency,
        "isolation": runner.isolation.value,
        "seconds": written - start,
        "results_seconds": written - played,
        "arena_cpu": own / sessions,
        # The bots' CPU as each session's telemetry counted it (their control group's processes, or
        # their process tree): a sandboxed bot is not the arena's child, so its rusage never reaches us.
        "bot_cpu": sum(entry.get("cpu_ms") or 0 for entry in seats) / 1000 / sessions,
        "launches": sum(1 for entry in seats if entry.get("process_session") == 1),
        "launch_to_ready_ms": statistics.median(ready) if ready else None,
        # What the standings say (each run's tournament has its own name; launch times are the machine's).
        "standings": [{key: value for key, value in row.items() if key != "launch_to_ready_ms"}
                      for row in standings["standings"]],
    }


async def measure(sizes: Sizes, workdir: Path) -> dict[str, Any]:
    """The suite's `tournament` section: the demo (half its blocks with `--quick`), fresh then reuse."""
    runs = {}
    for mode in ("fresh", "reuse"):
        runs[mode] = await _play(demo_yaml(bot_processes=mode, blocks=sizes.tournament_blocks),
                                 workdir / f"tournament-{mode}")
    fresh, reuse = runs["fresh"], runs["reuse"]
    figures: dict[str, Any] = {
        "tournament_bots": fresh["bots"],
        "tournament_sessions": fresh["sessions"],
        "tournament_concurrency": fresh["concurrency"],
        "tournament_isolation": fresh["isolation"],
        "tournament_standings_identical": fresh["standings"] == reuse["standings"],
    }
    for mode, run in runs.items():
        figures |= {
            f"tournament_seconds_{mode}": round(run["seconds"], 2),
            f"tournament_sessions_per_min_{mode}": round(run["sessions"] / run["seconds"] * 60, 1),
            f"tournament_results_seconds_{mode}": round(run["results_seconds"], 3),
            f"tournament_arena_cpu_ms_per_session_{mode}": round(run["arena_cpu"] * 1000, 1),
            f"tournament_bot_cpu_ms_per_session_{mode}": round(run["bot_cpu"] * 1000, 1),
            f"tournament_launches_{mode}": run["launches"],
            f"tournament_launch_to_ready_ms_{mode}": (None if run["launch_to_ready_ms"] is None
                                                      else round(run["launch_to_ready_ms"], 1)),
        }
    figures["tournament_reuse_vs_fresh_ratio"] = round(
        figures["tournament_sessions_per_min_reuse"] / figures["tournament_sessions_per_min_fresh"], 2)
    return figures
