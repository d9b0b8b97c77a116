"""Tournaments on a Dask cluster (loopback only): the same standings as in-process, nothing lost with a worker."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import sqlite3
import time
from pathlib import Path

import pytest
import trio

from arena.cli import main
from arena.executor import ClusterError
from arena.tournament import Progress, TournamentRunner, load_config

from ._support import assert_results_agree, definition, standings_of

pytest.importorskip("distributed")


def _sessions(results: Path) -> dict[str, tuple[str, str, bytes]]:
    """Each stored session's balances, winners and history bytes, by id."""
    with sqlite3.connect(f"file:{results / 'tournament.sqlite'}?mode=ro", uri=True) as connection:
        rows = connection.execute("SELECT id, balances, winners, history_path FROM sessions").fetchall()
    return {session: (balances, winners, (results / path).read_bytes()) for session, balances, winners, path in rows}


def _same_results(results: Path, reference: Path) -> None:
    assert _sessions(results) == _sessions(reference)
    standings, expected = standings_of(results), standings_of(reference)  # launch times are the machine's
    assert standings["standings"] == expected["standings"] and standings["complete"]
    assert_results_agree(results)


def test_a_tournament_on_a_local_cluster_gives_the_standings_of_the_local_run(finished: Path,
                                                                                tmp_path: Path) -> None:
    assert main(["run", str(definition(tmp_path)), "--out", str(tmp_path / "out"), "--cluster", "local:2"]) == 0
    results = tmp_path / "out" / "results" / "small"
    _same_results(results, finished / "out" / "results" / "small")
    # The bots ran on the workers from their bundles; their logs came back to the results folder.
    with sqlite3.connect(results / "tournament.sqlite") as connection:
        telemetry = [json.loads(row[0]) for row in connection.execute("SELECT telemetry FROM sessions")]
    workers = {entry["worker"] for session in telemetry for entry in session.values()}
    assert all(worker.startswith("tls://127.0.0.1:") for worker in workers), workers
    assert (results / "logs" / "s0001" / "call.stderr.log").is_file()


def _children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            found += [int(child) for child in (task / "children").read_text().split()]
        except OSError:
            pass
    return found


async def test_a_worker_killed_mid_session_loses_nothing(finished: Path, tmp_path: Path) -> None:
    runner = TournamentRunner(load_config(definition(tmp_path)), out=tmp_path / "out", cluster="local:2")
    killed: list[int] = []
    warnings: list[str] = []

    async def kill_a_worker_in_a_session() -> None:
        # A worker process of this test's cluster that has bots running is in the middle of a session.
        while True:
            busy = [child for child in _children(os.getpid()) if _children(child)]
            if busy:
                os.kill(busy[0], signal.SIGKILL)
                killed.append(busy[0])
                return
            await trio.sleep(0.02)

    try:
        async with trio.open_nursery() as nursery:
            def progress(report: Progress) -> None:
                warnings.extend([report.warning] if report.warning is not None else [])
                if report.last is not None and not killed and not nursery.cancel_scope.cancel_called:
                    nursery.start_soon(kill_a_worker_in_a_session)

            assert await runner.run(on_progress=progress)
        runner.write_results()
        attempts = {record.id: {entry["attempt"] for entry in (record.telemetry or {}).values()}
                    for record in runner.store.sessions()}
    finally:
        runner.close()
    assert killed
    assert {2} in attempts.values(), attempts  # the session lost with the worker, played again from its seed
    assert any("was played again from its seed (attempt 2" in warning for warning in warnings), warnings
    _same_results(runner.directory, finished / "out" / "results" / "small")


def test_a_cluster_where_nothing_listens_is_a_clear_error_at_once(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as probe:  # a loopback port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    started = time.monotonic()
    code = main(["run", str(definition(tmp_path)), "--out", str(tmp_path / "out"),
                 "--cluster", f"tcp://127.0.0.1:{port}"])
    assert code == 1
    error = capsys.readouterr().err
    assert f"no Dask scheduler answered at tcp://127.0.0.1:{port}" in error and error.count("\n") == 1, error
    assert time.monotonic() - started < 20  # not Dask's default 30 s of retrying


def test_remote_workers_take_only_sandboxed_bots_launched_by_command(tmp_path: Path) -> None:
    path = definition(tmp_path)
    text = path.read_text()
    path.write_text(text + "isolation: none\n")
    with pytest.raises(ClusterError, match="must run with isolation `sandbox`, not `none`"):
        TournamentRunner(load_config(path), out=tmp_path / "out", cluster="tls://10.0.0.5:8786")
    path.write_text(re.sub(r"\{name: call, command: [^}]*\}", "{name: call, address: 'localhost:5001'}", text))
    with pytest.raises(ClusterError, match="'call' is given by address"):
        TournamentRunner(load_config(path), out=tmp_path / "out", cluster="tls://10.0.0.5:8786")
    assert not (tmp_path / "out").exists()  # refused before anything is stored or connected
