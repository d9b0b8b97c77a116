"""Helpers for tests that run real bot processes: specs for the test bots, process-group checks."""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

from arena.engine import GEORGIAN, Event
from arena.isolation import BotProcess, Isolation, ProcessLimits
from arena.transport import BotSpec, TimeLimit

ROOT = Path(__file__).resolve().parents[2]
BOTS = Path(__file__).resolve().parent / "bots"
SAMPLE_BOTS = ROOT / "sample_bots"

TWO_POTS = GEORGIAN.with_table(pots_per_session=2)
"""Short sessions: two ordinary pots."""
FAST = TimeLimit(decision_ms=200, start_ms=5000)
"""A short decision limit, so that a hanging bot costs 0.2 s per turn."""
RELAXED = TimeLimit(decision_ms=3000, start_ms=10_000)
"""Generous limits for bots that must not fault, even on a slow, busy machine."""


def spec(name: str, script: str, *args: str, limit: TimeLimit = FAST,
             process: ProcessLimits = ProcessLimits(), isolation: Isolation = Isolation.NONE) -> BotSpec:
    """A bot from tests/match/bots, run by the interpreter running the tests."""
    return BotSpec(name=name, command=(sys.executable, str(BOTS / script), *args), limit=limit, process=process,
                   isolation=isolation)


def sample_spec(name: str, script: str, *args: str, limit: TimeLimit = FAST,
                isolation: Isolation = Isolation.NONE) -> BotSpec:
    """A bot from sample_bots/."""
    return BotSpec(name=name, command=(sys.executable, str(SAMPLE_BOTS / script), *args), limit=limit,
                   isolation=isolation)


def records(events: Iterable[Event]) -> list[dict[str, Any]]:
    """The events as their JSON history records (what the history file holds)."""
    return [json.loads(json.dumps(event.to_json())) for event in events]


def seat_actions(events: Iterable[Event], seat: int) -> list[dict[str, Any]]:
    return [record for record in records(events) if record["event"] == "action" and record["seat"] == seat]


def _processes() -> list[tuple[int, int, int, str]]:
    """(pid, parent pid, process group, state) of every process, read from /proc."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        # The fields after the command name, which is in parentheses and may hold spaces.
        fields = stat[stat.rindex(")") + 2 :].split()
        found.append((int(entry), int(fields[1]), int(fields[2]), fields[0]))
    return found


def tagged(tag: str) -> list[int]:
    """Pids of the live processes (zombies excluded) whose command line holds `tag`, this one aside."""
    found = []
    for pid, _, _, state in _processes():
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if tag.encode() in command and state != "Z" and pid != os.getpid():
            found.append(pid)
    return found


def live_group_members(pgid: int) -> list[int]:
    """Pids of the processes in process group `pgid` that still run (zombies excluded)."""
    return [pid for pid, _, group, state in _processes() if group == pgid and state != "Z"]


def children_of(pid: int) -> list[int]:
    """Pids whose parent is `pid`."""
    return [child for child, parent, _, _ in _processes() if parent == pid]


def is_running(pid: int) -> bool:
    """True while `pid` exists and is not a zombie.

    A bot orphaned by an arena's death is reaped by init, a moment after it died; until then it
    is a zombie, which is dead for our purpose.
    """
    try:
        state = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return state[state.rindex(")") + 2] != "Z"


def is_reaped(pid: int) -> bool:
    """True when `pid` no longer exists, not even as a zombie: its parent has reaped it."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def wait_until(predicate: Callable[[], bool], *, within: float) -> bool:
    """Poll `predicate` every 20 ms until it holds or `within` seconds pass; its last value."""
    deadline = time.monotonic() + within
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def describe(pids: Iterable[int]) -> str:
    lines = []
    for pid in pids:
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            command = "?"
        lines.append(f"{pid}: {command}")
    return "\n".join(lines)


def spy_on_launches(monkeypatch: pytest.MonkeyPatch) -> list[BotProcess]:
    """Every bot process the arena launches from now on, as it launches them (launching is unchanged)."""
    processes: list[BotProcess] = []
    launch = BotProcess.launch.__func__  # type: ignore[attr-defined]

    def spy(cls: type[BotProcess], *args: object, **kwargs: object) -> BotProcess:
        process = launch(cls, *args, **kwargs)
        processes.append(process)
        return process

    monkeypatch.setattr(BotProcess, "launch", classmethod(spy))
    return processes


def assert_nothing_left(processes: list[BotProcess], *, within: float,
                        stragglers: Callable[[], list[int]] = list) -> None:
    """Each bot was reaped by the arena, and soon nothing runs in its process group (the group id
    is the bot's pid), nor among `stragglers`."""
    unreaped = [process.pid for process in processes if not is_reaped(process.pid)]
    assert not unreaped, f"bots not reaped after the test:\n{describe(unreaped)}"

    def left() -> list[int]:
        return [pid for process in processes for pid in live_group_members(process.pid)] + stragglers()
    assert wait_until(lambda: not left(), within=within), f"processes left behind:\n{describe(left())}"
