"""arena/storage/_store.py: the tournament record, the plan, results with exact amounts, resume, SIGKILL."""

from __future__ import annotations

import itertools
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from fractions import Fraction
from pathlib import Path

import pytest

from arena.engine import Fault
from arena.storage import (
    DefinitionMismatchError,
    DiskFullError,
    FaultReason,
    SessionStatus,
    StorageError,
    Store,
    commitment_of,
)
from arena.tournament import parse_config, plan

from .._tmpfs import remount, tmpfs

REPO = Path(__file__).resolve().parents[2]

SECRET = "1ec1c26b50d5d3c58d9583181af80766"
DEFINITION = """\
name: stored
participants:
  - {name: a, address: "h:1"}
  - {name: b, address: "h:2"}
  - {name: c, address: "h:3"}
seed: 1ec1c26b50d5d3c58d9583181af80766
"""


def fake_clock() -> float:
    return 1_700_000_000.0


def opened(tmp_path: Path) -> Store:
    store = Store.open(tmp_path / "results" / "stored.db", clock=fake_clock)
    config = parse_config(DEFINITION)
    store.init_tournament(name=config.name, definition=config.source, secret=config.seed,
                          commitment=commitment_of(config.seed))
    store.record_plan(plan(config))
    return store


def test_the_tournament_record_and_idempotent_reopen(tmp_path: Path) -> None:
    store = opened(tmp_path)
    record = store.tournament()
    assert record is not None
    assert (record.name, record.definition, record.commitment) == ("stored", DEFINITION, commitment_of(SECRET))
    assert (record.secret, record.secret_revealed, record.public_secret) == (SECRET, False, None)
    assert SECRET not in repr(record)
    assert record.created_at == "2023-11-14T22:13:20.000+00:00" and record.finished_at is None
    store.close()

    # A resumed run with a freshly drawn seed gets the stored secret back; layout changes are fine.
    again = Store.open(tmp_path / "results" / "stored.db")
    relaid = "# same tournament, new comments\n" + DEFINITION.replace(f"seed: {SECRET}\n",
                                                                      f"seed:   {SECRET}   # kept\n")
    resumed = again.init_tournament(name="stored", definition=relaid, secret="other", commitment=commitment_of("other"))
    assert resumed.secret == SECRET and resumed.definition == DEFINITION
    again.record_plan(plan(parse_config(DEFINITION)))  # the same plan again: nothing changes
    assert len(again.sessions()) == 6
    again.close()


def test_a_changed_definition_or_plan_is_refused(tmp_path: Path) -> None:
    store = opened(tmp_path)
    with pytest.raises(DefinitionMismatchError, match=r"another definition \(changed: participants, table_size\)"):
        store.init_tournament(name="stored", definition=DEFINITION.replace('  - {name: c, address: "h:3"}\n', "")
                              + "table_size: 2\n", secret=SECRET, commitment=commitment_of(SECRET))
    with pytest.raises(DefinitionMismatchError, match="holds tournament 'stored', not 'other'"):
        store.init_tournament(name="other", definition=DEFINITION, secret=SECRET, commitment=commitment_of(SECRET))
    with pytest.raises(DefinitionMismatchError, match="another plan \\(first difference: s0001\\)"):
        store.record_plan(plan(parse_config(DEFINITION.replace(SECRET, "d67e2e944994496c8d8ec76eed0cf9f0"))))
    with pytest.raises(StorageError, match="commitment is not the SHA-256"):
        store.init_tournament(name="stored", definition=DEFINITION, secret=SECRET, commitment="0" * 64)


def test_a_plan_stored_in_parts_is_checked_part_by_part(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "parts.db", clock=fake_clock)
    store.init_tournament(name="stored", definition=DEFINITION, secret=SECRET, commitment=commitment_of(SECRET))
    planned = plan(parse_config(DEFINITION))
    store.record_plan([planned[-1]], total=6)  # the last session first, as the runner does
    store.record_plan(planned[0:2], total=6)
    store.record_plan(planned[0:2], total=6)  # again: nothing changes
    assert [session.id for session in store.sessions()] == ["s0001", "s0002", "s0006"]
    assert [session.id for session in store.unfinished(first=2, last=5)] == ["s0002"]
    with pytest.raises(DefinitionMismatchError,
                       match=r"another plan \(first difference: the count \(6 stored, 8 now\)\)"):
        store.record_plan(planned[2:4], total=8)
    other = plan(parse_config(DEFINITION.replace(SECRET, "d67e2e944994496c8d8ec76eed0cf9f0")))
    with pytest.raises(DefinitionMismatchError, match=r"another plan \(first difference: s0002\)"):
        store.record_plan(other[1:3], total=6)
    assert [session.id for session in store.sessions()] == ["s0001", "s0002", "s0006"]  # nothing of it stored
    store.close()


