"""arena/storage/_migrations.py: ordered, named migrations, each in one transaction with its record."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest

from arena.storage import MIGRATIONS, Migration, StorageError, Store, apply_migrations, commitment_of


def now() -> str:
    return "2025-01-01T00:00:00.000+00:00"


def connect(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(path, isolation_level=None)


def test_a_new_file_gets_every_migration_once(tmp_path: Path) -> None:
    path = tmp_path / "results.db"
    with Store.open(path) as store:
        assert store.applied_migrations() == [migration.name for migration in MIGRATIONS]
    with Store.open(path) as store:  # reopening applies nothing again
        assert store.applied_migrations() == [migration.name for migration in MIGRATIONS]
    connection = connect(path)
    assert connection.execute("SELECT count(*) FROM migrations").fetchone()[0] == len(MIGRATIONS)
    assert apply_migrations(connection, MIGRATIONS, now=now) == []


def test_new_migrations_apply_in_order_on_reopen(tmp_path: Path) -> None:
    connection = connect(tmp_path / "db")
    first = [Migration("0001_a", ("CREATE TABLE a (x)",))]
    assert apply_migrations(connection, first, now=now) == ["0001_a"]
    later = [*first, Migration("0002_b", ("CREATE TABLE b (y)", "INSERT INTO b VALUES (1)")),
             Migration("0003_c", ("ALTER TABLE a ADD COLUMN z",))]
    assert apply_migrations(connection, later, now=now) == ["0002_b", "0003_c"]
    assert [row[0] for row in connection.execute("SELECT name FROM migrations ORDER BY name")] == [
        "0001_a", "0002_b", "0003_c"]
    assert apply_migrations(connection, later, now=now) == []


def test_a_failing_migration_leaves_no_trace(tmp_path: Path) -> None:
    connection = connect(tmp_path / "db")
    broken = [Migration("0001_ok", ("CREATE TABLE ok (x)",)),
              Migration("0002_half", ("CREATE TABLE half (x)", "THIS IS NOT SQL"))]
    with pytest.raises(StorageError, match="migration 0002_half failed and was rolled back"):
        apply_migrations(connection, broken, now=now)
    tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert tables == {"migrations", "ok"}  # 0001 committed; 0002's first statement rolled back with it
    assert [row[0] for row in connection.execute("SELECT name FROM migrations")] == ["0001_ok"]


def test_a_file_from_a_newer_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "results.db"
    Store.open(path).close()
    connect(path).execute("INSERT INTO migrations VALUES ('9999_future', 'x')")
    with pytest.raises(StorageError, match="newer seka-arena: unknown migrations 9999_future"):
        Store.open(path)


def test_migration_names_must_be_ordered(tmp_path: Path) -> None:
    with pytest.raises(StorageError, match="unique and in order"):
        apply_migrations(connect(tmp_path / "db"), [Migration("0002_b", ()), Migration("0001_a", ())], now=now)


def test_not_a_database(tmp_path: Path) -> None:
    path = tmp_path / "results.db"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StorageError, match="is not a seka-arena results file"):
        Store.open(path)


def test_a_results_file_of_the_first_schema_gains_the_fault_reasons_and_keeps_its_results(tmp_path: Path) -> None:
    path = tmp_path / "results.db"
    connection = connect(path)
    assert apply_migrations(connection, MIGRATIONS[:1], now=now) == ["0001_tournament_and_sessions"]
    connection.execute("INSERT INTO sessions (id, idx, seating, block, mirror, seed, status, balances, winners, "
                       "faults, finished_at) VALUES ('s0001', 1, '[\"a\",\"b\"]', 'b1', 0, 'x', 'finished', "
                       "'{\"a\":\"1\",\"b\":\"-1\"}', '[\"a\"]', '{\"b\":{\"timeout\":1}}', 'then')")
    connection.close()
    with Store.open(path) as store:
        assert store.applied_migrations() == [migration.name for migration in MIGRATIONS]
        (record,) = store.finished_results()
        assert record.faults == {"b": {"timeout": 1}}
        assert store.fault_reasons() == {}  # counts were all a file of the first schema kept


def test_a_results_file_from_before_session_keys_gets_a_random_one_when_its_tournament_resumes(tmp_path: Path) -> None:
    path = tmp_path / "results.db"
    connection = connect(path)
    apply_migrations(connection, MIGRATIONS[:2], now=now)
    secret = "0f" * 16
    connection.execute("INSERT INTO tournament (id, name, definition, commitment, secret, created_at) "
                       "VALUES (1, 'old', 'name: old', ?, ?, 'then')", (commitment_of(secret), secret))
    connection.close()
    with Store.open(path) as store:
        before = store.tournament()
        assert before is not None and before.session_key is None
        key = store.init_tournament(name="old", definition="name: old", secret=secret,
                                    commitment=commitment_of(secret)).session_key
        assert key is not None and re.fullmatch(r"[0-9a-f]{64}", key) and secret not in key
        again = store.init_tournament(name="old", definition="name: old", secret=secret,
                                      commitment=commitment_of(secret))
        assert again.session_key == key  # kept: a resumed run tells the bots the same ids
