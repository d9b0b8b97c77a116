"""`serve` with `cluster:`: the ladder's, a challenge's and a scheduled tournament's sessions are played by the
workers of a Dask cluster (`local:N`, or one at a `tls://` address), and the service alone writes its store and
files; a worker killed in the middle of a ladder block loses nothing, charges nothing to the bots, and the ladder
goes on; and every profile's ladder plays on a cluster, each stored history verifying with its period's commitment.

Cost: one cluster (`shared_cluster`) serves the profile matrix and the `tls://` service; `serve`'s own `local:2`
only where its processes are under test (the ladder's workers, a worker killed)."""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import dask
import httpx
import pytest
import trio

from arena.engine import SessionStarted, profile
from arena.executor import ClusterCertificates
from arena.executor._local_cluster import start_local_cluster
from arena.executor._tls import make_credentials
from arena.isolation import Isolation, isolation_problem
from arena.replay import replay_file
from arena.service import Author, Ladder, LadderConfig, ServiceConfig, open_service
from arena.service._ladder import ladder_secrets, secret_period
from arena.service._store import from_iso, iso
from arena.storage import commitment_of
from arena.tournament import block_seed

from ._archives import sample_archive, slow_archive
from ._server import bearer, children, command_line, running, served, token, wait_for

# Real serves and Dask clusters: minutes in all, so CI runs them and the quick loop (`-m "not slow"`) does not.
pytestmark = pytest.mark.slow

CONFIG = """\
data: data
isolation: none
profile: %s
table: {pots: 1}
cluster: local:2
ladder: {placement_blocks: 1, random_share: 0.0, concurrency: 2}
tournaments:
  - {name: cup, cron: "0 2 29 2 *"}
"""


@dataclass(frozen=True)
class SharedCluster:
    address: str
    certificates: ClusterCertificates


@pytest.fixture(scope="module")
def shared_cluster() -> Iterator[SharedCluster]:
    """One cluster for the profile matrix, secured as `local:N`'s (loopback, mutual TLS from a throw-away CA, no
    HTTP), reached as a service reaches a cluster of other machines: `tls://` with the service's certificate."""
    # A cluster at an address plays sandboxed bots only; CI has the sandbox (as for tests/hostile): never skipped there.
    if (problem := isolation_problem(Isolation.SANDBOX)) is not None and not os.environ.get("CI"):
        pytest.skip(f"a cluster at an address needs isolation sandbox: {problem}")
    credentials = make_credentials()
    try:
        with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
            cluster = start_local_cluster(2, 2, credentials)
        try:
            yield SharedCluster(str(cluster.scheduler_address), ClusterCertificates(
                credentials.ca_file, credentials.cert("client"), credentials.key("client")))
        finally:
            cluster.close()
    finally:
        credentials.remove()


def _ladder_process(serve: int) -> int:
    return wait_for("the ladder's process", lambda: next(
        (pid for pid in children(serve) if "arena.service._ladder_worker" in command_line(pid)), None))


def _workers(ladder: int) -> list[int]:
    """The Dask worker processes of the ladder's local cluster (its nannies spawn them)."""
    return [pid for pid in children(ladder) if "multiprocessing.spawn" in command_line(pid)]


def _own_group(pid: int) -> bool:
    """Whether `pid` leads a process group of its own (a started worker: `QuietWorker`), or is gone."""
    try:
        return os.getpgid(pid) == pid
    except ProcessLookupError:
        return True


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


def test_a_challenge_and_a_scheduled_tournament_play_on_a_tls_cluster(tmp_path: Path,
                                                                      shared_cluster: SharedCluster) -> None:
    # A cluster at an address (the shared one), reached with the service's certificate; a stake profile.
    data = tmp_path / "data"
    files = shared_cluster.certificates
    text = CONFIG.replace("isolation: none", "isolation: sandbox").replace(
        "cluster: local:2", f"cluster: {{address: '{shared_cluster.address}', ca: {files.ca}, cert: {files.cert}, "
                            f"key: {files.key}}}")
    config = served(tmp_path, text, "svara32", {name: sample_archive(name) for name in ("call", "threshold")})
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


