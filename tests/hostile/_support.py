"""Helpers for the hostile-bot tests: specs, the bots' reports, and the state of the machine."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from arena.engine import GEORGIAN
from arena.isolation import Isolation, ProcessLimits
from arena.transport import BotSpec, TimeLimit

from ..match._support import SAMPLE_BOTS, tagged

HOSTILE = Path(__file__).resolve().parent / "bots"
MARKER = str(HOSTILE)
"""In the command line of every hostile bot (and of every process it forks): a survivor shows it.
The whole path, so that the hostile tests of another checkout running meanwhile are not taken for it."""

TWO_POTS = GEORGIAN.with_table(pots_per_session=2, max_actions=12)
FAST = TimeLimit(decision_ms=300, start_ms=10_000)
"""For the hostile bots: a short decision limit (their attacks do not need time to be answered)."""
RELAXED = TimeLimit(decision_ms=3000, start_ms=10_000)
"""For the bots that must not fault, even on a slow machine busy with a hostile neighbour."""
SANDBOX, LIMITS, NONE = Isolation.SANDBOX, Isolation.LIMITS, Isolation.NONE


def hostile(name: str, script: str, *args: str, isolation: Isolation = SANDBOX, limit: TimeLimit = FAST,
            process: ProcessLimits = ProcessLimits(), env: Mapping[str, str] | None = None) -> BotSpec:
    """A bot from tests/hostile/bots, run by the interpreter running the tests."""
    return BotSpec(name=name, command=(sys.executable, str(HOSTILE / script), *args), limit=limit, process=process,
                   isolation=isolation, env=dict(env or {}))


def caller(name: str = "call", *, isolation: Isolation = SANDBOX) -> BotSpec:
    """The sample call bot, a well-behaved opponent, at the same isolation level."""
    return BotSpec(name=name, command=(sys.executable, str(SAMPLE_BOTS / "call_bot.py")), limit=RELAXED,
                   isolation=isolation)


def reports(log_dir: Path, bot: str, what: str) -> list[dict[str, Any]]:
    """The `HOSTILE what {...}` lines the bot wrote to stderr, in order."""
    path = log_dir / f"{bot}.stderr.log"
    found = []
    for line in path.read_text(errors="replace").splitlines() if path.exists() else []:
        head, _, rest = line.partition(" {")
        if head == f"HOSTILE {what}":
            found.append(json.loads("{" + rest))
    return found


def mem_available() -> int:
    """MemAvailable from /proc/meminfo, in bytes."""
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no MemAvailable in /proc/meminfo")


def process_count() -> int:
    """Live (not zombie) processes on the machine."""
    count = 0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            count += stat[stat.rindex(")") + 2] != "Z"
    return count


def marked_processes(marker: str = MARKER) -> list[int]:
    """Live processes whose command line holds `marker` (hostile bots and whatever they forked)."""
    return tagged(marker)


def tournament_file(path: Path, participants: list[dict[str, Any]], *, pots: int, sessions_per_table: int,
                    concurrency: int, isolation: Isolation = SANDBOX, **more: Any) -> Path:
    """A heads-up tournament file at `path` (named after it), with a 3 s decision limit, and `more` keys."""
    document = {
        "name": path.stem,
        "participants": participants,
        "table": {"pots": pots, "max_actions": 12},
        "table_size": 2,
        "sessions_per_table": sessions_per_table,
        "concurrency": concurrency,
        "limits": {"decision_ms": 3000},
        "isolation": isolation.value,
        **more,
    }
    path.write_text(yaml.safe_dump(document))
    return path