def test_a_result_round_trips_with_exact_fractions(tmp_path: Path) -> None:
    store = opened(tmp_path)
    first = store.unfinished()[0]
    assert (first.id, first.table, first.status, first.attempts, first.balances) == (
        "s0001", ("a", "b"), SessionStatus.PLANNED, 0, None)
    store.mark_running("s0001")
    assert store.session("s0001").status is SessionStatus.RUNNING
    balances = {"a": Fraction(-31, 2), "b": Fraction(31, 2)}
    faults = {"a": {Fault.TIMEOUT: 2, "crash": 1}, "b": {}}
    telemetry = {"decision_ms": {"a": [12.5, 40], "b": [3]}, "restarts": 0}
    store.record_result("s0001", balances, ["b"], faults, telemetry, Path("histories/s0001.jsonl"))
    store.close()

    with Store.open(tmp_path / "results" / "stored.db") as reopened:
        (result,) = reopened.finished_results()
        assert result.status is SessionStatus.FINISHED and result.attempts == 1
        assert dict(result.balances or {}) == balances
        assert all(isinstance(amount, Fraction) for amount in (result.balances or {}).values())
        assert result.winners == ("b",)
        assert result.faults == {"a": {"timeout": 2, "crash": 1}, "b": {}}
        assert result.telemetry == telemetry
        assert result.history_path == "histories/s0001.jsonl"
        assert result.started_at == result.finished_at == "2023-11-14T22:13:20.000+00:00"
        raw = sqlite3.connect(reopened.path).execute("SELECT balances FROM sessions WHERE id = 's0001'").fetchone()[0]
        assert raw == '{"a":"-31/2","b":"31/2"}'


def test_every_fault_reason_is_stored_with_its_session_and_summed_over_sessions(tmp_path: Path) -> None:
    store = opened(tmp_path)
    late = "Act not answered within 1000 ms"
    store.record_result("s0001", {"a": -2, "b": 2}, ["b"], {"a": {"timeout": 3, "crash": 1}}, None, None,
                        fault_reasons={"a": [FaultReason("timeout", late, 2),
                                             FaultReason("timeout", f"{late} (+250 ms it could not use)", 1),
                                             FaultReason("crash", "exited during Act (exit status 3)", 1)]})
    store.record_result("s0002", {"a": 1, "b": -1}, ["a"], {"a": {"timeout": 1}, "b": {"malformed": 1}}, None, None,
                        fault_reasons={"a": [FaultReason("timeout", late, 1)],
                                       "b": [FaultReason("malformed", "Act reply: a bet without an amount", 1)]})
    with pytest.raises(StorageError, match=r"fault reasons for 'b', not among \['a', 'c'\]"):
        store.record_result("s0003", {"a": 0, "c": 0}, ["a"], None, None, None,
                            fault_reasons={"c": [FaultReason("crash", "x", 1)], "b": [FaultReason("crash", "y", 1)]})
    assert store.session("s0003").status is SessionStatus.PLANNED  # the whole result was refused
    store.close()

    with Store.open(tmp_path / "results" / "stored.db") as reopened:
        assert reopened.fault_reasons() == {
            "a": [FaultReason("timeout", late, 3, ("s0001", "s0002")),
                  FaultReason("crash", "exited during Act (exit status 3)", 1, ("s0001",)),
                  FaultReason("timeout", f"{late} (+250 ms it could not use)", 1, ("s0001",))],
            "b": [FaultReason("malformed", "Act reply: a bet without an amount", 1, ("s0002",))]}
        assert reopened.fault_reasons("s0002") == {
            "a": [FaultReason("timeout", late, 1, ("s0002",))],
            "b": [FaultReason("malformed", "Act reply: a bet without an amount", 1, ("s0002",))]}


def test_whole_balances_stay_integers(tmp_path: Path) -> None:
    store = opened(tmp_path)
    store.record_result("s0002", {"a": 4, "b": -4}, ["a"], None, None, None)
    assert dict(store.session("s0002").balances or {}) == {"a": 4, "b": -4}
    assert [type(value) for value in (store.session("s0002").balances or {}).values()] == [int, int]


def test_results_that_do_not_fit_the_session_are_refused(tmp_path: Path) -> None:
    store = opened(tmp_path)
    with pytest.raises(StorageError, match="balances must sum to zero, not 1/2"):
        store.record_result("s0001", {"a": Fraction(1, 2), "b": 0}, ["a"])
    with pytest.raises(StorageError, match=r"seats \['a', 'b'\], but balances are for \['a', 'c'\]"):
        store.record_result("s0001", {"a": 1, "c": -1}, ["a"])
    with pytest.raises(StorageError, match="winners"):
        store.record_result("s0001", {"a": 1, "b": -1}, ["c"])
    with pytest.raises(StorageError, match="no session 's9999'"):
        store.mark_running("s9999")
    store.record_result("s0001", {"a": 1, "b": -1}, ["a"])
    with pytest.raises(StorageError, match="s0001 is already finished"):
        store.record_result("s0001", {"a": 1, "b": -1}, ["a"])
    with pytest.raises(StorageError, match="s0001 is already finished"):
        store.mark_running("s0001")
    # The refused writes changed nothing.
    assert [s.id for s in store.finished_results()] == ["s0001"]


