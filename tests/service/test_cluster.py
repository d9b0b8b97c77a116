"""`serve` with `cluster: local:2`: the ladder's, a challenge's and a scheduled tournament's sessions are played
by the workers of a Dask cluster, and the service alone writes its store and files; a worker killed in the middle
of a ladder block loses nothing, charges nothing to the bots, and the ladder goes on."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
from pathlib import Path
from typing import Any

import httpx
import pytest

from ._archives import sample_archive, slow_archive
from ._server import bearer, children, command_line, running, served, token, wait_for

CONFIG = """\
data: data
isolation: none
profile: %s
table: {pots: 1}
cluster: local:2
ladder: {placement_blocks: 1, random_share: 0.0, concurrency: 2}
tournaments:
  - {name: cup, cron: "0 2 * * *"}
"""


def _ladder_process(serve: int) -> int:
    return wait_for("the ladder's process", lambda: next(
        (pid for pid in children(serve) if "arena.service._ladder_worker" in command_line(pid)), None))


def _workers(ladder: int) -> list[int]:
    """The Dask worker processes of the ladder's local cluster (its nannies spawn them)."""
    return [pid for pid in children(ladder) if "multiprocessing.spawn" in command_line(pid)]


def _ladder_rows(database: Path) -> list[dict[str, Any]]:
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=5) as connection:
        connection.row_factory = sqlite3.Row
        return [dict(row) for row in connection.execute("SELECT * FROM ladder_sessions")]


def _finished(database: Path) -> int:
    try:
        return sum(row["status"] == "finished" for row in _ladder_rows(database))
    except sqlite3.Error:  # not created yet
        return 0


def _consistent(data: Path) -> list[dict[str, Any]]:
    """The ladder's sessions, each finished with its history and no fault (these bots never fault), or
    planned with no history: nothing half-written."""
    rows = _ladder_rows(data / "service.sqlite")
    for row in rows:
        history = data / "ladder" / "histories" / f"{row['id']}.jsonl"
        if row["status"] == "finished":
            assert json.loads(row["faults"]) == [0, 0] and row["attempts"] == 1, row
            assert history.is_file() and row["history_path"] == f"ladder/histories/{row['id']}.jsonl", row
        else:
            assert row["status"] == "planned" and not history.exists(), row
    return rows


@pytest.mark.parametrize("rules_profile", ["georgian", "seka36"])
def test_the_ladder_plays_on_the_services_cluster_and_the_service_alone_writes(tmp_path: Path,
                                                                              rules_profile: str) -> None:
    data = tmp_path / "data"
    config = served(tmp_path, CONFIG, rules_profile, {name: sample_archive(name) for name in ("call", "threshold")})
    with running(config) as server, httpx.Client(base_url=server.url, timeout=60) as client:
        ladder = _ladder_process(server.process.pid)
        wait_for("sessions played", lambda: client.get("/api/ladder").json()["finished_sessions"] >= 4,
                 output=server.output)
        # The bots ran under the cluster's worker processes, never beside the ladder (as without a cluster).
        assert len(_workers(ladder)) == 2 and all("multiprocessing" in command_line(pid) for pid in children(ladder))
    output = server.output()
    assert "sessions played on a local Dask cluster of 2 worker processes" in output, output
    assert server.process.returncode == 0 and "Traceback" not in output, output
    rows = [row for row in _consistent(data) if row["status"] == "finished"]
    assert len(rows) >= 4
    # The workers sent the bots' logs back; the service wrote them where the ladder keeps them.
    assert all(sorted(path.name for path in (data / "ladder" / "logs" / row["id"]).iterdir()) for row in rows)


def test_a_challenge_and_a_scheduled_tournament_play_on_the_cluster(tmp_path: Path) -> None:
    data = tmp_path / "data"
    config = served(tmp_path, CONFIG, "georgian", {name: sample_archive(name) for name in ("call", "threshold")})
    organiser = token(config, "org", organiser=True)
    alice = token(config, "author-call")
    with running(config) as server, httpx.Client(base_url=server.url, timeout=60) as client:
        made = client.post("/api/challenges", json={"bot": "call", "opponents": ["threshold"], "blocks": 1},
                           headers=bearer(alice))
        assert made.status_code == 201, made.text
        fired = client.post("/api/schedules/cup/run", headers=bearer(organiser))
        assert fired.status_code == 201, fired.text
        name = fired.json()["name"]
        challenge = wait_for("the challenge played", lambda: (answer := client.get(
            made.headers["Location"], headers=bearer(alice)).json())["status"] == "finished" and answer,
            output=server.output)
        wait_for("the scheduled tournament played", lambda: client.get("/api/tournaments").json()["runs"][0]["status"]
                 == "finished", output=server.output)
    assert server.process.returncode == 0 and "Traceback" not in server.output(), server.output()
    assert challenge["sessions"] and all(session["balances"] is not None for session in challenge["sessions"])
    for session in challenge["sessions"]:  # its history and the bots' logs, written by the service
        assert (data / "challenges" / "histories" / f"{session['id']}.jsonl").is_file()
        assert list((data / "challenges" / "logs" / session["id"]).glob("*.log"))
    # The tournament's sessions were played by the cluster's workers (each session says where).
    results = data / "tournaments" / name / "results" / name
    with sqlite3.connect(f"file:{results / 'tournament.sqlite'}?mode=ro", uri=True) as connection:
        telemetry = [json.loads(text) for (text,) in connection.execute("SELECT telemetry FROM sessions")]
    workers = {entry["worker"] for seats in telemetry for entry in seats.values()}
    assert telemetry and all(worker.startswith("tls://127.0.0.1:") for worker in workers), workers


def test_a_worker_killed_in_a_ladder_block_loses_nothing_and_the_ladder_goes_on(tmp_path: Path) -> None:
    data = tmp_path / "data"
    config = served(tmp_path, CONFIG.replace("{pots: 1}", "{pots: 2}"), "georgian",
                    {"call": sample_archive("call"), "slow": slow_archive(0.05)})
    database = data / "service.sqlite"
    with running(config, group=True) as server:
        ladder = _ladder_process(server.process.pid)
        wait_for("a session stored", lambda: _finished(database) >= 1, output=server.output)
        # A worker with bots running is in the middle of a ladder session.
        busy = wait_for("a worker in a session", lambda: [pid for pid in _workers(ladder) if children(pid)],
                        every=0.02, output=server.output)
        os.kill(busy[0], signal.SIGKILL)
        at_kill = _finished(database)
        wait_for("the ladder going on", lambda: _finished(database) >= at_kill + 2, output=server.output)
        assert busy[0] not in _workers(ladder) and len(_workers(ladder)) == 2  # its nanny started another
        # Ctrl-C in serve's terminal reaches its whole group: the sessions in flight on the workers finish.
        in_flight = wait_for("a session in flight", lambda: {row["id"] for row in _ladder_rows(database)
                                                             if row["status"] == "running"}, every=0.05)
        os.killpg(server.process.pid, signal.SIGINT)
        assert server.process.wait(timeout=60) == 0, server.output()
    output = server.output()
    assert "attempt 1 lost" in output and "played again" in output, output
    rows = {row["id"]: row for row in _consistent(data)}
    assert all(rows[session]["status"] == "finished" for session in in_flight), (in_flight, output)
