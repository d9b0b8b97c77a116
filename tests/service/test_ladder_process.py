"""`serve` plays the ladder in a process of its own (the web's requests never wait on its steps, nor it on
theirs), whose results reach the leaderboard, and which ends with `serve`, bots and all, even when `serve`
is killed with SIGKILL (a ladder outliving its serve would play beside the next one)."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest

from arena.engine import GEORGIAN
from arena.isolation import Isolation
from arena.service import Author, ServiceConfig, open_service
from arena.service._ladder_process import LADDER_IMPORT, ladder_command

from .._launch import path_without_prlimit
from ._archives import sample_archive
from ._server import bearer, children, command_line, post_archive, running, token, wait_for

CONFIG = "data: data\nisolation: none\ntable: {pots: 1}\nladder: {placement_blocks: 1, random_share: 0.0}\n"


def test_the_processes_the_ladders_process_spawns_do_not_import_the_service_again() -> None:
    # As a local Dask cluster's nannies start its workers (multiprocessing's spawn), from a process started
    # as the ladder's is: under `python -m arena.service._ladder_worker` each imported the web stack again.
    command = ladder_command(Path("service.yaml"))
    assert command[1:3] == ["-c", f"{LADDER_IMPORT}; main(sys.argv[1])"]
    spawn = ("import multiprocessing; multiprocessing.get_context('spawn').Process(target=exec, args=("
             "\"import sys; print('arena.service' in sys.modules, 'arena.executor' in sys.modules)\",)).start()")
    done = subprocess.run([command[0], "-c", f"{LADDER_IMPORT}; {spawn}"], capture_output=True, text=True,
                          timeout=120, check=True)
    assert done.stdout.split() == ["False", "False"], done.stdout + done.stderr


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.slow
def test_the_ladder_plays_in_its_own_process_which_ends_with_serve_even_a_killed_one(tmp_path: Path) -> None:
    service = open_service(ServiceConfig(data=tmp_path / "data", isolation=Isolation.NONE, rules=GEORGIAN))
    # Accepted beforehand (the check is not under test); alice's two bots never meet at a rated table.
    for name, author in (("call", "alice"), ("random", "alice"), ("threshold", "bob")):
        version = service.registry.submit(Author(author, organiser=False), name, sample_archive(name))
        service.store.finish_check(version.id, accepted=True, report="not checked: a ladder test", stderr="")
    service.store.close()
    config = tmp_path / "service.yaml"
    config.write_text(CONFIG)
    with running(config, stop=signal.SIGKILL) as server, httpx.Client(base_url=server.url, timeout=60) as client:
        ladders = [pid for pid in children(server.process.pid) if "arena.service._ladder_worker" in command_line(pid)]
        assert len(ladders) == 1, [command_line(pid) for pid in children(server.process.pid)]
        [ladder] = ladders
        wait_for("sessions played", lambda: client.get("/api/ladder").json()["finished_sessions"] >= 2)
        board = wait_for("the ladder's results on the board", lambda: [
            row for row in client.get("/api/leaderboard").json() if row["rating"] is not None and row["sessions"]])
        assert {row["name"] for row in board} <= {"call", "random", "threshold"} and "threshold" in {
            row["name"] for row in board}
        bots = wait_for("a session's bots", lambda: children(ladder))  # the bots are the ladder process's
        # Its progress reaches serve's output: one line after the first session, none per session after.
        wait_for("sessions played", lambda: client.get("/api/ladder").json()["finished_sessions"] >= 4)
        progress = [line for line in server.output().splitlines() if line.startswith("seka-arena serve: ladder: ")]
        assert len(progress) == 1 and " sessions in the last hour, " in progress[0], server.output()
        assert "sessions finished in the last hour; the last finished" in client.get("/").text
    # serve was SIGKILLed: the end of its pipe stops the ladder, which stops its bots.
    wait_for("the ladder's process to end", lambda: not _alive(ladder), timeout=60)
    wait_for("its bots to end", lambda: not any(_alive(bot) for bot in bots), timeout=30)
    with sqlite3.connect(f"file:{tmp_path / 'data' / 'service.sqlite'}?mode=ro", uri=True) as connection:
        authors = dict(connection.execute("SELECT v.id, b.author FROM versions v JOIN bots b ON b.name = v.bot"))
        seatings = [json.loads(seating) for (seating,) in connection.execute("SELECT seating FROM ladder_sessions")]
    assert len(seatings) >= 2 and all({authors[seat] for seat in seating} == {"alice", "bob"} for seating in seatings)


@pytest.mark.slow
def test_a_ladder_whose_every_bot_fails_to_start_for_the_arenas_reason_pauses_and_says_why_once(
        tmp_path: Path) -> None:
    # The launch chain cannot run: prlimit is not on the PATH the second serve is given (its setpriv
    # and shell are), so every bot fails before its own command runs. The arena's fault, not the bots'.
    config = tmp_path / "service.yaml"
    config.write_text("data: data\nisolation: none\nlimits: {cpu_seconds: 60}\ntable: {pots: 1}\n"
                      "ladder: {placement_blocks: 1, retry_seconds: 1}\n")
    organiser = token(config, "org", organiser=True)
    with running(config) as server, httpx.Client(base_url=server.url, timeout=60) as client:
        for name, author in (("call", "alice"), ("threshold", "bob")):  # a rated table seats two authors
            assert post_archive(client, name, sample_archive(name), token(config, author)).status_code == 201
        wait_for("two ladder sessions", lambda: client.get("/api/ladder").json()["finished_sessions"] >= 2)
    programs = path_without_prlimit(tmp_path)
    with running(config, env={**os.environ, "PATH": programs}) as server, \
            httpx.Client(base_url=server.url, timeout=60) as client:
        finished = client.get("/api/ladder").json()["finished_sessions"]

        def paused() -> list[dict[str, Any]]:
            blocks = client.get("/api/ladder", headers=bearer(organiser)).json()["blocks"]
            return [block for block in blocks if block["status"] == "the ladder is paused" and block["failures"] >= 3]

        block = wait_for("the ladder paused, tried three times", paused, output=server.output)[0]
        assert "failed to start for the same reason, the arena's own, not theirs: setpriv: failed to execute " \
               "prlimit: No such file or directory" in block["error"], block
        assert [shown["status"] for shown in client.get("/api/ladder").json()["blocks"]] == ["the ladder is paused"]
        assert client.get("/api/ladder").json()["blocks"][0]["error"] is None  # the arena's internals: organisers'
        assert client.get("/api/ladder").json()["finished_sessions"] == finished  # nothing stored, nothing charged
    output = server.output()
    assert output.count("the ladder is paused:") == 1 and "Traceback" not in output, output
    with running(config) as server, httpx.Client(base_url=server.url, timeout=60) as client:  # the cause fixed
        wait_for("the ladder playing again", lambda: client.get("/api/ladder").json()["finished_sessions"] > finished)
        wait_for("the pause cleared", lambda: not client.get("/api/ladder").json()["blocks"])
