"""Hand histories as JSON Lines: one event per line, written and read back byte for byte; and
each history's resources file beside it (what every decision cost, as measured)."""

from __future__ import annotations

import contextlib
import json
import logging
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from .engine import ArenaError, Event, SessionState
from .storage import write_atomically

LOGGER = logging.getLogger(__name__)


class HistoryError(ArenaError):
    """A history file that cannot be read, or that breaks a rule; names the line."""

    def __init__(self, path: str | os.PathLike[str], line: int, message: str) -> None:
        super().__init__(f"{path}:{line}: {message}")
        self.path = str(path)
        self.line = line
        self.message = message


def event_line(event: Event) -> str:
    """One event as a compact JSON line; key order is fixed, so the same events give the same bytes."""
    return json.dumps(event.to_json(), separators=(",", ":"), ensure_ascii=True)


def history_text(events: Iterable[Event]) -> str:
    """A whole history as text, newline-terminated."""
    return "".join(event_line(event) + "\n" for event in events)


def write_history(path: str | os.PathLike[str], events: Iterable[Event], *, once: bool = False) -> Path:
    """Write a history atomically (a synced temporary file, then rename), so a crash never leaves half a file.

    Args:
        once: a tournament's or the ladder's history: never replace another file at `path`.

    Raises:
        arena.storage.AlreadyWrittenError: with `once`, `path` holds another history (left as it was).
        arena.storage.DiskFullError: no space left (no partial file is left behind).
        arena.storage.StorageError: any other failure to write.
    """
    return write_atomically(path, history_text(events), encoding="ascii", once=once)


def read_history(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The events of a history file as dicts, each checked to be a JSON object with an `event` name.

    Blank lines at the end are ignored; a blank line between events is refused.
    """
    records: list[dict[str, Any]] = []
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as error:
        raise HistoryError(path, 0, f"cannot read: {error.strerror}") from None
    except UnicodeDecodeError as error:
        raise HistoryError(path, 0, f"not UTF-8 text: {error}") from None
    # JSON Lines allows the file to end with a line break; an editor may leave a blank line too.
    while lines and not lines[-1].strip():
        lines.pop()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            raise HistoryError(path, number, "a blank line inside the history (only the end may have some)")
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise HistoryError(path, number, f"not JSON: {error.msg}") from None
        if not isinstance(record, dict) or not isinstance(record.get("event"), str):
            raise HistoryError(path, number, "each line must be a JSON object with an 'event' name")
        records.append(record)
    return records



RESOURCES_SUFFIX = ".resources"
"""Appended to a history's name for its resources file (`s0001.jsonl.resources`): not `*.jsonl`,
so that whatever lists a folder's histories does not take it for one."""
MAX_RESOURCES_BYTES = 16 << 20
"""A resources file larger than this is not read (a session has a few thousand decisions at most)."""


def resources_path(history: str | os.PathLike[str]) -> Path:
    """Where the resources file of the history at `history` is (docs/history.md, "Resources")."""
    path = Path(history)
    return path.with_name(path.name + RESOURCES_SUFFIX)


def write_resources(history: str | os.PathLike[str], records: Iterable[Mapping[str, Any]]) -> Path:
    """Write a history's resources file beside it, atomically (replacing one there: the figures are
    measured, and a session played again measures afresh).

    Its figures are measured, so they differ from run to run: they are kept out of the history,
    whose bytes the same seed and decisions always reproduce.
    """
    text = "".join(json.dumps(record, separators=(",", ":"), ensure_ascii=True) + "\n" for record in records)
    return write_atomically(resources_path(history), text, encoding="ascii")


def read_resources(history: str | os.PathLike[str]) -> list[dict[str, Any]] | None:
    """The records of the resources file beside the history at `history`; None when there is none,
    or it is larger than `MAX_RESOURCES_BYTES` or not JSON Lines of objects (figures only: a
    damaged file is left unshown rather than failing the history's reader)."""
    path = resources_path(history)
    try:
        if path.stat().st_size > MAX_RESOURCES_BYTES:
            return None
        lines = path.read_text(encoding="ascii").splitlines()
        records = [json.loads(line) for line in lines if line.strip()]
    except (OSError, ValueError):
        return None
    return records if all(isinstance(record, dict) for record in records) else None


@contextlib.contextmanager
def live_history(path: Path) -> Iterator[Callable[[SessionState, Sequence[Event]], None]]:
    """A session's `on_events` that appends its history to `path` as it is played, for watchers in other
    processes (live pages tail it); the file is removed when the session ends, however it ends.

    Each step's lines are written whole with one `write` and no sync: the session never waits on a disk.
    A write that fails (a full disk) ends the feed, logged once, never the session.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o600)
    broken = False

    def append(state: SessionState, events: Sequence[Event]) -> None:
        nonlocal broken
        if broken or not events:
            return
        try:
            os.write(descriptor, history_text(events).encode("ascii"))
        except OSError as error:
            broken = True
            LOGGER.warning("the live history %s stopped: %s", path, error)

    try:
        yield append
    finally:
        os.close(descriptor)
        path.unlink(missing_ok=True)
