"""Session jobs and outcomes: picklable to a worker and back, small, and stored once however often played."""

from __future__ import annotations

import dataclasses
import pickle
from pathlib import Path

import trio

from arena.engine import GEORGIAN, profile
from arena.executor import JobOutcome, LocalExecutor, SessionJob
from arena.isolation import Isolation
from arena.storage import SessionStatus
from arena.tournament import TournamentRunner, load_config
from arena.transport import BotSpec, TimeLimit

from ..tournament._support import definition


def test_a_job_travels_as_its_profile_name_and_table_not_the_hand_table() -> None:
    rules = GEORGIAN.with_table(pots_per_session=3, max_bet=12)
    job = SessionJob(session_id="s0001", seed="ab" * 32, public_id="0123456789abcdef", rules=rules,
                     bots=(BotSpec(name="a", command=("python3", "a.py"), cwd="/bots", env={"X": "1"},
                                   limit=TimeLimit(decision_ms=200), isolation=Isolation.SANDBOX),
                           BotSpec(name="b", address="localhost:5001")),
                     bundles=("f" * 64, None), attempt=2)
    data = pickle.dumps(job)
    assert len(pickle.dumps(GEORGIAN)) > 100_000 > 10 * len(data)  # the hand-value table stays home
    assert pickle.loads(data) == job
    short = dataclasses.replace(job, rules=profile("georgian", {"deck": 32}).with_table(pots_per_session=3))
    assert len(pickle.dumps(short)) < 10_000 and pickle.loads(pickle.dumps(short)) == short  # options travel too


def test_a_session_played_twice_is_stored_once_with_the_first_history(tmp_path: Path) -> None:
    runner = TournamentRunner(load_config(definition(tmp_path)), out=tmp_path / "out")
    try:
        record = runner.store.unfinished()[0]  # the plan's last session, stored first
        executor = runner.executor
        assert isinstance(executor, LocalExecutor)
        first = trio.run(executor.play, runner.job(record))
        second = pickle.loads(pickle.dumps(dataclasses.replace(first, history=b"another history\n", attempt=2,
                                                               worker="tcp://127.0.0.1:1")))
        assert isinstance(second, JobOutcome)
        assert runner.record(record, first) is True
        assert runner.record(record, second) is False
        stored = runner.store.session(record.id)
        assert stored.status is SessionStatus.FINISHED
        history = runner.directory / "histories" / f"{record.id}.jsonl"
        assert history.read_bytes() == first.history and b"another" not in history.read_bytes()
        assert {entry["worker"] for entry in (stored.telemetry or {}).values()} == {"local"}
    finally:
        runner.close()


def test_a_job_of_another_profile_travels_with_its_options() -> None:
    rules = profile("georgian", {"deck": 32, "tie": "split"}).with_table(max_actions=9)
    job = SessionJob(session_id="s0001", seed="ab" * 32, public_id="0123456789abcdef", rules=rules,
                     bots=(BotSpec(name="a", address="localhost:5001"), BotSpec(name="b", address="localhost:5002")))
    again = pickle.loads(pickle.dumps(job))
    assert again == job and len(again.rules.deck) == 32 and again.rules.option_values["tie"] == "split"
