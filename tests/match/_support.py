"""Helpers for tests that run real bot processes: specs for the test bots, process-group checks."""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from arena.engine import GEORGIAN, Event
from arena.transport import BotSpec, Limit, ProcessLimits

ROOT = Path(__file__).resolve().parents[2]
BOTS = Path(__file__).resolve().parent / "bots"
SAMPLE_BOTS = ROOT / "sample_bots"

TWO_POTS = GEORGIAN.with_table(pots_per_session=2)
"""Short sessions: two ordinary pots."""
FAST = Limit(decision=0.2, start=5.0)
"""A short decision limit, so that a hanging bot costs 0.2 s per turn."""
RELAXED = Limit(decision=3.0, start=10.0)
"""Generous limits for bots that must not fault, even on a slow, busy machine."""


def spec(name: str, script: str, *args: str, limit: Limit = FAST,
             process: ProcessLimits = ProcessLimits()) -> BotSpec:
    """A bot from tests/match/bots, run by the interpreter running the tests."""
    return BotSpec(name=name, command=(sys.executable, str(BOTS / script), *args), limit=limit, process=process)


def sample_spec(name: str, script: str, *args: str, limit: Limit = FAST) -> BotSpec:
    """A bot from sample_bots/."""
    return BotSpec(name=name, command=(sys.executable, str(SAMPLE_BOTS / script), *args), limit=limit)


def records(events: Iterable[Event]) -> list[dict[str, Any]]:
    """The events as their JSON history records (what the history file holds)."""
    return [json.loads(json.dumps(event.to_json())) for event in events]


def seat_actions(events: Iterable[Event], seat: int) -> list[dict[str, Any]]:
    return [record for record in records(events) if record["event"] == "action" and record["seat"] == seat]


def group_members(pgid: int) -> list[int]:
    """Pids of every process (zombies included) whose process group is `pgid`, read from /proc."""
    members = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        # Fields after the command name, which is in parentheses and may hold spaces.
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[2]) == pgid:
            members.append(int(entry))
    return members


def children_of(pid: int) -> list[int]:
    """Pids whose parent is `pid`, read from /proc."""
    children = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[1]) == pid:
            children.append(int(entry))
    return children


def is_group_gone(pgid: int) -> bool:
    """True when no process, not even an unreaped zombie, is left in process group `pgid`."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return not group_members(pgid)
    return False


def is_process_gone(pid: int) -> bool:
    """True when `pid` no longer exists, not even as a zombie."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def wait_until_gone(pids: Sequence[int], *, groups: bool, within: float) -> list[int]:
    """Poll until every pid (or process group) is gone; return those still there after `within` s."""
    deadline = time.monotonic() + within
    while True:
        left = [pid for pid in pids if not (is_group_gone(pid) if groups else is_process_gone(pid))]
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.02)


def describe(pids: Iterable[int]) -> str:
    lines = []
    for pid in pids:
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            command = "?"
        lines.append(f"{pid}: {command}")
    return "\n".join(lines)