def test_unfinished_includes_interrupted_sessions(tmp_path: Path) -> None:
    store = opened(tmp_path)
    store.mark_running("s0001")
    store.mark_running("s0002")
    store.record_result("s0002", {"a": 0, "b": 0}, ["a", "b"])
    store.mark_running("s0003")
    store.close()  # the run "dies" with s0001 and s0003 running

    with Store.open(tmp_path / "results" / "stored.db") as resumed:
        left = resumed.unfinished()
        assert [(s.id, s.status) for s in left] == [
            ("s0001", SessionStatus.RUNNING), ("s0003", SessionStatus.RUNNING), ("s0004", SessionStatus.PLANNED),
            ("s0005", SessionStatus.PLANNED), ("s0006", SessionStatus.PLANNED)]
        resumed.mark_running("s0001")  # replayed from its start
        assert resumed.session("s0001").attempts == 2


def test_the_secret_is_revealed_only_at_the_end(tmp_path: Path) -> None:
    store = opened(tmp_path)
    with pytest.raises(StorageError, match="6 sessions are not finished"):
        store.reveal_secret()
    for session in store.unfinished():
        a, b = session.table
        store.record_result(session.id, {a: 2, b: -2}, [a])
    assert store.reveal_secret() == SECRET
    record = store.tournament()
    assert record is not None and record.secret_revealed and record.public_secret == SECRET
    assert record.finished_at == "2023-11-14T22:13:20.000+00:00"


def test_an_abandoned_tournament_can_be_revealed_by_force(tmp_path: Path) -> None:
    store = opened(tmp_path)
    assert store.reveal_secret(force=True) == SECRET


def test_the_file_uses_write_ahead_logging(tmp_path: Path) -> None:
    store = opened(tmp_path)
    assert sqlite3.connect(store.path).execute("PRAGMA journal_mode").fetchone()[0] == "wal"


# --- killed while writing ----------------------------------------------------------------------

WRITER = """
import sys
from fractions import Fraction
from arena.storage import Store
from arena.storage import commitment_of
from arena.tournament import parse_config, plan

names = ["bot%d" % i for i in range(12)]
definition = "name: killed\\nparticipants:\\n" + "".join(
    "  - {name: %s, address: 'h:%d'}\\n" % (name, 1000 + i) for i, name in enumerate(names)
) + "sessions_per_table: 10\\nseed: 8254c329a92850f6d539dd376f4816ee\\n"
config = parse_config(definition)
store = Store.open(sys.argv[1])
store.init_tournament(name="killed", definition=definition, secret="k", commitment=commitment_of("k"))
store.record_plan(plan(config))
print("planned", flush=True)
for n, session in enumerate(store.unfinished(), 1):
    store.mark_running(session.id)
    a, b = session.table
    store.record_result(session.id, {a: Fraction(n, 2), b: -Fraction(n, 2)}, [a],
                        {b: {"timeout": n}}, {"n": n}, "h/%s.jsonl" % session.id)
    print("done", session.id, flush=True)
"""


def check_consistent(path: Path, *, reported: int) -> None:
    if not path.exists():  # killed while the new file was built: it is linked into place only once complete
        assert reported == 0
        return
    assert path.stat().st_size > 0
    connection = sqlite3.connect(path)
    assert connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    connection.close()
    with Store.open(path) as store:
        record = store.tournament()
        sessions = store.sessions()
        if record is None:
            assert sessions == []  # killed before the tournament row committed
            return
        assert sessions == [] or len(sessions) == 66 * 20  # the plan is all or nothing
        finished = [s for s in sessions if s.status is SessionStatus.FINISHED]
        assert len(finished) >= reported
        assert len([s for s in sessions if s.status is SessionStatus.RUNNING]) <= 1
        for session in finished:
            assert session.balances is not None and sum(session.balances.values()) == 0
            assert session.winners and session.faults and session.telemetry and session.history_path
        for session in sessions:
            if session.status is not SessionStatus.FINISHED:
                assert session.balances is None and session.winners is None


