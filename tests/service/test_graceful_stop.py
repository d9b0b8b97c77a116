"""A first SIGTERM or SIGINT to a real `seka-arena serve`: the ladder's sessions and the scheduled tournaments'
in flight are played to their end and stored, nothing new starts, and serve exits 0; a second one stops at once.
The next serve resumes what was left."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
from pathlib import Path

import httpx
import pytest

from ._archives import sample_archive, slow_archive
from ._server import CUP, SEKA_ARENA, bearer, children, command_line, running, served, token, wait_for


def _rows(database: Path, table: str) -> dict[str, tuple[str, int]]:
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=5) as connection:
        return {row[0]: (row[1], row[2]) for row in connection.execute(f"SELECT id, status, attempts FROM {table}")}


def _with(database: Path, table: str, status: str) -> set[str]:
    try:
        return {session for session, (now, _) in _rows(database, table).items() if now == status}
    except sqlite3.Error:  # not created yet
        return set()


def _stop(server_process: subprocess.Popen[str], number: signal.Signals, *, group: bool = False) -> int:
    if group:  # a terminal's Ctrl-C: to serve and every process it started in its group
        os.killpg(server_process.pid, number)
    else:
        server_process.send_signal(number)
    return server_process.wait(timeout=120)


LADDER = ("data: data\nisolation: none\nprofile: %s\ntable: {pots: 3}\n"
          "ladder: {placement_blocks: 1, random_share: 0.0}\n")


@pytest.mark.parametrize(("rules_profile", "number"), [("georgian", signal.SIGTERM), ("seka36", signal.SIGINT)])
def test_a_first_signal_lets_the_ladders_sessions_in_flight_finish_and_serve_exits_0(
        tmp_path: Path, rules_profile: str, number: signal.Signals) -> None:
    config = served(tmp_path, LADDER, rules_profile, {"call": sample_archive("call"), "slow": slow_archive(0.05)})
    database = tmp_path / "data" / "service.sqlite"
    ctrl_c = number == signal.SIGINT
    with running(config, group=ctrl_c) as server:
        wait_for("a ladder session in flight after one stored", lambda: _with(database, "ladder_sessions", "finished")
                 and _with(database, "ladder_sessions", "running"), output=server.output)
        # The leaderboard's worker process is started (it fits what is stored) before a Ctrl-C reaches it too.
        wait_for("the leaderboard's worker", lambda: any("arena.service._board_worker" in command_line(pid)
                                                         for pid in children(server.process.pid)),
                 output=server.output)
        in_flight = _with(database, "ladder_sessions", "running")
        status = _stop(server.process, number, group=ctrl_c)
    output = server.output()
    assert status == 0, output
    assert f"{number.name}: stopping: the sessions in flight finish" in output
    assert "Traceback" not in output and "KeyboardInterrupt" not in output, output
    rows = _rows(database, "ladder_sessions")
    assert in_flight <= _with(database, "ladder_sessions", "finished"), rows
    assert not _with(database, "ladder_sessions", "running"), rows
    assert all(attempts == 1 for status, attempts in rows.values() if status == "finished"), rows


def test_a_second_signal_stops_serve_at_once_and_the_next_serve_plays_the_session_again(tmp_path: Path) -> None:
    config = served(tmp_path, LADDER, "georgian", {"call": sample_archive("call"), "slow": slow_archive(0.1)})
    database = tmp_path / "data" / "service.sqlite"
    with running(config) as server:
        wait_for("a ladder session in flight", lambda: _with(database, "ladder_sessions", "running"),
                 output=server.output)
        server.process.send_signal(signal.SIGTERM)
        status = _stop(server.process, signal.SIGINT)  # two of one kind may arrive as one
    output = server.output()
    assert status == 0, output
    assert ": stopping: the sessions in flight" in output and ": stopping at once" in output, output
    [abandoned] = _with(database, "ladder_sessions", "running")
    with running(config) as server:
        wait_for("the abandoned session played again", lambda: abandoned in _with(database, "ladder_sessions",
                                                                                  "finished"), output=server.output)
    assert _rows(database, "ladder_sessions")[abandoned][1] == 2


@pytest.mark.slow
@pytest.mark.parametrize("rules_profile", ["georgian", "seka36"])
def test_a_first_signal_lets_a_scheduled_tournaments_sessions_in_flight_finish_and_the_next_serve_completes_it(
        tmp_path: Path, rules_profile: str) -> None:
    config = served(tmp_path, CUP, rules_profile,
                    {name: sample_archive(name) for name in ("call", "threshold")} | {"slow": slow_archive(0.05)})
    organiser = token(config, "org", organiser=True)
    with running(config) as server, httpx.Client(base_url=server.url, timeout=60) as client:
        fired = client.post("/api/schedules/cup/run", headers=bearer(organiser))
        assert fired.status_code == 201, fired.text
        name = fired.json()["name"]
        results = tmp_path / "data" / "tournaments" / name / "results" / name
        database = results / "tournament.sqlite"
        wait_for("a session in flight after one stored", lambda: _with(database, "sessions", "finished")
                 and _with(database, "sessions", "running"), output=server.output)
        in_flight = _with(database, "sessions", "running")
        status = _stop(server.process, signal.SIGTERM)
    output = server.output()
    assert status == 0 and "Traceback" not in output, output
    rows = _rows(database, "sessions")
    finished = _with(database, "sessions", "finished")
    assert in_flight <= finished and not _with(database, "sessions", "running"), rows
    assert len(finished) < len(rows), "the tournament was not stopped midway"
    standings = json.loads((results / "standings.json").read_text())
    assert not standings["complete"] and standings["sessions"] == len(finished) and standings["secret"] is None

    with running(config) as server, httpx.Client(base_url=server.url, timeout=60) as client:
        wait_for("the resumed tournament", lambda: client.get("/api/tournaments").json()["runs"][0]["status"]
                 == "finished", output=server.output)
    rows = _rows(database, "sessions")
    assert all(status == "finished" and attempts == 1 for status, attempts in rows.values()), rows

    # The same tournament, never stopped, from the definition the service stored for the run.
    with sqlite3.connect(tmp_path / "data" / "service.sqlite") as connection:
        (definition,) = connection.execute("SELECT definition FROM scheduled_runs WHERE name = ?", (name,)).fetchone()
    again = tmp_path / "again"
    again.mkdir()
    (again / "cup.yaml").write_text(definition)
    subprocess.run([str(SEKA_ARENA), "run", str(again / "cup.yaml"), "--out", str(again), "--no-report"],
                   check=True, capture_output=True, text=True, timeout=600)
    straight = again / "results" / name
    for history in (straight / "histories").glob("*.jsonl"):
        assert (results / "histories" / history.name).read_bytes() == history.read_bytes()
