"""The results API: finished sessions listed newest first, and each one's history in the caller's view.

Theory of operation: `GET /api/sessions` lists the ladder's finished sessions, the challenges'
(a challenge's only to its challenger and the organisers) and the scheduled tournaments' (read from
each run's results file, as its page lists them to anyone, a running run's finished ones too),
newest first by finish time then key (the id; `RUN/ID` for a tournament's, whose id is unique only
within its run), paged by a cursor (the last row's finish time and key: a page never repeats nor
skips a session as new ones land). `GET /api/sessions/ID/history` (`?tournament=RUN` for a
tournament's, as its session pages are addressed) gives a finished session's history as JSON
Lines, each record redacted by `_views.view_for`'s rule as the session pages are: a spectator's
(no folded, unseen or compared hand, no seed), the caller's seat's (its own bot's cards), or, to
an organiser, the history as written. A session the caller may not know of (another author's
challenge) is answered 404, as one that does not exist.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ..engine import ArenaError, format_amount
from ..report import redact_records
from ..storage import SessionStatus, StorageError, Store
from . import _challenges
from ._live import is_session_id, run_files, run_results
from ._service import Service
from ._store import Author, ServiceStore, SessionRow, from_iso, iso
from ._views import history_table_authors, ladder_table_authors, view_for

MAX_PAGE = 500
"""Sessions one page may list (`limit`)."""


class ResultsRequestError(ArenaError, ValueError):
    """A results request the service cannot answer as asked (HTTP 422)."""


@dataclass(frozen=True)
class Page:
    """One page of the listing, and the cursor of the next (None on the last)."""

    sessions: list[dict[str, Any]]
    next: str | None


def parse_since(text: str) -> str:
    """An ISO 8601 time (a date, or a time with an offset; UTC without one) as the store keeps times.

    >>> parse_since("2026-12-04"), parse_since("2026-12-04T18:30:00+01:00")
    ('2026-12-04T00:00:00+00:00', '2026-12-04T17:30:00+00:00')
    """
    try:
        when = datetime.fromisoformat(text[:64])
    except ValueError:
        raise ResultsRequestError(f"since: an ISO 8601 time such as 2026-12-04T18:00:00Z, not {text[:64]!r}") from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return iso(when.timestamp())


def _cursor(text: str) -> tuple[str, str]:
    finished, _, session = text.partition("|")
    if not finished or not session:
        raise ResultsRequestError("cursor: give the `next` of the page before, as it came")
    return finished, session


def list_sessions(service: Service, reader: Author | None, *, runs: RunSessions, bot: str | None,
                  since: str | None, cursor: str | None, limit: int) -> Page:
    """A page of finished sessions `reader` may know of (those `bot` sat in, if named); the scheduled
    runs' read through `runs`.

    Raises:
        ResultsRequestError: an unknown bot, a bad `since` or cursor.
    """
    store = service.store
    versions: list[int] | None = None
    if bot is not None:
        if store.bot(bot) is None:
            raise ResultsRequestError(f"bot: no bot {bot[:80]!r}")
        versions = [version.id for version in store.versions(bot)]
    after = None if since is None else parse_since(since)
    before = None if cursor is None else _cursor(cursor)
    rows = store.finished_sessions(
        versions=versions, challenges_of=reader.name if reader is not None else None,
        everything=reader is not None and reader.organiser, since=after, before=before, limit=limit + 1)
    rows += _tournament_sessions(service, runs, bot=bot, since=after, before=before)
    rows = sorted(rows, key=lambda row: (row.finished_at, _key(row)), reverse=True)[:limit + 1]
    labels = _labels(store)
    shown = [_session_json(row, labels) for row in rows[:limit]]
    last = rows[limit - 1] if len(rows) > limit else None
    return Page(shown, None if last is None else f"{last.finished_at}|{_key(last)}")


def _key(row: SessionRow) -> str:
    # What orders sessions of one finish time and ends a cursor: a tournament session's id is its run's only.
    return row.id if row.tournament is None else f"{row.tournament}/{row.id}"


class RunSessions:
    """Each scheduled run's finished sessions as its results file held them, the last `size` runs read kept:
    a listing reads every run's, and would otherwise open and read each file at every request. A file is
    read again once it (or its write-ahead log, where a running run's newest results are) changed: by its
    inode, size or modification time."""

    def __init__(self, size: int = 64) -> None:
        self.size = size
        self._rows: OrderedDict[Path, tuple[tuple[object, ...], list[SessionRow]]] = OrderedDict()
        self._lock = threading.Lock()  # requests may read it from threads

    def finished(self, database: Path, run: str) -> list[SessionRow]:
        """The run's finished sessions, from its results file `database` (none while it is missing, being
        created or damaged)."""
        key = _file_key(database)
        if key is None:
            return []
        with self._lock:
            if (found := self._rows.get(database)) is not None and found[0] == key:
                self._rows.move_to_end(database)
                return found[1]
        try:
            with Store.open(database, read_only=True) as results:
                sessions = results.sessions()
        except StorageError:
            return []
        rows = [SessionRow(kind="tournament", id=session.id, challenge=None, seating=session.table,
                           balances=tuple(session.balances[name] for name in session.table),
                           faults=tuple(sum((session.faults or {}).get(name, {}).values()) for name in session.table),
                           finished_at=iso(from_iso(session.finished_at)), tournament=run)
                for session in sessions if session.status is SessionStatus.FINISHED
                and session.finished_at is not None and session.balances is not None]
        with self._lock:
            self._rows[database] = (key, rows)
            self._rows.move_to_end(database)
            while len(self._rows) > self.size:
                self._rows.popitem(last=False)
        return rows


def _file_key(database: Path) -> tuple[object, ...] | None:
    # The file's and its write-ahead log's identity, size and modification time (None: no file).
    key: list[object] = []
    for path in (database, database.with_name(database.name + "-wal")):
        try:
            status = path.stat()
        except FileNotFoundError:
            key.append(None)
            continue
        except OSError:
            return None
        key.append((status.st_ino, status.st_size, status.st_mtime_ns))
    return None if key[0] is None else tuple(key)


def _tournament_sessions(service: Service, runs: RunSessions, *, bot: str | None, since: str | None,
                         before: tuple[str, str] | None) -> list[SessionRow]:
    """The finished sessions of the scheduled runs (those `bot` sat in, if named) in the window, from each
    run's results file (a run not begun has none; one being created or damaged lists nothing)."""
    rows = []
    for run in service.store.runs():
        for row in runs.finished(run_results(service, run.name) / "tournament.sqlite", run.name):
            if bot is not None and bot not in row.seating:
                continue
            if since is not None and row.finished_at < since:
                continue
            if before is None or (row.finished_at, _key(row)) < before:
                rows.append(row)
    return rows


