"""A real tournament in a temporary folder, bots launched afresh for every session: sessions per minute and CPU."""

from __future__ import annotations

import resource
import time
from pathlib import Path
from typing import Any

from arena.tournament import TournamentRunner, parse_config

from .common import REPO, SAMPLE_BOTS, Sizes

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
    participants = "\n".join(f"  - name: {name}\n    command: python3 {SAMPLE_BOTS / line}\n    cwd: {REPO}"
                             for name, line in _TOURNAMENT_BOTS[:bots])
    return (f"name: bench\nparticipants:\n{participants}\nprofile: georgian\ntable_size: 2\nformat: round_robin\n"
            f"sessions_per_table: 1\nduplicate: true\nseed: bench\nconcurrency: {concurrency}\n"
            "limits:\n  decision_ms: 5000\n  start_ms: 30000\nisolation: none\nrestart_crashed: true\n")


def _cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


async def measure(sizes: Sizes, workdir: Path) -> dict[str, Any]:
    """The suite's `tournament` section: a round robin of 8 sample bots (4 with `--quick`), concurrency 4."""
    config = parse_config(tournament_yaml(sizes.tournament_bots), filename="<bench>")
    runner = TournamentRunner(config, out=workdir / "tournament")
    try:
        start, own, children = time.perf_counter(), _cpu(resource.RUSAGE_SELF), _cpu(resource.RUSAGE_CHILDREN)
        complete = await runner.run()
        played = time.perf_counter()
        own, children = _cpu(resource.RUSAGE_SELF) - own, _cpu(resource.RUSAGE_CHILDREN) - children
        runner.write_results()
        written = time.perf_counter()
    finally:
        runner.close()
    if not complete:
        raise RuntimeError("the benchmark tournament did not complete")
    sessions = len(runner.plan)
    return {
        "tournament_bots": sizes.tournament_bots,
        "tournament_sessions": sessions,
        "tournament_concurrency": config.concurrency,
        "tournament_seconds": round(written - start, 2),
        "tournament_sessions_per_min": round(sessions / (written - start) * 60, 1),
        "tournament_results_seconds": round(written - played, 3),
        "tournament_arena_cpu_ms_per_session": round(own / sessions * 1000, 1),
        "tournament_bot_cpu_ms_per_session": round(children / sessions * 1000, 1),
    }
