"""Scheduled tournaments: each fires on its cron expression, once and only once, as an ordinary tournament.

Theory of operation: a schedule remembers the last firing it claimed (`last_due`; when
it was created, before its first). Each pass of `fire_due` takes, for every schedule, the latest
firing due by now after that one (a service that was down over several firings fires once, for the
latest) and claims it in one transaction with the record of the run, so a firing is claimed once
whatever restarts happen, and a later claim of the same or an earlier time is refused. A claimed run
becomes an ordinary tournament: its definition (the latest accepted version of every bot, or of the
ladder's best `top`, in a round robin of duplicate blocks, with a secret drawn now) is stored with
the run before it starts, written to `tournaments/NAME/tournament.yaml`, and played by
`TournamentRunner` (on the service's cluster when the service file names one: `cluster:`), whose
store commits the seed before the first session and reveals it after the last; its HTML report
(`arena.report`) is then written twice: the full report (`report/`, every view and log, for
organisers and, seat by seat, for authors) and the public copy (`public/`, a spectator's view, or
every hand when the schedule says `publish: organiser`), published on its page. A run left `due` or
`running` by a stopped service is resumed from its stored definition, so the restarted run plays
exactly the sessions that were missing. The clock is the store's (injectable), so tests move time by
hand.
"""

from __future__ import annotations

import logging
import math
import secrets
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import trio
import yaml
from croniter import croniter

from ..engine import ArenaError, format_amount
from ..report import Audience, write_report
from ..storage import write_atomically
from ..tournament import Progress, TournamentRunner, parse_config
from ._service import Service
from ._store import RunRecord, ScheduleRecord, ServiceStore, from_iso, iso
from ._views import PUBLIC_COPY

LOGGER = logging.getLogger(__name__)
_MAX_SLEEP = 30.0


def next_due(cron: str, after: float) -> float:
    """The first firing of `cron` (UTC) strictly after `after` (seconds since the epoch).

    >>> from datetime import UTC, datetime
    >>> datetime.fromtimestamp(next_due("0 2 * * *", datetime(2026, 1, 1, 3, tzinfo=UTC).timestamp()), UTC)
    datetime.datetime(2026, 1, 2, 2, 0, tzinfo=datetime.timezone.utc)
    """
    return float(croniter(cron, datetime.fromtimestamp(after, UTC)).get_next(float))


def latest_due(cron: str, after: float, now: float) -> float | None:
    """The latest firing of `cron` in (after, now], or None."""
    due = next_due(cron, after)
    if due > now:
        return None
    while (following := next_due(cron, due)) <= now:
        due = following
    return due


def fire_now(store: ServiceStore, schedule: str) -> RunRecord | None:
    """Claim a firing of `schedule` now (an organiser's `run now`), whatever the clock did since its
    last one, or None while a run of the schedule is still due or running; the scheduler plays it
    when next woken. Its run is named to the second (`nightly-20260102T013015`), so it never takes
    the name of a cron firing (`nightly-20260102T0200`), whose claims it leaves alone."""
    now = store.clock()
    stamp = datetime.fromtimestamp(math.floor(now), UTC).strftime("%Y%m%dT%H%M%S")
    return store.claim_manual_firing(schedule, now, name=f"{schedule}-{stamp}")


def report_audience(store: ServiceStore, run: RunRecord) -> Audience:
    """Who a finished run's public report is written for: spectators, unless its schedule publishes
    the organiser's view (`publish: organiser`: every hand, still no bot's logs)."""
    schedule = next((item for item in store.schedules() if item.name == run.schedule), None)
    publish = schedule.settings.get("publish") if schedule is not None else None
    return Audience.PUBLIC_HANDS if publish == "organiser" else Audience.PUBLIC


def run_name(schedule: str, due: float) -> str:
    """The tournament's name for a firing: `nightly-20260102T0200`."""
    return f"{schedule}-{datetime.fromtimestamp(due, UTC).strftime('%Y%m%dT%H%M')}"


