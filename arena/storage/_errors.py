"""Errors of the results store."""

from __future__ import annotations

from ..engine import ArenaError


class StorageError(ArenaError):
    """A results file that cannot be opened, read or written, or a request it cannot honour."""


class DefinitionMismatchError(StorageError):
    """A resumed run whose definition or plan differs from the one the results file was started with."""
