"""Sessions in play, watched as they are played: the "now playing" list and each session's live feed.

Theory of operation: whoever plays a session (the ladder's process, a scheduled tournament's runner
in `serve`) appends its history to a live file as it goes (`arena.history.live_history`: one write
per step, never a sync, so play never waits on a watcher) and removes it when the session ends.
The web process only reads: it lists the live files of the sessions in play, and each watcher's
feed polls its session's file every `_POLL_SECONDS`, and, whenever it grew, sends the spectator's
view of its whole lines so far (`replay_data(..., seat=SPECTATOR)`: the one function every public
door uses, so no folded or unseen hand and no seed); once the history is stored it sends the
stored one's and ends. The view of a given length is computed once for all its watchers.

Watchers are bounded as the tournament pages' streams are (`_pages.EventStreams`, `web.events_total`
and `web.events_per_client`), and each holds at most one message: its feed makes the next only once
the last was taken. A watcher that stops reading keeps its place until the kernel closes its stalled
connection (`web.stalled_client_seconds`: Hypercorn shields its writes from cancellation, so the app
cannot drop it), and nothing it does reaches the sessions: they run in other tasks or another
process and only ever append to a file.
"""

from __future__ import annotations

import json
import logging
import re
import threading
from collections import OrderedDict
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio

from ..report import SPECTATOR, ReplayDataError, replay_data
from ..tournament import live_folder
from ._ladder import ladder_live_folder
from ._service import Service

LOGGER = logging.getLogger(__name__)
_POLL_SECONDS = 0.5
_GONE_SECONDS = 30.0
"""How long a feed waits for a session whose live file is gone and whose history is not stored yet."""
_KEEP_ALIVE_SECONDS = 15.0
_VIEWS = 64
"""Spectator views kept, by file and length: every watcher of a session shares its latest."""
_SESSION = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]{0,63}")
"""What a session id looks like (`L000012-1`, `s0004`): anything else names no file."""


@dataclass(frozen=True)
class Playing:
    """A session in play, as the "now playing" lists show it."""

    session: str
    bots: list[str]
    where: str
    """`ladder`, or the scheduled run's name."""
    href: str
    """Its live page."""


def is_session_id(text: str) -> bool:
    """Whether `text` can name a session (and so a file): letters, digits and dashes."""
    return _SESSION.fullmatch(text) is not None


def ladder_files(service: Service, session: str) -> tuple[Path, Path]:
    """A ladder session's live file and where its history is stored once it ends."""
    ladder = service.registry.folder.ladder
    return ladder_live_folder(ladder) / f"{session}.jsonl", ladder / "histories" / f"{session}.jsonl"


def run_results(service: Service, run: str) -> Path:
    """A scheduled run's results folder: its results file, histories, standings and reports."""
    return service.registry.folder.tournaments / run / "results" / run


def run_files(service: Service, run: str, session: str) -> tuple[Path, Path]:
    """A scheduled run's session's live file and where its history is stored once it ends."""
    results = run_results(service, run)
    return live_folder(results) / f"{session}.jsonl", results / "histories" / f"{session}.jsonl"


def now_playing(service: Service, *, run: str | None = None) -> list[Playing]:
    """The ladder's sessions in play and the running scheduled runs' (only `run`'s, if given)."""
    folders: list[tuple[str, Path, str]] = []
    if run is None:
        folders.append(("ladder", ladder_live_folder(service.registry.folder.ladder), "/live/ladder/"))
    for record in service.store.runs():
        if record.status == "running" and run in (None, record.name):
            folder = live_folder(service.registry.folder.tournaments / record.name / "results" / record.name)
            folders.append((record.name, folder, f"/live/tournaments/{record.name}/"))
    playing = []
    for where, folder, href in folders:
        for path in sorted(folder.glob("*.jsonl")) if folder.is_dir() else []:
            if is_session_id(path.stem):
                playing.append(Playing(path.stem, _bots(path), where, href + path.stem))
    return playing


def _bots(path: Path) -> list[str]:
    # The session_start line names the bots; a file just created may not hold it yet.
    try:
        with path.open("rb") as file:
            start = json.loads(file.readline(1 << 16) or b"{}")
    except (OSError, ValueError):
        return []
    bots = start.get("bots") if isinstance(start, dict) else None
    return [str(bot) for bot in bots] if isinstance(bots, list) else []


class LiveViews:
    """The spectator's view of each live file at each size read, the latest `_VIEWS` kept (shared by the
    feeds' worker threads)."""

    def __init__(self) -> None:
        self._views: OrderedDict[tuple[Path, int, int], tuple[int, str] | None] = OrderedDict()
        self._lock = threading.Lock()

    def view(self, path: Path) -> tuple[int, str] | None:
        """The length of `path`'s whole lines and the spectator's view of them as JSON, or None when
        there is no file, or no whole line yet."""
        try:
            status = path.stat()
        except OSError:
            return None
        key = (path, status.st_ino, status.st_size)
        with self._lock:
            if key in self._views:
                self._views.move_to_end(key)
                return self._views[key]
        found = self._read(path)
        with self._lock:
            self._views[key] = found
            while len(self._views) > _VIEWS:
                self._views.popitem(last=False)
        return found

    @staticmethod
    def _read(path: Path) -> tuple[int, str] | None:
        try:
            data = path.read_bytes()
        except OSError:
            return None
        whole = data[:data.rfind(b"\n") + 1]
        if not whole:
            return None
        try:
            records: list[dict[str, Any]] = [json.loads(line) for line in whole.decode("ascii").splitlines()]
            text = json.dumps(replay_data(records, seat=SPECTATOR), separators=(",", ":"))
        except (ValueError, ReplayDataError) as error:  # a damaged file: nothing of it is shown
            LOGGER.warning("the live history %s cannot be shown: %s", path, error)
            return None
        return len(whole), text


async def live_events(views: LiveViews, live: Path, stored: Path) -> AsyncIterator[str]:
    """A session's feed as server-sent events: `update` with the spectator's view whenever it grew, then
    `end` with the stored history's view once it is stored (or `gone` when its session stopped unstored:
    the service was stopped, or its attempt was abandoned)."""
    sent = -1
    missing = 0.0
    quiet = 0.0
    while True:
        done = await trio.to_thread.run_sync(stored.is_file)
        view = await trio.to_thread.run_sync(views.view, stored if done else live)
        if done:
            yield f"event: end\ndata: {view[1] if view is not None else 'null'}\n\n"
            return
        if view is not None and view[0] != sent:
            sent = view[0]
            quiet = 0.0
            yield f"event: update\ndata: {view[1]}\n\n"
        missing = missing + _POLL_SECONDS if view is None else 0.0
        if missing > _GONE_SECONDS:
            yield "event: gone\ndata: null\n\n"
            return
        quiet += _POLL_SECONDS
        if quiet >= _KEEP_ALIVE_SECONDS:  # a comment line now and then keeps proxies from closing it
            quiet = 0.0
            yield ": still playing\n\n"
        await trio.sleep(_POLL_SECONDS)
