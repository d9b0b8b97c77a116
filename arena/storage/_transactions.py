"""One SQLite write transaction, for every store of the arena (results files, the service's store)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from ._errors import StorageError


@contextmanager
def write_transaction(connection: sqlite3.Connection,
                      failure: Callable[[sqlite3.Error], StorageError]) -> Iterator[sqlite3.Connection]:
    """BEGIN IMMEDIATE ... COMMIT, rolled back on any exception; an SQLite error (a full disk, a locked
    or damaged file) is raised as `failure(error)`, which names the store and what it was doing."""
    try:
        connection.execute("BEGIN IMMEDIATE")
    except sqlite3.Error as error:
        raise failure(error) from error
    try:
        yield connection
        connection.execute("COMMIT")
    except BaseException as error:
        try:
            connection.execute("ROLLBACK")
        except sqlite3.Error:
            pass  # SQLite already rolled back (it does on a full disk, for one)
        if isinstance(error, sqlite3.Error):
            raise failure(error) from error
        raise
