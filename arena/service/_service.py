"""What the web app and the service's background tasks share: the store, the registry, the check
queue, the leaderboard, and an event that wakes live pages."""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import trio

from ..ratings import RatingError, SessionOutcome, standings
from ..tournament import Progress
from ..transport import Isolation, default_isolation, verify_isolation
from ._config import ServiceConfig
from ._registry import Registry
from ._store import ServiceStore, VersionRecord, VersionStatus

LOGGER = logging.getLogger(__name__)
_LEADERBOARD_RESAMPLES = 400


@dataclass(frozen=True)
class LeaderRow:
    """One bot's row of the leaderboard: its current version's rating over every session it played."""

    name: str
    version: int
    rating: float
    ci_low: float
    ci_high: float
    sessions: int

    @property
    def rated(self) -> bool:
        """False until the version has played (its interval is then unknown, and null in JSON)."""
        return self.sessions > 0 and not math.isnan(self.ci_low)

    def as_json(self) -> dict[str, Any]:
        return {"name": self.name, "version": self.version, "rating": round(self.rating, 1),
                "ci_low": round(self.ci_low, 1) if self.rated else None,
                "ci_high": round(self.ci_high, 1) if self.rated else None, "sessions": self.sessions}


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
            except Exception:  # not the bot's fault (a full disk): it stays pending, checked again next start
                LOGGER.exception("checking %s failed", version.label)
            self.notify()

    def leaderboard(self) -> list[LeaderRow]:
        """The current version of every bot, rated over the ladder's finished sessions (cached until
        one more finishes)."""
        sessions = [session for session in self.store.ladder_sessions() if session.balances is not None]
        if self._board[0] == len(sessions):
            return self._board[1]
        current = {version.id: version for version in self.store.current_versions()}
        outcomes = [SessionOutcome(tuple(str(seat) for seat in session.seating), tuple(session.balances or ()),
                                   f"b{session.block}") for session in sessions]
        rows: list[LeaderRow] = []
        try:
            table = standings(outcomes, resamples=_LEADERBOARD_RESAMPLES) if outcomes else []
        except RatingError:
            table = []
        rated = {int(row.name): row for row in table}
        for version in current.values():
            row = rated.get(version.id)
            rows.append(LeaderRow(version.bot, version.number, row.rating if row else 1500.0,
                                  row.ci_low if row else math.nan, row.ci_high if row else math.nan,
                                  row.sessions if row else 0))
        rows.sort(key=lambda row: (not row.rated, -row.rating, row.name))  # versions in placement last
        self._board = (len(sessions), rows)
        return rows


def open_service(config: ServiceConfig, *, clock: Callable[[], float] = time.time) -> Service:
    """The service over its store, its isolation level checked against the machine."""
    if config.isolation is None:
        isolation, warning = default_isolation()
    else:
        verify_isolation(config.isolation)
        isolation, warning = config.isolation, None
    config.data.mkdir(parents=True, exist_ok=True)
    store = ServiceStore.open(config.data / "service.sqlite", clock=clock)
    return Service(config, store, isolation=isolation, isolation_warning=warning)