@pytest.mark.parametrize("delay", [0.0, 0.15, 0.4])
def test_sigkill_while_writing_leaves_a_consistent_file(tmp_path: Path, delay: float) -> None:
    script = tmp_path / "writer.py"
    script.write_text(textwrap.dedent(WRITER))
    path = tmp_path / "killed.db"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    for attempt in itertools.count():
        process = subprocess.Popen([sys.executable, str(script), str(path)], stdout=subprocess.PIPE, env=env, text=True)
        reported = 0
        assert process.stdout is not None
        if delay:
            assert process.stdout.readline() == "planned\n"
            deadline = time.monotonic() + delay
            while time.monotonic() < deadline:
                line = process.stdout.readline()
                if not line:
                    break
                reported += line.startswith("done")
        else:
            time.sleep(0.05 * attempt)  # somewhere in start-up, migrations or the plan
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        check_consistent(path, reported=reported)
        if delay or attempt >= 4:
            break
    # A killed run resumes: the same writer carries on from where the file stands.
    if delay:
        with Store.open(path) as store:
            assert store.finished_results(), "the writer should have finished some sessions"
            assert len(store.unfinished()) < 66 * 20


# --- files that are not stores -----------------------------------------------------------------

def _other_database(path: Path) -> None:
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("CREATE TABLE notes (text TEXT)")
    connection.close()


def _altered_schema(path: Path) -> None:
    Store.open(path).close()
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("ALTER TABLE sessions ADD COLUMN extra TEXT")
    connection.close()


@pytest.mark.parametrize("make, message", [
    (lambda path: path.write_bytes(b""), r"is empty \(0 bytes\)"),
    (lambda path: path.write_bytes(b"SQLite format 3\0" + os.urandom(4000)), "not an SQLite database"),
    (_other_database, "without its migrations table"),
    (_altered_schema, r"not a seka-arena results file of this schema \(differs in: sessions\)"),
], ids=["empty", "garbage", "another database", "altered schema"])
@pytest.mark.parametrize("read_only", [False, True])
def test_an_existing_file_that_is_not_a_store_is_refused_and_left_as_it_is(
        tmp_path: Path, make, message: str, read_only: bool) -> None:
    path = tmp_path / "results.sqlite"
    make(path)
    before = path.read_bytes()
    with pytest.raises(StorageError, match=message):
        Store.open(path, read_only=read_only)
    assert path.read_bytes() == before
    # SQLite may leave the (empty) companions of a write-ahead log a reader opened; nothing else.
    assert {entry.name for entry in tmp_path.iterdir()} - {"results.sqlite-wal", "results.sqlite-shm"} == {
        "results.sqlite"}
    assert not (tmp_path / "results.sqlite-wal").exists() or not (tmp_path / "results.sqlite-wal").stat().st_size


def test_a_new_file_appears_complete_and_leaves_nothing_beside_it(tmp_path: Path) -> None:
    path = tmp_path / "new" / "results.sqlite"
    Store.open(path).close()
    assert sorted(entry.name for entry in path.parent.iterdir()) == ["results.sqlite"]
    with Store.open(path, read_only=True) as store:
        assert store.tournament() is None and store.sessions() == []


def test_a_read_only_store_reads_and_refuses_every_write(tmp_path: Path) -> None:
    store = opened(tmp_path)
    store.record_result("s0001", {"a": 1, "b": -1}, ["a"])
    with Store.open(store.path, read_only=True) as reader:  # while the writer has the file open
        assert [session.id for session in reader.finished_results()] == ["s0001"]
        with pytest.raises(StorageError, match=r"open read-only \(refused: marking session s0002 running\)"):
            reader.mark_running("s0002")
    store.close()
    with pytest.raises(StorageError, match="no results file at"):
        Store.open(tmp_path / "missing.sqlite", read_only=True)
    assert not (tmp_path / "missing.sqlite").exists()


def test_a_full_disk_rolls_the_commit_back_names_the_folder_and_the_file_resumes(tmp_path: Path) -> None:
    with tmpfs(tmp_path / "disk", size="160k") as disk:
        store = opened(disk)
        recorded: list[str] = []
        telemetry = {"padding": "x" * 30000}  # eight pages per result: the write-ahead log grows fast
        with pytest.raises(DiskFullError) as caught:
            for session in store.unfinished():
                a, b = session.table
                store.record_result(session.id, {a: 1, b: -1}, [a], telemetry=telemetry)
                recorded.append(session.id)
        assert str(caught.value).startswith(f"disk full: no space left on the device holding {disk / 'results'} "
                                            "while recording the result of session s000")
        assert "\n" not in str(caught.value) and recorded and len(recorded) < 6
        store.close()
        remount(disk, size="4m")
        with Store.open(disk / "results" / "stored.db") as resumed:
            assert [session.id for session in resumed.finished_results()] == recorded
            for session in resumed.unfinished():
                a, b = session.table
                resumed.record_result(session.id, {a: 1, b: -1}, [a], telemetry=telemetry)
            assert len(resumed.finished_results()) == 6