def test_the_ladder_plays_on_serves_own_cluster_and_a_worker_killed_in_a_block_loses_nothing(tmp_path: Path) -> None:
    # Georgian here; every other profile plays its ladder on a cluster below (the profile matrix).
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
        # The bots run under the cluster's worker processes, never beside the ladder (as without a cluster).
        assert len(_workers(ladder)) == 2 and all("multiprocessing" in command_line(pid) for pid in children(ladder))
        os.kill(busy[0], signal.SIGKILL)
        at_kill = _finished(database)
        wait_for("the ladder going on", lambda: _finished(database) >= at_kill + 2, output=server.output)
        assert busy[0] not in _workers(ladder) and len(_workers(ladder)) == 2  # its nanny started another
        # ... which leaves serve's process group once started (until then a Ctrl-C kills it with a traceback).
        wait_for("the new worker started", lambda: all(_own_group(pid) for pid in _workers(ladder)),
                 output=server.output)
        # Ctrl-C in serve's terminal reaches its whole group: the sessions in flight on the workers finish.
        in_flight = wait_for("a session in flight", lambda: {row["id"] for row in _ladder_rows(database)
                                                             if row["status"] == "running"}, every=0.05)
        os.killpg(server.process.pid, signal.SIGINT)
        assert server.process.wait(timeout=60) == 0, server.output()
    output = server.output()
    assert "sessions played on a local Dask cluster of 2 worker processes" in output, output
    assert "attempt 1 lost" in output and "played again" in output and "Traceback" not in output, output
    rows = {row["id"]: row for row in _consistent(data)}
    assert all(rows[session]["status"] == "finished" for session in in_flight), (in_flight, output)
    # The workers sent the bots' logs back; the service wrote them where the ladder keeps them.
    finished = [row for row in rows if rows[row]["status"] == "finished"]
    assert all(list((data / "ladder" / "logs" / row).glob("*.log")) for row in finished)


# --- every profile on one shared cluster --------------------------------------------------------------------

_PROFILES = [("georgian", {"dark": True, "tie": "split", "deck": 32}, 2),
             ("classic", {"open": "multiway", "dark": True}, 3), ("seka36", {}, 2), ("svara32", {}, 2),
             ("seka21", {}, 2)]
"""Every profile, with its seats at a ladder table (georgian with options; plain georgian plays on `serve`'s own
cluster above; classic at three seats, where `open: multiway` applies)."""


@pytest.mark.parametrize(("rules_profile", "options", "seats"), _PROFILES, ids=[name for name, _, _ in _PROFILES])
async def test_every_profile_plays_its_ladder_on_the_cluster_and_every_history_verifies(
        tmp_path: Path, shared_cluster: SharedCluster, rules_profile: str, options: dict[str, Any], seats: int) -> None:
    # The ladder's process's own code (open_service, Ladder.run: SessionJob -> a Dask worker -> the outcome back
    # to the single writer), in this process, on the shared cluster; real bots, sandboxed on the workers.
    config = ServiceConfig(data=tmp_path / "data", isolation=Isolation.SANDBOX,
                           rules=profile(rules_profile, options).with_table(pots_per_session=2),
                           ladder=LadderConfig(table_size=seats, placement_blocks=1, random_share=0.0),
                           cluster=shared_cluster.address, cluster_certificates=shared_cluster.certificates)
    service = open_service(config)
    for name in ("call", "threshold", "random")[:seats]:
        version = service.registry.submit(Author(f"author-{name}", organiser=False), name, sample_archive(name))
        service.store.finish_check(version.id, accepted=True, report="not checked: a cluster test", stderr="")
    ladder = Ladder(service, rng=random.Random(1))
    try:
        with trio.fail_after(120):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(ladder.run)
                while sum(session.status == "finished" for session in service.store.ladder_sessions()) < 2:
                    await trio.sleep(0.2)
                service.stop()  # the sessions in flight are stored, then the ladder closes its cluster client
        sessions = [session for session in service.store.ladder_sessions() if session.status == "finished"]
        published = {secret.start: secret for secret in ladder_secrets(service.store, config.ladder.secret_days)}
        secrets = service.store.settings_under("ladder_secret:")
        tables = {session.block: service.store.ladder_sessions(block=session.block)[0].seating for session in sessions}
        blocks = {session.block for session in service.store.ladder_sessions()}
    finally:
        service.store.close()
    assert len(sessions) >= 2
    # With no `ladder.concurrency` (left out above), a block in flight per thread of the cluster's workers
    # (2 x 2), not one.
    assert len(blocks) >= 4, blocks
    for session in sessions:
        assert session.faults == (0,) * seats and session.attempts == 1, session
        # The period's secret hashes to the commitment published before it dealt, and derives the session's seed.
        period = iso(secret_period(config.ladder.secret_days, from_iso(session.created_at))[0])
        secret, shown = secrets[f"ladder_secret:{period}"], published[period]
        assert commitment_of(secret, None, shown.value_function) == shown.commitment
        assert session.seed == block_seed(secret, [str(seat) for seat in tables[session.block]], session.block)
        # The history the worker sent back, written by the service, deals from that seed and replays to the
        # stored balances.
        assert session.history_path is not None
        replayed = replay_file(config.data / session.history_path)
        start = replayed.state.events[0]
        assert replayed.seeded and isinstance(start, SessionStarted) and start.seed == session.seed
        assert replayed.state.rules == config.rules and tuple(replayed.state.balances) == session.balances
        assert list((config.data / "ladder" / "logs" / session.id).glob("*.log"))