class Scheduler:
    """Fires the configured (and organiser-made) schedules and plays their tournaments."""

    def __init__(self, service: Service) -> None:
        self.service = service
        self.store = service.store
        for schedule in service.config.schedules:
            self.store.ensure_schedule(schedule.name, schedule.cron, schedule.settings())

    def frozen_until(self) -> str | None:
        """The firing time of a schedule whose freeze has begun, or None."""
        now = self.store.clock()
        for schedule in self.store.schedules():
            minutes = int(schedule.settings.get("freeze_minutes") or 0)
            due = next_due(schedule.cron, from_iso(schedule.last_due))
            if minutes and due - minutes * 60 <= now:
                return iso(due)
        return None

    def fire_due(self) -> list[RunRecord]:
        """Claim every firing due by now (at most one per schedule); the runs claimed."""
        now = self.store.clock()
        claimed = []
        for schedule in self.store.schedules():
            due = latest_due(schedule.cron, from_iso(schedule.last_due), now)
            if due is not None and (run := self.store.claim_firing(schedule.name, iso(due),
                                                                    name=run_name(schedule.name, due))) is not None:
                claimed.append(run)
        return claimed

    def seconds_to_next(self) -> float:
        now = self.store.clock()
        dues = [next_due(schedule.cron, from_iso(schedule.last_due)) for schedule in self.store.schedules()]
        return min([_MAX_SLEEP, *(max(0.0, due - now) for due in dues)])

    async def run(self) -> None:
        """Play the runs a stopped service left, then fire schedules as they fall due (or as an
        organiser fires one), until cancelled, or until the service is stopping and the runs' sessions
        in flight are stored (a run so stopped stays `running`: the next start resumes it)."""
        playing: set[int] = set()
        async with trio.open_nursery() as nursery:
            while not self.service.stopping.is_set():
                self.fire_due()
                for run in self.store.runs():
                    if run.status in ("due", "running") and run.id not in playing:
                        playing.add(run.id)
                        nursery.start_soon(self.play, run)
                with trio.move_on_after(self.seconds_to_next() + 0.5):
                    await self.service.changed.wait()

    def definition(self, run: RunRecord) -> str:
        """The tournament file of a run: the latest accepted version of its bots, in a round robin, each author
        of several bots a team (no table seats two of them)."""
        schedule = next((item for item in self.store.schedules() if item.name == run.schedule), None)
        if schedule is None:
            raise ArenaError(f"no schedule {run.schedule!r}")
        versions = self.store.current_versions()
        top = schedule.settings.get("top")
        if top:
            order = {row.name: place for place, row in enumerate(self.service.board.rows())}
            versions = sorted(versions, key=lambda version: order.get(version.bot, len(order)))[:int(top)]
        registry = self.service.registry
        table_size = int(schedule.settings.get("table_size") or 2)
        if len(versions) < max(2, table_size):
            raise ArenaError(f"{len(versions)} bots have an accepted version; a table of {table_size} needs more")
        rules = self.service.config.rules
        document: dict[str, Any] = {
            "name": run.name,
            "profile": rules.name,
            "table": {"ante": format_amount(rules.ante), "opening_stake": format_amount(rules.opening_stake),
                      "max_bet": format_amount(rules.max_bet), "max_actions": rules.max_actions,
                      "pots": rules.pots_per_session, **rules.option_values},
            "table_size": table_size,
            "sessions_per_table": int(schedule.settings.get("sessions_per_table") or 1),
            "duplicate": True,
            "seed": secrets.token_hex(16),  # committed by the runner before the first session
            "limits": {key: value for key, value in self.service.config.limits.settings().items()
                       if value is not None},
            "isolation": registry.isolation.value,
            "participants": [{"name": version.bot, "command": version.command,
                              "cwd": str(registry.folder.bot(version.sha256)), "confined": True}
                             for version in versions],
        }
        # A rated table never seats two bots of one author: each author of several bots is a team.
        authors = {bot.name: bot.author for bot in self.store.bots()}
        teams: dict[str, list[str]] = {}
        for version in versions:
            teams.setdefault(authors[version.bot], []).append(version.bot)
        if shared := {author: bots for author, bots in sorted(teams.items()) if len(bots) > 1}:
            document["teams"] = shared
        return yaml.safe_dump(document, sort_keys=False)

    def folder(self, run: RunRecord) -> Path:
        return self.service.registry.folder.tournaments / run.name

    def results(self, run: RunRecord) -> Path:
        """Where the run's standings.json, histories and results file are."""
        return self.folder(run) / "results" / run.name

    async def play(self, run: RunRecord) -> None:
        """Play (or resume) a run's tournament to its end and publish its standings."""
        try:
            definition = run.definition
            if definition is None:
                definition = await trio.to_thread.run_sync(self.definition, run)
                self.store.start_run(run.id, definition)
            folder = self.folder(run)
            path = folder / "tournament.yaml"
            write_atomically(path, definition, private=True)  # its seed is secret until the run reveals it
            config = parse_config(definition, filename=str(path), base_dir=folder, path=path)
            # Its sessions watched as played; on the service's cluster when it has one (the runner, here, the only
            # writer of its store and files).
            runner = TournamentRunner(config, out=folder, live=True, cluster=self.service.config.cluster,
                                      certificates=self.service.config.cluster_certificates)
        except ArenaError as error:
            LOGGER.warning("scheduled tournament %s not played: %s", run.name, error)
            self.store.finish_run(run.id, status="failed", message=str(error))
            self.service.notify()
            return
        try:
            def update(progress: Progress) -> None:
                self.service.progress[run.name] = progress
                self.service.notify()

            complete = await runner.run(on_progress=update, stop=self.service.stopping)
            if complete or runner.store.tally()[0]:  # stopped before any session ended: nothing to rate yet
                runner.write_results()
            if complete:  # the HTML reports (arena.report): the full one and the public copy on its page
                results, audience = self.results(run), report_audience(self.store, run)
                await trio.to_thread.run_sync(lambda: write_report(results))
                await trio.to_thread.run_sync(lambda: write_report(results, out=results / PUBLIC_COPY,
                                                                   audience=audience))
        except Exception as error:  # an arena bug or a full disk: the run is marked, the service goes on
            LOGGER.exception("scheduled tournament %s failed", run.name)
            self.store.finish_run(run.id, status="failed", message=f"{type(error).__name__}: {error}")
            self.service.notify()
            return
        finally:
            runner.close()
        if complete:
            self.store.finish_run(run.id, status="finished")
            self.service.progress.pop(run.name, None)
            self.service.notify()


def schedules_due_text(schedules: list[ScheduleRecord]) -> dict[str, str]:
    """When each schedule fires next, as ISO text (for the pages)."""
    return {schedule.name: iso(next_due(schedule.cron, from_iso(schedule.last_due))) for schedule in schedules}

