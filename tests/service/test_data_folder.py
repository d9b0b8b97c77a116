"""The data folder under faults: one `serve` at a time, private files, a store that is not one refused
untouched, histories written once, and every start-up failure in one line. Real processes, real files."""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import stat
import subprocess
from pathlib import Path

import httpx
import pytest

from arena.engine import format_amount
from arena.isolation import Isolation
from arena.replay import replay_file
from arena.service import ServiceConfig, ServiceStore
from arena.storage import StorageError

from .._tmpfs import tmpfs
from ._archives import file, sample_archive, sample_bot, tar_gz
from ._server import SEKA_ARENA, bearer, post_archive, running, token, wait_for

LADDER = """\
data: data
isolation: none
table: {pots: 1}
ladder: {placement_blocks: 1}
"""


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _serve(config: Path, *, bind: str = "127.0.0.1:0", timeout: float = 30.0) -> subprocess.CompletedProcess[str]:
    """A `serve` expected to refuse to start: its exit status and output, and how long it took."""
    return subprocess.run([str(SEKA_ARENA), "serve", str(config), "--bind", bind], capture_output=True, text=True,
                          timeout=timeout)


def _one_line(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 1, done
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
    return done.stderr.strip()


@pytest.mark.slow
def test_a_second_serve_is_refused_in_seconds_while_the_first_plays_on_and_its_results_agree(
        tmp_path: Path) -> None:
    config = tmp_path / "service.yaml"
    config.write_text(LADDER)
    authors = {"call": token(config, "alice"), "threshold": token(config, "bob")}  # a rated table: two authors
    data = tmp_path / "data"
    with running(config) as server, httpx.Client(base_url=server.url, timeout=60) as client:
        for name, author in authors.items():
            assert post_archive(client, name, sample_archive(name), author).status_code == 201
        wait_for("two ladder sessions", lambda: client.get("/api/ladder").json()["finished_sessions"] >= 2)
        second = _serve(config, timeout=60)  # refused at once (the bound is wide: a loaded machine starts slowly)
        line = _one_line(second)
        assert f"{data} is in use by another seka-arena (pid {server.process.pid}, serve)" in line
        assert "data folder" in line
        finished = client.get("/api/ladder").json()["finished_sessions"]
        wait_for("the first server playing on", lambda: client.get("/api/ladder").json()["finished_sessions"]
                 >= finished + 2)
        assert server.process.poll() is None
    # Every stored result is the one its history shows, and each session was played once.
    with sqlite3.connect(f"file:{data / 'service.sqlite'}?mode=ro", uri=True) as connection:
        rows = list(connection.execute("SELECT id, attempts, balances, history_path FROM ladder_sessions "
                                       "WHERE status = 'finished'"))
    assert len(rows) >= 4
    for session, attempts, balances, history in rows:
        assert attempts == 1, session
        state = replay_file(data / history).state
        assert [format_amount(amount) for amount in state.balances] == json.loads(balances), session
    assert sorted(path.name for path in (data / "ladder" / "histories").glob("*.jsonl")) == sorted(
        f"{session}.jsonl" for session, *_ in rows)


def test_the_data_folder_is_private_and_its_secrets_are_readable_by_their_owner_only(tmp_path: Path) -> None:
    config = tmp_path / "service.yaml"
    config.write_text("data: data\nladder: {enabled: false}\n")
    data = tmp_path / "data"
    with running(config) as server, httpx.Client(base_url=server.url, timeout=60) as client:
        assert client.get("/api/leaderboard").status_code == 200
        assert _mode(data) == 0o700
        store = data / "service.sqlite"
        assert [_mode(path) for path in (store, Path(f"{store}-wal"), Path(f"{store}-shm"))] == [0o600] * 3


def test_a_store_an_older_version_left_readable_is_made_private(tmp_path: Path) -> None:
    config = tmp_path / "service.yaml"
    config.write_text("data: data\n")
    token(config, "alice")
    store = tmp_path / "data" / "service.sqlite"
    store.chmod(0o644)
    token(config, "bob")
    assert _mode(store) == 0o600


@pytest.mark.parametrize("damage", ["empty", "garbage", "a tournament's store"])
def test_a_service_store_that_is_not_one_is_refused_and_left_untouched(tmp_path: Path, damage: str) -> None:
    config = tmp_path / "service.yaml"
    config.write_text("data: data\nladder: {enabled: false}\n")
    store = tmp_path / "data" / "service.sqlite"
    store.parent.mkdir()
    if damage == "empty":
        store.write_bytes(b"")
    elif damage == "garbage":
        store.write_bytes(os.urandom(8192))
    else:
        with sqlite3.connect(store) as connection:  # the migrations of another kind of store
            connection.execute("CREATE TABLE migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
            connection.execute("INSERT INTO migrations VALUES ('0001_initial', '2026-01-01')")
            connection.execute("CREATE TABLE sessions (id TEXT)")
        connection.close()
    before = (store.read_bytes(), store.stat().st_mtime_ns)
    for command in (["token", str(config), "--author", "alice"], ["serve", str(config), "--bind", "127.0.0.1:0"]):
        done = subprocess.run([str(SEKA_ARENA), *command], capture_output=True, text=True, timeout=60)
        line = _one_line(done)
        assert str(store) in line and "not a seka-arena service store" in line, line
    assert (store.read_bytes(), store.stat().st_mtime_ns) == before
    assert sorted(path.name for path in store.parent.iterdir()) == ["arena.lock", "service.sqlite"]


def test_ladder_histories_without_their_store_stop_the_start_and_are_kept(tmp_path: Path) -> None:
    config = tmp_path / "service.yaml"
    config.write_text(LADDER)
    histories = tmp_path / "data" / "ladder" / "histories"
    histories.mkdir(parents=True)
    (histories / "L000001-1.jsonl").write_text("an old ladder's history\n")
    line = _one_line(_serve(config))
    assert "holds ladder histories" in line and "service.sqlite holds no ladder session" in line
    assert (histories / "L000001-1.jsonl").read_text() == "an old ladder's history\n"


def test_a_busy_port_is_one_line(tmp_path: Path) -> None:
    config = tmp_path / "service.yaml"
    config.write_text("data: data\nladder: {enabled: false}\n")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        line = _one_line(_serve(config, bind=f"127.0.0.1:{port}"))
    assert line == f"seka-arena serve: cannot listen on 127.0.0.1:{port}: Address already in use"


def test_a_data_folder_that_cannot_be_made_is_one_line(tmp_path: Path) -> None:
    config = tmp_path / "service.yaml"
    config.write_text("data: data/inside\nladder: {enabled: false}\n")
    (tmp_path / "data").write_text("a file where the data folder's parent should be")
    line = _one_line(_serve(config))
    assert line.startswith(f"seka-arena serve: cannot use the folder {tmp_path / 'data' / 'inside'}")


def test_the_lock_names_its_holder_and_token_works_beside_it(tmp_path: Path) -> None:
    # The lock file names who holds the folder; `token` (while serve runs) is not refused by it.
    config = tmp_path / "service.yaml"
    config.write_text("data: data\nladder: {enabled: false}\n")
    with running(config) as server:
        holder = (tmp_path / "data" / "arena.lock").read_text().split()
        assert holder == [str(server.process.pid), "serve"]
        alice = token(config, "alice")
        with httpx.Client(base_url=server.url, timeout=60) as client:
            assert client.get("/api/bots", headers=bearer(alice)).status_code == 200


def _fill(disk: Path, name: str = "filler") -> Path:
    """A file that takes every free byte of `disk`."""
    filler = disk / name
    subprocess.run(["dd", "if=/dev/zero", f"of={filler}", "bs=64k"], capture_output=True)
    return filler


def test_a_full_disk_is_507_with_its_reason_for_uploads_and_organiser_actions_logged_once(tmp_path: Path) -> None:
    with tmpfs(tmp_path / "disk", size="8m") as disk:
        config = tmp_path / "service.yaml"
        config.write_text(f"data: {disk / 'data'}\nisolation: none\nladder: {{enabled: false}}\n"
                          "quotas: {min_free_disk_mb: 0}\n"  # the disk fills up, rather than a floor refusing
                          "tournaments:\n  - {name: cup, cron: '0 2 29 2 *'}\n")
        organiser, author = token(config, "org", organiser=True), token(config, "alice")
        with running(config) as server, httpx.Client(base_url=server.url, timeout=60) as client:
            assert post_archive(client, "call", sample_archive("call"), author).status_code == 201
            room = disk / "room"
            room.write_bytes(b"\0" * (64 << 10))
            filler = _fill(disk)
            room.unlink()  # 64 KiB left: the upload passes the free-space floor, its 1 MiB unpacking fills the disk
            big = tar_gz([file(name, data) for name, data in sample_bot("threshold").items()]
                         + [file("padding.bin", b"\0" * (1 << 20))])
            answers = [post_archive(client, "threshold", big, author) for _ in range(3)]
            rest = _fill(disk, "rest")  # what a refused unpacking gave back
            answers += [client.post("/api/freeze", json={"frozen": True}, headers=bearer(organiser)),
                        client.post("/api/bots/call/disqualify", json={"reason": "x" * 4000},
                                    headers=bearer(organiser)),
                        client.post("/api/schedules", json={"name": "weekly", "cron": "0 3 * * 1"},
                                    headers=bearer(organiser)),
                        client.post("/api/schedules/cup/run", headers=bearer(organiser))]
            for answer in answers:
                assert answer.status_code == 507, (answer.status_code, answer.text)
                assert answer.headers["content-type"] == "application/json"
                assert answer.json()["error"].startswith("insufficient storage: the service's disk is full")
            assert client.get("/api/bots/threshold/versions/latest", headers=bearer(author)).status_code == 404
            filler.unlink()  # the organisers free space: the same upload goes through
            rest.unlink()
            assert post_archive(client, "threshold", big, author).status_code == 201
            output = wait_for("the end of the episode logged", lambda: "the disk takes writes again" in server.output()
                              and server.output())
        assert output.count("disk full while") == 1 and "Traceback" not in output, output


def test_a_damaged_ladder_row_is_one_line_naming_the_row(tmp_path: Path) -> None:
    config = ServiceConfig(data=tmp_path / "data", isolation=Isolation.NONE)
    store = ServiceStore.open(config.data / "service.sqlite")
    store.plan_block([(1, 2), (2, 1)], seed=lambda block: f"seed{block}", reason="placement")
    store.close()
    with sqlite3.connect(config.data / "service.sqlite") as connection:
        connection.execute("UPDATE ladder_sessions SET status = 'finished', balances = ? WHERE id = 'L000001-2'",
                           ('["1", ',))
    connection.close()
    store = ServiceStore.open(config.data / "service.sqlite")
    with pytest.raises(StorageError) as refused:
        store.ladder_sessions()
    store.close()
    assert str(refused.value).startswith("ladder session L000001-2: a stored value is damaged (")
    assert "\n" not in str(refused.value)


@pytest.mark.slow
def test_a_damaged_ladder_row_is_logged_in_one_line_and_the_pages_are_still_served(tmp_path: Path) -> None:
    config = tmp_path / "service.yaml"
    config.write_text(LADDER)
    author = token(config, "alice")
    with running(config) as server, httpx.Client(base_url=server.url, timeout=60) as client:
        for name, owner in (("call", author), ("threshold", token(config, "bob"))):  # a rated table: two authors
            assert post_archive(client, name, sample_archive(name), owner).status_code == 201
        wait_for("two ladder sessions", lambda: client.get("/api/ladder").json()["finished_sessions"] >= 2)
        with sqlite3.connect(tmp_path / "data" / "service.sqlite") as connection:
            connection.execute("UPDATE ladder_sessions SET balances = ? WHERE id = 'L000001-1'", ('["1", ',))
        connection.close()
        for page in ("/", "/bots/call", "/bots/threshold", "/authors/alice", "/api/leaderboard", "/api/ladder",
                     "/bots/call/logs/L000001-1", "/sessions/L000001-1"):
            answer = client.get(page, headers=bearer(author))
            # The damaged row's logs page is a plain 404 (no session to show); its replay reads its history.
            assert answer.status_code == (404 if page.endswith("logs/L000001-1") else 200), (
                page, answer.status_code, answer.text[:2000])
        output = wait_for("the damaged row logged", lambda: "ladder session L000001-1: a stored value is damaged"
                          in server.output() and server.output())
        for page in ("/", "/bots/call"):
            assert client.get(page).status_code == 200
    lines = [line for line in server.output().splitlines() if "L000001-1: a stored value is damaged" in line]
    assert len(lines) == 1 and "Traceback" not in server.output(), output
