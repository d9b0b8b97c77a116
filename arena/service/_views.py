"""What each reader sees of a session: one rule for every page that shows a history, a replay, a
report or a log.

Theory of operation: public means spectator. A visitor, or an author with no bot at the table, sees
a session as a spectator at the table would (`SPECTATOR`: the hands turned over at a showdown or a
forced reveal, never a folded, unseen or compared hand, never the seed). An author with a bot at the
table sees that seat's view (its own cards too) and its own bot's logs; an organiser sees every
hand, the seed and every log. Replay pages are written once per session into two copies:
`public/` (the spectator's page, served to anyone) and `full/` (the organiser's page and each seat's,
served by `may_read_full`); a tournament's published report has the same two copies (`report/` as
`seka-arena report` writes it, and `public/`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from pathlib import Path, PurePosixPath

from ..report import SPECTATOR, page_name
from ._store import Author, LadderSession, ServiceStore

PUBLIC_COPY = "public"
"""The folder of a session's replay pages (or a tournament's report) that anyone may read."""
FULL_COPY = "full"
"""The folder of the organiser's replay pages and each seat's, read through `may_read_full`."""

_SEAT_PAGE = re.compile(r"sessions/([A-Za-z0-9_-]+)\.seat(\d+)\.html")
_LOG_FILE = re.compile(r"logs/([A-Za-z0-9_-]+)/([A-Za-z0-9_-]+)\.(stdout|stderr)\.txt")


def view_for(author: Author | None, table_authors: Sequence[str | None]) -> int | None:
    """The view `author` gets of a session whose seats' bots belong to `table_authors`: None (every
    hand) for an organiser, the seat of its first bot for an author at the table, else `SPECTATOR`.

    >>> view_for(None, ["alice", "bob"]), view_for(Author("bob", organiser=False), ["alice", "bob"])
    (-1, 1)
    """
    if author is not None and author.organiser:
        return None
    if author is not None and author.name in table_authors:
        return table_authors.index(author.name)
    return SPECTATOR


def bot_author(store: ServiceStore, bot: str) -> str | None:
    """Who submitted `bot` (None for a name the service does not know)."""
    record = store.bot(bot)
    return record.author if record is not None else None


def ladder_table_authors(store: ServiceStore, session: LadderSession) -> list[str | None]:
    """The author of each seat's bot in a ladder session, seat 0 first."""
    return [bot_author(store, store.version_by_id(seat).bot) for seat in session.seating]


def history_table_authors(store: ServiceStore, history: Path) -> list[str | None]:
    """The author of each seat's bot in a tournament session, from its history's first record (a
    scheduled tournament names its players by their bots' names)."""
    try:
        with history.open(encoding="utf-8") as lines:
            start = json.loads(lines.readline(64 * 1024))
        seats = [str(entry["bot"]) for entry in start["seats"]]
    except (OSError, ValueError, KeyError, TypeError):
        return []
    return [bot_author(store, bot) for bot in seats]


def may_read_full(author: Author | None, relative: str, *,
                  table_authors: Callable[[str], Sequence[str | None]], store: ServiceStore) -> bool:
    """Whether `author` may read the file `relative` of a full copy (replay pages or a report).

    Its assets are anyone's; a seat's page is its bot's author's (`table_authors` gives the authors
    of the session whose page name is given); a bot's log copied into a report is its author's;
    everything else (the organiser's pages, the report's other pages) is organisers' alone. `relative`
    must be the file's real path (links and `..` resolved).
    """
    if author is None:
        return PurePosixPath(relative).parts[:1] == ("assets",)
    if author.organiser or PurePosixPath(relative).parts[:1] == ("assets",):
        return True
    if (seat_match := _SEAT_PAGE.fullmatch(relative)) is not None:
        authors = table_authors(seat_match.group(1))
        seat = int(seat_match.group(2))
        return seat < len(authors) and authors[seat] == author.name
    if (log_match := _LOG_FILE.fullmatch(relative)) is not None:
        # A tournament names a bot's log by the bot's name, the ladder by its version's label.
        names = {name for bot in store.bots(author.name)
                 for name in (bot.name, *(version.label for version in store.versions(bot.name)))}
        return log_match.group(2) in {page_name(name) for name in names}
    return False
