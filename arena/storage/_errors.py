"""Errors of the results store and its folder."""

from __future__ import annotations

import errno
import os
import sqlite3

from ..engine import ArenaError


class StorageError(ArenaError):
    """A results file that cannot be opened, read or written, or a request it cannot honour."""


class DefinitionMismatchError(StorageError):
    """A resumed run whose definition or plan differs from the one the results file was started with."""


class AlreadyWrittenError(StorageError):
    """A file written once (a history) exists already with other contents: it is never replaced."""


class DiskFullError(StorageError):
    """The device holding a results folder (or a history) has no space left, or the quota is spent.

    What was committed before is intact; the unfinished write left no partial file behind.
    """

    def __init__(self, folder: str | os.PathLike[str], doing: str) -> None:
        super().__init__(f"disk full: no space left on the device holding {os.fspath(folder)} while {doing}; "
                         "free some space and run the command again (a tournament resumes where it stopped)")
        self.folder = os.fspath(folder)


_FULL = (errno.ENOSPC, errno.EDQUOT)


def is_disk_full(error: BaseException | None) -> bool:
    """True for an OS or SQLite error saying the disk is full, or an error caused by one."""
    while error is not None:
        if isinstance(error, OSError) and error.errno in _FULL:
            return True
        if isinstance(error, sqlite3.Error) and getattr(error, "sqlite_errorcode", 0) & 0xFF == sqlite3.SQLITE_FULL:
            return True
        error = error.__cause__
    return False
