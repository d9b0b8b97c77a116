"""Ordered, named schema migrations, each applied in one transaction together with the record that it ran."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ._errors import StorageError


@dataclass(frozen=True)
class Migration:
    """One schema change. Never edit a migration that has shipped: add a new one."""

    name: str
    """Unique and ordered (`0001_...`); recorded in the `migrations` table once applied."""
    statements: tuple[str, ...]
    """SQL statements run in order inside the migration's transaction."""
    read_without: bool = False
    """A file opened read-only may lack it, with every migration after it: it only adds columns, which such a
    file reads as NULL (so a results folder an older version wrote is checked where it cannot be written)."""


MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        "0001_tournament_and_sessions",
        (
            """
            CREATE TABLE tournament (
                id INTEGER PRIMARY KEY CHECK (id = 1),  -- one tournament per file
                name TEXT NOT NULL,
                definition TEXT NOT NULL,               -- the YAML text as read
                commitment TEXT NOT NULL,               -- SHA-256 hex of the secret, published first
                secret TEXT NOT NULL,
                secret_revealed INTEGER NOT NULL DEFAULT 0 CHECK (secret_revealed IN (0, 1)),
                created_at TEXT NOT NULL,
                finished_at TEXT
            )
            """,
            """
            CREATE TABLE sessions (
                id TEXT PRIMARY KEY,                    -- s0001, ...
                idx INTEGER NOT NULL UNIQUE,            -- 1-based position in the plan
                seating TEXT NOT NULL,                  -- JSON list of bot names, seat 0 first
                block TEXT NOT NULL,
                mirror INTEGER NOT NULL,
                seed TEXT NOT NULL,
                status TEXT NOT NULL DEFAULT 'planned' CHECK (status IN ('planned', 'running', 'finished')),
                attempts INTEGER NOT NULL DEFAULT 0,    -- times marked running (more than 1 after a resume)
                balances TEXT,                          -- JSON {bot: "15/2"}, exact amounts
                winners TEXT,                           -- JSON list of bot names
                faults TEXT,                            -- JSON {bot: {fault type: count}}
                telemetry TEXT,                         -- JSON, free-form
                history_path TEXT,
                started_at TEXT,
                finished_at TEXT,
                CHECK ((status = 'finished') = (balances IS NOT NULL AND winners IS NOT NULL AND finished_at IS NOT NULL))
            )
            """,  # noqa: E501 (stored in every results file and compared with this text: never reflowed)
            "CREATE INDEX sessions_by_status ON sessions (status, idx)",
        ),
    ),
    Migration(
        "0002_fault_reasons",
        (
            """
            CREATE TABLE fault_reasons (
                session TEXT NOT NULL REFERENCES sessions (id),
                bot TEXT NOT NULL,
                kind TEXT NOT NULL,                     -- timeout, illegal, malformed, crash
                reason TEXT NOT NULL,                   -- what happened, as the arena saw it
                count INTEGER NOT NULL CHECK (count > 0),  -- the bot's faults in the session with this reason
                PRIMARY KEY (session, bot, kind, reason)
            )
            """,
        ),
    ),
    Migration(
        "0003_session_key",
        (
            # The key of the session ids bots are told (HMAC), random per tournament: not the secret, which a
            # bot could search for through them if it were weak. Files from before get one when next opened.
            "ALTER TABLE tournament ADD COLUMN session_key TEXT",
        ),
    ),
    Migration(
        "0004_value_function",
        (
            # The value function of the adjusted results, which the commitment binds since (its form 2);
            # NULL in a file from before, whose commitment is of the secret and the deal book alone.
            "ALTER TABLE tournament ADD COLUMN value_function TEXT",
            "ALTER TABLE tournament ADD COLUMN value_function_sha256 TEXT",
        ),
        read_without=True,
    ),
)
"""The schema, oldest first."""


def apply_migrations(
    connection: sqlite3.Connection, migrations: Sequence[Migration], *, now: Callable[[], str]
) -> list[str]:
    """Apply the migrations not yet recorded, in order, each in its own transaction.

    `connection` must be in autocommit mode (`isolation_level=None`) so that the transactions
    here are the only ones. A migration that fails is rolled back whole, record included.

    Returns:
        The names applied now (empty when the database was up to date).

    Raises:
        StorageError: when the database records a migration this code does not know (it was
            written by a newer version), or a migration fails.
    """
    names = [migration.name for migration in migrations]
    if len(set(names)) != len(names) or names != sorted(names):
        raise StorageError(f"migration names must be unique and in order, not {names}")
    connection.execute("CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
    recorded = {row[0] for row in connection.execute("SELECT name FROM migrations")}
    unknown = sorted(recorded - set(names))
    if unknown:
        raise StorageError(f"the database was written by a newer seka-arena: unknown migrations {', '.join(unknown)}")
    applied: list[str] = []
    for migration in migrations:
        if migration.name in recorded:
            continue
        connection.execute("BEGIN IMMEDIATE")
        try:
            # Checked again inside the write lock: another process may have applied it meanwhile.
            if connection.execute("SELECT 1 FROM migrations WHERE name = ?", (migration.name,)).fetchone() is None:
                for statement in migration.statements:
                    connection.execute(statement)
                connection.execute("INSERT INTO migrations (name, applied_at) VALUES (?, ?)", (migration.name, now()))
                applied.append(migration.name)
        except BaseException as error:
            connection.execute("ROLLBACK")
            if isinstance(error, sqlite3.Error):
                raise StorageError(f"migration {migration.name} failed and was rolled back: {error}") from error
            raise
        connection.execute("COMMIT")
    return applied
