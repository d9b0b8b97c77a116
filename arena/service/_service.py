"""What the web app and the service's background tasks share: the store, the registry, the check
queue, the leaderboard's board, and an event that wakes live pages."""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable
from typing import Any

import trio

from ..checkbot import check_command
from ..engine import format_amount
from ..isolation import Isolation, default_isolation, verify_isolation
from ..storage import is_disk_full, make_private_folder
from ..tournament import Progress
from ._board import Board
from ._collusion import Analyses
from ._config import ServiceConfig
from ._registry import Registry
from ._store import ServiceStore, VersionRecord, VersionStatus

LOGGER = logging.getLogger(__name__)


class DiskFullEpisodes:
    """A full disk logged once per episode: when a write first meets it, and when writes succeed
    again; the failures in between (each upload, action or ladder retry) are not logged again."""

    def __init__(self) -> None:
        self.since: str | None = None
        """What first met the full disk, while the episode lasts; else None."""

    def met(self, error: BaseException, doing: str) -> None:
        if self.since is None:
            self.since = doing
            LOGGER.error("disk full while %s: %s; further failures are not logged until a write succeeds",
                         doing, error)

    def cleared(self) -> None:
        if self.since is not None:
            LOGGER.warning("the disk takes writes again (full since %s)", self.since)
            self.since = None


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
        self.disk_full = DiskFullEpisodes()
        self.changed = trio.Event()
        """Set (and replaced) whenever something pages show changes: live pages wait on it."""
        self.board = Board(store, changed=lambda: self.changed)
        """The leaderboard's last fit, and the worker that makes the next."""
        self.collusion = Analyses(store, ladder=self.registry.folder.ladder,
                                  tournaments=self.registry.folder.tournaments, saved=self.registry.folder.collusion)
        """The organisers' collusion reports, and the worker that makes them."""
        self.progress: dict[str, Progress] = {}
        """The last progress of each scheduled tournament running, by name (live pages read it)."""
        self.freeze_checks: list[Callable[[], str | None]] = []
        """Each says until when submissions are frozen (a scheduled tournament about to fire), or None."""
        self.stopping = trio.Event()
        """Set by `stop`: the ladder and the scheduled tournaments finish their sessions in flight, start no
        other, and return."""

    def frozen_until(self) -> str | None:
        for check in self.freeze_checks:
            if (until := check()) is not None:
                return until
        return None

    def notify(self) -> None:
        """Wake whoever waits on `changed` (live pages)."""
        self.changed.set()
        self.changed = trio.Event()

    def stop(self) -> None:
        """Ask the ladder and the scheduled tournaments to stop once their sessions in flight are stored
        (a first SIGTERM or Ctrl-C to `serve`)."""
        self.stopping.set()
        self.notify()  # the idle ones wait on `changed`

    def game(self) -> dict[str, Any]:
        """The game this service checks and plays, as `GET /api/game` gives it and every page's header shows it."""
        rules, limits = self.config.rules, self.config.limits
        return {
            "profile": rules.name,
            "options": rules.option_values,
            "table": {"ante": format_amount(rules.ante), "opening_stake": format_amount(rules.opening_stake),
                      "max_bet": None if rules.betting.stacks else format_amount(rules.max_bet),
                      "pots": rules.pots_per_session, "max_actions": rules.max_actions, "seats": rules.max_seats},
            "limits": limits.settings(),
            "isolation": self.isolation.value,
            "description": rules.describe(),
            "check_bot": check_command(rules, limits.time),
        }

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
            except Exception as error:  # its verdict was not stored (a full disk): pending, checked again next start
                if is_disk_full(error):
                    self.disk_full.met(error, f"checking {version.label}")
                else:
                    LOGGER.exception("recording the check of %s failed", version.label)
            self.notify()


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