def _labels(store: ServiceStore) -> dict[str, str]:
    return {str(version.id): version.label for version in store.versions()}


def _session_json(row: SessionRow, labels: dict[str, str]) -> dict[str, Any]:
    shown: dict[str, Any] = {
        "id": row.id, "kind": row.kind, "finished_at": row.finished_at,
        "seats": [labels.get(seat, seat) if row.tournament is None else seat for seat in row.seating],
        "balances": [format_amount(amount) for amount in row.balances], "faults": list(row.faults),
        "rated": row.kind == "ladder", "history": f"/api/sessions/{row.id}/history"}
    if row.challenge is not None:
        shown["challenge"] = row.challenge
    if row.tournament is not None:
        shown["tournament"] = row.tournament
        shown["history"] += f"?tournament={quote(row.tournament)}"
    return shown


def session_history(service: Service, reader: Author | None, session_id: str,
                    tournament: str | None = None) -> Iterator[bytes] | None:
    """The history of a finished session (of the scheduled run `tournament`, if named) as JSON Lines in
    `reader`'s view, or None when there is none that `reader` may know of."""
    store = service.store
    path: Path | None = None
    authors: list[str | None] = []
    if tournament is not None:
        if is_session_id(session_id) and any(run.name == tournament for run in store.runs()):
            stored = run_files(service, tournament, session_id)[1]
            if stored.is_file():
                path, authors = stored, history_table_authors(store, stored)
    elif (ladder := store.ladder_session(session_id)) is not None and ladder.history_path is not None:
        path, authors = service.config.data / ladder.history_path, ladder_table_authors(store, ladder)
    elif (challenged := store.challenge_session(session_id)) is not None and challenged.history_path is not None:
        challenge = store.challenge(challenged.challenge)
        if challenge is None or not _challenges.may_see_challenge(reader, challenge):
            return None
        path = service.config.data / challenged.history_path
        authors = _challenges.table_authors(store, challenged)
    if path is None:
        return None
    view = view_for(reader, authors)
    return _lines(path, view)


def _lines(path: Path, view: int | None) -> Iterator[bytes]:
    # The history as written for an organiser; else record by record, redacted for the view.
    with path.open("rb") as history:
        for line in history:
            if view is None:
                yield line
                continue
            record = json.loads(line)
            for redacted in redact_records([record], view):
                yield (json.dumps(redacted, separators=(",", ":")) + "\n").encode()
