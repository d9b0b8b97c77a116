"""Scheduled tournaments on an injected clock: a cron firing is claimed once and only once, also
across a restart, and submissions freeze before it."""

from __future__ import annotations

import dataclasses
import itertools
import stat
from pathlib import Path

import pytest
import trio

from arena.engine import profile
from arena.history import read_history
from arena.isolation import Isolation
from arena.service import (
    Author,
    LadderConfig,
    ScheduleConfig,
    Scheduler,
    ServiceConfig,
    fire_now,
    open_service,
)
from arena.service._registry import SubmissionsFrozenError
from arena.service._store import from_iso
from arena.tournament import TournamentConfigError, load_config, parse_config

from ._archives import sample_archive


class Clock:
    def __init__(self, text: str) -> None:
        self.now = from_iso(text)

    def set(self, text: str) -> None:
        self.now = from_iso(text)

    def __call__(self) -> float:
        return self.now


def _config(tmp_path: Path, **schedule: object) -> ServiceConfig:
    return ServiceConfig(data=tmp_path / "data", isolation=Isolation.NONE, ladder=LadderConfig(enabled=False),
                         schedules=(ScheduleConfig("nightly", "0 2 * * *", **schedule),))  # type: ignore[arg-type]


def test_a_cron_tournament_fires_once_and_only_once_also_across_a_restart(tmp_path: Path) -> None:
    clock = Clock("2026-01-01T01:00:00+00:00")
    service = open_service(_config(tmp_path), clock=clock)
    scheduler = Scheduler(service)
    assert scheduler.fire_due() == []
    clock.set("2026-01-01T01:59:59+00:00")
    assert scheduler.fire_due() == []
    clock.set("2026-01-01T02:00:00+00:00")
    [run] = scheduler.fire_due()
    assert (run.name, run.due_at, run.status) == ("nightly-20260101T0200", "2026-01-01T02:00:00+00:00", "due")
    assert scheduler.fire_due() == []
    clock.set("2026-01-01T02:00:40+00:00")
    assert fire_now(service.store, "nightly") is None  # that minute is taken: an organiser cannot fire it twice
    service.store.close()

    restarted = open_service(_config(tmp_path), clock=clock)  # a restart within the same minute
    scheduler = Scheduler(restarted)
    assert scheduler.fire_due() == []
    assert [run.name for run in restarted.store.runs()] == ["nightly-20260101T0200"]
    clock.set("2026-01-02T02:00:30+00:00")
    assert [run.name for run in scheduler.fire_due()] == ["nightly-20260102T0200"]
    # Down over three firings: one run, for the latest.
    clock.set("2026-01-05T05:00:00+00:00")
    assert [run.name for run in scheduler.fire_due()] == ["nightly-20260105T0200"]
    assert scheduler.fire_due() == []
    assert len(restarted.store.runs()) == 3
    restarted.store.close()


def test_a_schedule_added_later_fires_only_after_it_was_made(tmp_path: Path) -> None:
    clock = Clock("2026-01-01T03:00:00+00:00")  # after today's 02:00
    service = open_service(_config(tmp_path), clock=clock)
    scheduler = Scheduler(service)
    assert scheduler.fire_due() == []
    assert scheduler.seconds_to_next() == 30.0  # never sleeps longer than that
    clock.set("2026-01-02T01:59:50+00:00")
    assert scheduler.seconds_to_next() == 10.0
    service.store.close()


def test_submissions_freeze_before_a_tournament_fires(tmp_path: Path) -> None:
    clock = Clock("2026-01-01T01:00:00+00:00")
    service = open_service(_config(tmp_path, freeze_minutes=30), clock=clock)
    scheduler = Scheduler(service)
    service.freeze_checks.append(scheduler.frozen_until)
    author = Author("alice", organiser=False)
    assert service.registry.submit(author, "early", sample_archive("minimal")).number == 1
    clock.set("2026-01-01T01:31:00+00:00")
    with pytest.raises(SubmissionsFrozenError, match="until a scheduled tournament has started"):
        service.registry.submit(author, "early", sample_archive("minimal"))
    clock.set("2026-01-01T02:00:00+00:00")
    assert len(scheduler.fire_due()) == 1  # fired: open again until 30 minutes before the next
    assert service.registry.submit(author, "early", sample_archive("threshold")).number == 2
    service.store.close()


def test_a_scheduled_run_plays_the_service_profile_with_its_options(tmp_path: Path) -> None:
    # The service's rules (profile, options, table) reach the run's definition, which the
    # tournament loader reads back as the same rules.
    rules = profile("georgian", {"deck": 32, "dark": True}).with_table(max_actions=50)
    config = dataclasses.replace(_config(tmp_path), rules=rules)
    clock = Clock("2026-01-01T03:30:00+00:00")
    service = open_service(config, clock=clock)
    for bot in ("a", "b"):  # of two authors: one author's bots are a team, never at one table
        version = service.store.add_version(bot, f"author-{bot}", sha256=bot * 64, kind="tar.gz", size=1,
                                            command="python3 bot.py", language=None, description=None)
        service.store.finish_check(version.id, accepted=True, report="ok", stderr="")
        service.registry.folder.bot(version.sha256).mkdir(parents=True)
    scheduler = Scheduler(service)
    clock.set("2026-01-01T03:31:00+00:00")
    run = fire_now(service.store, "nightly")
    assert run is not None
    definition = tmp_path / "cup.yaml"
    definition.write_text(scheduler.definition(run))
    assert load_config(definition).rules == rules
    service.store.close()


