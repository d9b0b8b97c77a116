"""SQLite store files (a tournament's results file, the service's store): created whole, private, and
refused when they are not what they claim to be.

Theory of operation: a store file exists only once it is complete: a new one is built under a
`.partial` name (created 0600: it holds a secret, and SQLite gives its write-ahead log and index
the same mode) and linked into place with its schema. So a file that is there and empty, not
SQLite, or of another schema is never taken for a new store (that would start over, draw a new
secret and overwrite what the old one wrote beside it): it is refused, and left as it is.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ._errors import DiskFullError, StorageError, is_disk_full
from ._folder import PARTIAL_SUFFIX, PRIVATE_FILE, sync_folder
from ._migrations import Migration, apply_migrations

_COMPANIONS = ("-journal", "-wal", "-shm")


@dataclass(frozen=True)
class StoreKind:
    """What a kind of store file is called in messages, and its schema."""

    name: str
    """`results file`, `service store`."""
    migrations: tuple[Migration, ...]
    starts: str
    """What an unusable file is not taken for: `a new tournament`."""
    elsewhere: str
    """What to do instead: `use another results folder`."""


def create_store_file(target: Path, kind: StoreKind, now: Callable[[], str]) -> None:
    """Build a new, empty store beside `target` (0600) and link it into place whole.

    Until the link, nothing exists at `target`: a file there is always a complete store. Another
    process that created the file meanwhile wins, and its file is used.

    Raises:
        DiskFullError: no space left to create it.
        StorageError: it cannot be created, with the reason.
    """
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        if is_disk_full(error):
            raise DiskFullError(target.parent, f"creating {target.name}") from error
        raise StorageError(f"cannot create the folder of {kind.name} {target}: {error.strerror}") from error
    temporary = target.with_name(f"{target.name}.{os.getpid()}{PARTIAL_SUFFIX}")
    leftovers = [temporary, *(temporary.with_name(temporary.name + suffix) for suffix in _COMPANIONS)]
    try:
        for path in leftovers:  # a killed creator's, with this pid
            path.unlink(missing_ok=True)
        # An empty file is a new database to SQLite, which keeps the mode it finds.
        os.close(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, PRIVATE_FILE))
        os.chmod(temporary, PRIVATE_FILE)  # os.open's mode passes through the umask
        connection = sqlite3.connect(temporary, isolation_level=None)
        try:
            connection.execute("PRAGMA synchronous = FULL")
            apply_migrations(connection, kind.migrations, now=now)
            connection.execute("PRAGMA journal_mode = WAL")
        finally:
            connection.close()
        try:
            os.link(temporary, target)
        except FileExistsError:
            pass
        except OSError:
            if not target.exists():  # a filesystem without hard links
                os.rename(temporary, target)
        sync_folder(target.parent)
    except (OSError, sqlite3.Error, StorageError) as error:
        if is_disk_full(error):
            raise DiskFullError(target.parent, f"creating {target.name}") from error
        if isinstance(error, StorageError):
            raise
        raise StorageError(f"cannot create {kind.name} {target}: {error}") from error
    finally:
        for path in leftovers:
            with contextlib.suppress(OSError):
                path.unlink(missing_ok=True)


def make_private(path: str | os.PathLike[str]) -> None:
    """Make an existing store file and its companions 0600 (one an older version left readable to all)."""
    for name in (os.fspath(path), *(os.fspath(path) + suffix for suffix in _COMPANIONS)):
        with contextlib.suppress(FileNotFoundError):
            if os.stat(name).st_mode & 0o777 != PRIVATE_FILE:
                os.chmod(name, PRIVATE_FILE)


def refuse_empty(where: str, kind: StoreKind) -> None:
    """Refuse a store file of 0 bytes (SQLite would take it for a new database)."""
    if where != ":memory:" and os.path.isfile(where) and os.path.getsize(where) == 0:
        raise StorageError(f"{where} is empty (0 bytes): it is not a seka-arena {kind.name}, and it is not "
                           f"taken for {kind.starts}; restore the {kind.name}, or move it away to start afresh")


def verify_schema(connection: sqlite3.Connection, where: str, kind: StoreKind, *,
                  upgrade: Callable[[], str] | None) -> None:
    """Refuse a file that is not a store of this kind and schema; apply missing migrations when
    `upgrade` (the clock of their records) is given, else refuse a file that needs them.

    Raises:
        StorageError: not SQLite, another store's file, another schema, or a newer or older version's.
    """
    try:
        tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except sqlite3.DatabaseError as error:
        raise StorageError(f"{where} is not a seka-arena {kind.name} (not an SQLite database: {error})") from error
    if "migrations" not in tables:
        raise StorageError(f"{where} is not a seka-arena {kind.name} (an SQLite database without its migrations "
                           f"table); it is not taken for {kind.starts}: {kind.elsewhere}")
    known = [migration.name for migration in kind.migrations]
    applied = [row[0] for row in connection.execute("SELECT name FROM migrations ORDER BY name")]
    if applied and known[0] not in applied:
        raise StorageError(f"{where} is not a seka-arena {kind.name} (its migrations, {', '.join(applied[:3])}, "
                           f"are another store's); it is not taken for {kind.starts}: {kind.elsewhere}")
    if upgrade is not None:
        apply_migrations(connection, kind.migrations, now=upgrade)
        applied = [row[0] for row in connection.execute("SELECT name FROM migrations ORDER BY name")]
    unknown = sorted(set(applied) - set(known))
    if unknown:
        raise StorageError(f"the database was written by a newer seka-arena: unknown migrations {', '.join(unknown)}")
    if applied != known and not (applied == known[:len(applied)]
                                 and all(migration.read_without for migration in kind.migrations[len(applied):])):
        raise StorageError(f"{where} was written by an older seka-arena: open it once where it can be written, "
                           "to bring its schema up to date")
    reference, found = _reference_schema(kind.migrations[:len(applied)]), _schema(connection)
    differs = sorted(name for name in reference.keys() | found.keys() if reference.get(name) != found.get(name))
    if differs:
        raise StorageError(f"{where} is not a seka-arena {kind.name} of this schema (differs in: "
                           f"{', '.join(differs)}); it is not used: restore it, or {kind.elsewhere}")


def _schema(connection: sqlite3.Connection) -> dict[str, tuple[str, str, str]]:
    rows = connection.execute("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'")
    return {name: (kind, table, sql) for kind, name, table, sql in rows}


_REFERENCE: dict[Sequence[Migration], dict[str, tuple[str, str, str]]] = {}


def _reference_schema(migrations: tuple[Migration, ...]) -> dict[str, tuple[str, str, str]]:
    # What every migration gives a fresh database; built once per process and schema.
    if migrations not in _REFERENCE:
        memory = sqlite3.connect(":memory:", isolation_level=None)
        apply_migrations(memory, migrations, now=lambda: "")
        _REFERENCE[migrations] = _schema(memory)
        memory.close()
    return _REFERENCE[migrations]
