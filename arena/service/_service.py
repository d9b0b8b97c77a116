"""What the web app and the service's background tasks share: the store, the registry, the check
queue, the leaderboard, and an event that wakes live pages."""

from __future__ import annotations

import logging
import math
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import trio

from ..isolation import Isolation, default_isolation, verify_isolation
from ..ratings import RatingError, SessionOutcome, Standing, comparison_groups, standings
from ..storage import make_private_folder
from ..tournament import Progress
from ._config import ServiceConfig
from ._registry import Registry
from ._store import ServiceStore, VersionRecord, VersionStatus

LOGGER = logging.getLogger(__name__)
_LEADERBOARD_RESAMPLES = 400

PLACEMENT = "in placement: no ladder session played yet"
"""Why a version that has not played is unrated."""
NOT_COMPARED = "not yet compared with the leading group: its sessions never met the rated bots"
"""Why a version that played is unrated when the ladder's comparison graph is split."""


@dataclass(frozen=True)
class LeaderRow:
    """One bot's row of the leaderboard: its current version's rating over every session it played,
    or why it has none (`unrated`)."""

    name: str
    version: int
    rating: float
    ci_low: float
    ci_high: float
    sessions: int
    unrated: str | None = None
    """Why the version has no rating (then `rating` and the interval mean nothing); None when rated."""

    @property
    def rated(self) -> bool:
        return self.unrated is None

    def as_json(self) -> dict[str, Any]:
        return {"name": self.name, "version": self.version,
                "rating": round(self.rating, 1) if self.rated else None,
                "ci_low": round(self.ci_low, 1) if self.rated else None,
                "ci_high": round(self.ci_high, 1) if self.rated else None, "sessions": self.sessions,
                "unrated": self.unrated}


def main_group(groups: list[tuple[str, ...]], current: Mapping[str, str], sessions: Counter[frozenset[str]]
               ) -> tuple[str, ...]:
    """The group the leaderboard rates: the one holding the most current versions, then the one with
    the most sessions, then the first by its current versions' bot names (`current` maps each current
    player to its bot's name; `sessions` counts the sessions of each set of players).

    Most current versions first because the board shows current versions: rating that group leaves
    the fewest of them unrated. When two groups hold as many (two newcomers placed against each other
    beside two established bots), the one with more sessions is the established ladder, whose
    ratings are the better measured; names only make the choice deterministic.
    """
    def played(group: tuple[str, ...]) -> int:
        members = set(group)
        return sum(count for seated, count in sessions.items() if seated <= members)

    def names(group: tuple[str, ...]) -> list[str]:
        return sorted(current[player] for player in group if player in current)

    return min(groups, key=lambda group: (-len(names(group)), -played(group), names(group)))


class Service:
    """What the web app and the background tasks share: the store, the registry, what changed."""

    def __init__(self, config: ServiceConfig, store: ServiceStore, *, isolation: Isolation,
                 isolation_warning: str | None = None) -> None:
        self.config = config
        self.store = store
        self.isolation = isolation
        self.isolation_warning = isolation_warning
        self.registry = Registry(store, config, isolation=isolation, frozen_until=self.frozen_until)
        self._checks_send, self._checks_receive = trio.open_memory_channel[int](math.inf)
        self.changed = trio.Event()
        """Set (and replaced) whenever something pages show changes: live pages wait on it."""
        self._board: tuple[int, list[LeaderRow]] = (-1, [])
        self._failure: str | None = None  # the leaderboard's last rating error, logged once
        self.progress: dict[str, Progress] = {}
        """The last progress of each scheduled tournament running, by name (live pages read it)."""
        self.freeze_checks: list[Callable[[], str | None]] = []
        """Each says until when submissions are frozen (a scheduled tournament about to fire), or None."""

    def frozen_until(self) -> str | None:
        for check in self.freeze_checks:
            if (until := check()) is not None:
                return until
        return None

    def notify(self) -> None:
        """Wake whoever waits on `changed` (live pages)."""
        self.changed.set()
        self.changed = trio.Event()

    def queue_check(self, version: VersionRecord) -> None:
        self._checks_send.send_nowait(version.id)

    async def run_checks(self) -> None:
        """Check every pending version, oldest first, then each new one as it comes."""
        for version in self.store.versions(status=VersionStatus.PENDING):
            self._checks_send.send_nowait(version.id)
        async for version_id in self._checks_receive:
            version = self.store.version_by_id(version_id)
            if version.status is not VersionStatus.PENDING:
                continue
            try:
                await self.registry.check(version)
            except Exception:  # its verdict could not be stored (a full disk): pending, checked again next start
                LOGGER.exception("recording the check of %s failed", version.label)
            self.notify()

    def leaderboard(self) -> list[LeaderRow]:
        """The current version of every bot, rated over the ladder's finished sessions (cached until
        one more finishes).

        Ratings are comparable only within a connected group of the comparison graph, so when the
        ladder is split (newcomers placed against each other, before a block links them to the rest)
        only the main group (`main_group`) is rated, over its own sessions; a current version outside
        it is shown unrated, with its sessions and the reason. With the leaderboard's prior,
        `standings` can still raise `RatingError` when the fit does not converge; then every version
        is shown unrated, the main group's with the error, which is logged once (not at each rebuild).
        """
        sessions = [session for session in self.store.ladder_sessions() if session.balances is not None]
        if self._board[0] == len(sessions):
            return self._board[1]
        current = {str(version.id): version for version in self.store.current_versions()}
        outcomes = [SessionOutcome(tuple(str(seat) for seat in session.seating), tuple(session.balances or ()),
                                   f"b{session.block}") for session in sessions]
        played = Counter(bot for outcome in outcomes for bot in outcome.bots)
        groups = comparison_groups(outcomes)
        rated: dict[str, Standing] = {}
        failure: str | None = None
        leading: set[str] = set()
        if groups:
            bots = {key: version.bot for key, version in current.items()}
            leading = set(main_group(groups, bots, Counter(frozenset(o.bots) for o in outcomes)))
            try:
                table = standings([o for o in outcomes if leading.issuperset(o.bots)],
                                  resamples=_LEADERBOARD_RESAMPLES)
            except RatingError as error:
                failure = f"not rated: the ratings could not be computed ({error})"
                if failure != self._failure:
                    LOGGER.error("the leaderboard shows every bot unrated: %s", error)
                table = []
            rated = {row.name: row for row in table}
        self._failure = failure
        rows: list[LeaderRow] = []
        for key, version in current.items():
            if (row := rated.get(key)) is not None:
                rows.append(LeaderRow(version.bot, version.number, row.rating, row.ci_low, row.ci_high,
                                      row.sessions))
            else:
                reason = PLACEMENT if not played[key] else NOT_COMPARED if key not in leading else failure
                rows.append(LeaderRow(version.bot, version.number, math.nan, math.nan, math.nan, played[key],
                                      unrated=reason))
        # Rated best first; then the unrated, those that played first, by name.
        rows.sort(key=lambda row: (not row.rated, -row.rating if row.rated else -row.sessions, row.name))
        self._board = (len(sessions), rows)
        return rows


def open_service(config: ServiceConfig, *, clock: Callable[[], float] = time.time) -> Service:
    """The service over its store, its isolation level checked against the machine."""
    if config.isolation is None:
        isolation, warning = default_isolation()
    else:
        verify_isolation(config.isolation)
        isolation, warning = config.isolation, None
    make_private_folder(config.data)  # it holds the ladder's secret: 0700 when the service makes it
    store = ServiceStore.open(config.data / "service.sqlite", clock=clock)
    return Service(config, store, isolation=isolation, isolation_warning=warning)
