"""A first SIGINT or SIGTERM to a real `seka-arena run`: the sessions in flight finish, the standings so far are
written, exit 0; a second one stops at once. Resuming gives the results of a run never stopped."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.cli import main

from ._support import ROOT, SECRET, standings_of, started_run

TOURNAMENT = """\
name: graceful
participants:
  - {name: call, command: python3 sample_bots/call_bot.py, cwd: %(root)s}
  - {name: threshold, command: python3 sample_bots/threshold_bot.py, cwd: %(root)s}
  - {name: strong, command: python3 sample_bots/strong_bot.py, cwd: %(root)s}
profile: %(profile)s
table: {pots: 4}
table_size: 2
sessions_per_table: 2
duplicate: true
seed: %(secret)s
concurrency: 2
"""
_SESSIONS = 12


def _statuses(database: Path) -> dict[str, tuple[str, int]]:
    try:  # read-only: connecting must not create an (empty) file before the arena creates its store
        with sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=5) as connection:
            return {row[0]: (row[1], row[2]) for row in connection.execute("SELECT id, status, attempts FROM sessions")}
    except sqlite3.Error:
        return {}


def _wait_for(condition: object, what: str, *, seconds: float = 90) -> None:
    deadline = time.monotonic() + seconds
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def _finished(database: Path) -> set[str]:
    return {session for session, (status, _) in _statuses(database).items() if status == "finished"}


def _running(database: Path) -> set[str]:
    return {session for session, (status, _) in _statuses(database).items() if status == "running"}


@pytest.mark.slow
@pytest.mark.parametrize(("stop", "profile", "cluster"), [
    (signal.SIGINT, "georgian", None),
    (signal.SIGTERM, "seka36", None),
    (signal.SIGTERM, "georgian", "local:2"),
])
def test_a_first_signal_finishes_the_sessions_in_flight_writes_the_standings_and_resuming_completes_the_run(
        tmp_path: Path, stop: signal.Signals, profile: str, cluster: str | None) -> None:
    if cluster is not None:
        pytest.importorskip("distributed")
    definition = tmp_path / "graceful.yaml"
    definition.write_text(TOURNAMENT % {"root": ROOT, "profile": profile, "secret": SECRET})
    on = ["--cluster", cluster] if cluster is not None else []
    assert main(["run", str(definition), "--out", str(tmp_path / "straight"), "--no-report"]) == 0

    results = tmp_path / "stopped" / "results" / "graceful"
    database = results / "tournament.sqlite"
    output = tmp_path / "output.txt"
    with started_run(definition, tmp_path / "stopped", output, *on) as arena:
        _wait_for(lambda: len(_finished(database)) >= 2 and _running(database), "sessions in flight")
        in_flight = _running(database)
        arena.send_signal(stop)
        status = arena.wait(timeout=120)
    text = output.read_text()
    assert status == 0, text
    assert "stopping: the sessions in flight finish" in text
    assert text.rstrip().endswith("stopped: run the same command to resume"), text
    rows = _statuses(database)
    finished = _finished(database)
    assert in_flight <= finished, "a session in flight was abandoned"
    assert not _running(database)
    assert len(finished) < _SESSIONS, "the run was not stopped mid-tournament"
    standings = json.loads((results / "standings.json").read_text())
    assert not standings["complete"] and standings["sessions"] == len(finished) and standings["secret"] is None
    assert (results / "crosstable.csv").is_file()

    resumed = subprocess.run([sys.executable, "-m", "arena", "run", str(definition), "--out", str(tmp_path / "stopped"),
                              "--no-report", *on], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    straight = tmp_path / "straight" / "results" / "graceful"
    assert standings_of(results) == standings_of(straight)
    for history in (straight / "histories").glob("*.jsonl"):
        assert (results / "histories" / history.name).read_bytes() == history.read_bytes()
    attempts = {session: attempt for session, (_, attempt) in _statuses(database).items()}
    assert all(attempts[session] == 1 for session in rows if rows[session][0] == "finished"), attempts
    assert all(attempt == 1 for attempt in attempts.values()), "a session was played twice"


SLOW = """\
name: slow
participants:
  - {name: call, command: python3 sample_bots/call_bot.py, cwd: %(root)s}
  - {name: slow, command: python3 tests/match/bots/faulty_bot.py --mode slow --seconds 0.3, cwd: %(root)s}
table: {pots: 8}
sessions_per_table: 2
seed: %(secret)s
concurrency: 1
"""


def test_a_second_signal_stops_at_once_and_leaves_the_session_in_flight_to_the_next_run(tmp_path: Path) -> None:
    definition = tmp_path / "slow.yaml"
    definition.write_text(SLOW % {"root": ROOT, "secret": SECRET})
    database = tmp_path / "results" / "slow" / "tournament.sqlite"
    output = tmp_path / "output.txt"
    with started_run(definition, tmp_path, output) as arena:
        _wait_for(lambda: _running(database), "a session in flight")
        arena.send_signal(signal.SIGINT)
        _wait_for(lambda: "stopping" in output.read_text() or arena.poll() is not None, "the first signal's answer")
        assert "stopping: the sessions in flight finish" in output.read_text()
        arena.send_signal(signal.SIGTERM)
        status = arena.wait(timeout=60)
    text = output.read_text()
    assert status == 130, text
    assert "interrupted (run the same command again to resume)" in text
    assert _running(database), "the session in flight was played to its end"
    assert "stopped: run the same command" not in text