def test_run_now_works_whatever_the_clock_did_and_leaves_the_cron_firings_alone(tmp_path: Path) -> None:
    clock = Clock("2026-01-02T01:00:00+00:00")
    service = open_service(_config(tmp_path), clock=clock)
    scheduler = Scheduler(service)
    first = fire_now(service.store, "nightly")
    assert first is not None and first.name == "nightly-20260102T010000"
    assert fire_now(service.store, "nightly") is None  # its run is still due: not fired twice
    service.store.finish_run(first.id, status="finished")
    clock.set("2026-01-01T01:00:00+00:00")  # the clock set back a day
    back = fire_now(service.store, "nightly")
    assert back is not None and back.name == "nightly-20260101T010000"
    service.store.finish_run(back.id, status="finished")
    clock.set("2026-01-02T01:00:00+00:00")  # and forward onto the first firing's very instant
    again = fire_now(service.store, "nightly")
    assert again is not None and again.name == "nightly-20260102T010000-2" and again.due_at != first.due_at
    service.store.finish_run(again.id, status="finished")
    # The cron fires at its own due times, named by them, whatever was fired by hand meanwhile.
    clock.set("2026-01-02T02:00:30+00:00")
    assert [run.name for run in scheduler.fire_due()] == ["nightly-20260102T0200"]
    assert scheduler.fire_due() == []
    service.store.close()


def test_a_scheduled_run_keeps_its_seed_readable_by_its_owner_only(tmp_path: Path) -> None:
    config = dataclasses.replace(_config(tmp_path), rules=profile("georgian").with_table(pots_per_session=1))
    clock = Clock("2026-01-01T03:30:00+00:00")
    service = open_service(config, clock=clock)
    for bot, author in (("call", "alice"), ("threshold", "bob")):
        version = service.registry.submit(Author(author, organiser=False), bot, sample_archive(bot))
        service.store.finish_check(version.id, accepted=True, report="not checked: a cron test", stderr="")
    scheduler = Scheduler(service)
    run = fire_now(service.store, "nightly")
    assert run is not None
    trio.run(scheduler.play, run)
    assert service.store.run(run.id).status == "finished"
    folder = tmp_path / "data" / "tournaments" / run.name
    modes = {path: stat.S_IMODE(path.stat().st_mode) for path in (
        tmp_path / "data", folder / "tournament.yaml", folder / "results" / run.name,
        folder / "results" / run.name / "tournament.sqlite", tmp_path / "data" / "service.sqlite")}
    assert list(modes.values()) == [0o700, 0o600, 0o700, 0o600, 0o600], modes
    service.store.close()


def test_a_scheduled_run_seats_submitted_bots_confined_to_their_folders(tmp_path: Path) -> None:
    # A scheduled run goes through a tournament file, whose participants may name host paths (the
    # organiser's rule): the service's runs mark each submitted bot confined, so that the loader
    # and the launch hold it to its folder (a version stored before that rule, naming /proc, is refused).
    clock = Clock("2026-01-01T03:30:00+00:00")
    service = open_service(_config(tmp_path), clock=clock)
    for bot, command in (("a", "python3 bot.py"), ("b", "python3 bot.py --depth 3"), ("c", "python3 bot.py /proc")):
        version = service.store.add_version(bot, f"author-{bot}", sha256=bot * 64, kind="tar.gz", size=1,
                                            command=command, language=None, description=None)
        service.store.finish_check(version.id, accepted=True, report="ok", stderr="")
        service.registry.folder.bot(version.sha256).mkdir(parents=True)
    scheduler = Scheduler(service)
    clock.set("2026-01-01T03:31:00+00:00")
    run = fire_now(service.store, "nightly")
    assert run is not None
    definition = tmp_path / "cup.yaml"
    definition.write_text(scheduler.definition(run))
    with pytest.raises(TournamentConfigError, match="confined: '/proc' is an absolute path"):
        load_config(definition)
    # The ladder and the checks launch the same versions confined; the one naming /proc is not started
    # (it folds as crashed: its own fault, not the arena's).
    specs = {version.bot: service.registry.spec(version) for version in service.store.current_versions()}
    assert {bot: (spec.confined, spec.disabled) for bot, spec in specs.items()} == {
        "a": (True, None), "b": (True, None),
        "c": (True, "not started: its command '/proc' is an absolute path: a submitted bot's command names only "
                    "files of its own folder, relatively")}
    service.store.disqualify("c", "names /proc")
    definition.write_text(scheduler.definition(run))
    assert [(participant.name, participant.confined) for participant in load_config(definition).participants] == [
        ("a", True), ("b", True)]
    service.store.close()


def test_a_scheduled_run_never_seats_two_bots_of_one_author(tmp_path: Path) -> None:
    config = dataclasses.replace(_config(tmp_path), rules=profile("seka36").with_table(pots_per_session=1))
    service = open_service(config, clock=Clock("2026-01-01T03:30:00+00:00"))
    owners = {"call": "alice", "random": "alice", "threshold": "bob", "minimal": "carol"}
    for bot, author in owners.items():
        version = service.registry.submit(Author(author, organiser=False), bot, sample_archive(bot))
        service.store.finish_check(version.id, accepted=True, report="not checked: a cron test", stderr="")
    scheduler = Scheduler(service)
    run = fire_now(service.store, "nightly")
    assert run is not None
    trio.run(scheduler.play, run)
    run = service.store.run(run.id)
    assert run.status == "finished", run.message
    assert run.definition is not None and parse_config(run.definition).teams == (("alice", ("call", "random")),)
    results = tmp_path / "data" / "tournaments" / run.name / "results" / run.name
    histories = sorted((results / "histories").glob("*.jsonl"))
    tables = {frozenset(seat["bot"] for seat in read_history(path)[0]["seats"]) for path in histories}
    assert len(histories) == 10 and tables == {frozenset(pair) for pair in itertools.combinations(owners, 2)
                                               if set(pair) != {"call", "random"}}
    service.store.close()

