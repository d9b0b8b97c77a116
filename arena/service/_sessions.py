"""The results API: finished sessions listed newest first, and each one's history in the caller's view.

Theory of operation: `GET /api/sessions` lists the ladder's finished sessions and the challenges'
(a challenge's only to its challenger and the organisers), newest first by finish time then id,
paged by a cursor (the last row's finish time and id: a page never repeats nor skips a session
as new ones land). `GET /api/sessions/ID/history` gives a finished session's history as JSON
Lines, each record redacted by `_views.view_for`'s rule as the session pages are: a spectator's
(no folded, unseen or compared hand, no seed), the caller's seat's (its own bot's cards), or, to
an organiser, the history as written. A session the caller may not know of (another author's
challenge) is answered 404, as one that does not exist.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..engine import ArenaError, format_amount
from ..report import redact_records
from . import _challenges
from ._service import Service
from ._store import Author, ServiceStore, SessionRow, iso
from ._views import ladder_table_authors, view_for

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


def list_sessions(service: Service, reader: Author | None, *, bot: str | None, since: str | None,
                  cursor: str | None, limit: int) -> Page:
    """A page of finished sessions `reader` may know of (those `bot` sat in, if named).

    Raises:
        ResultsRequestError: an unknown bot, a bad `since` or cursor.
    """
    store = service.store
    versions: list[int] | None = None
    if bot is not None:
        if store.bot(bot) is None:
            raise ResultsRequestError(f"bot: no bot {bot[:80]!r}")
        versions = [version.id for version in store.versions(bot)]
    rows = store.finished_sessions(
        versions=versions, challenges_of=reader.name if reader is not None else None,
        everything=reader is not None and reader.organiser, since=None if since is None else parse_since(since),
        before=None if cursor is None else _cursor(cursor), limit=limit + 1)
    labels = _labels(store)
    shown = [_session_json(row, labels) for row in rows[:limit]]
    last = rows[limit - 1] if len(rows) > limit else None
    return Page(shown, None if last is None else f"{last.finished_at}|{last.id}")


def _labels(store: ServiceStore) -> dict[str, str]:
    return {str(version.id): version.label for version in store.versions()}


def _session_json(row: SessionRow, labels: dict[str, str]) -> dict[str, Any]:
    shown: dict[str, Any] = {
        "id": row.id, "kind": row.kind, "finished_at": row.finished_at,
        "seats": [labels.get(seat, seat) for seat in row.seating],
        "balances": [format_amount(amount) for amount in row.balances], "faults": list(row.faults),
        "rated": row.kind == "ladder", "history": f"/api/sessions/{row.id}/history"}
    if row.challenge is not None:
        shown["challenge"] = row.challenge
    return shown


def session_history(service: Service, reader: Author | None, session_id: str) -> Iterator[bytes] | None:
    """The history of a finished session as JSON Lines in `reader`'s view, or None when there is none
    that `reader` may know of."""
    store = service.store
    path: Path | None = None
    authors: list[str | None] = []
    if (ladder := store.ladder_session(session_id)) is not None and ladder.history_path is not None:
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
