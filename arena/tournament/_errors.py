"""The error raised for a tournament definition that cannot be run, listing every mistake at once."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..engine import ArenaError


@dataclass(frozen=True)
class ConfigProblem:
    """One mistake in a tournament file, located by file, line and field."""

    file: str
    """The file as it was named to the loader (`tournaments/x.yaml`)."""
    line: int | None
    """1-based line of the offending key or value; None when the file could not be read at all."""
    field: str | None
    """The dotted path of the field (`participants[2].limits.decision_ms`); None for syntax errors."""
    message: str
    """What is wrong, quoting the bad value."""

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        return f"{where}: {self.message}" if self.field is None else f"{where}: {self.field}: {self.message}"


class TournamentConfigError(ArenaError, ValueError):
    """A tournament definition with mistakes; `problems` holds all of them, in file order."""

    def __init__(self, problems: Sequence[ConfigProblem], *, document: str = "tournament definition") -> None:
        self.problems: tuple[ConfigProblem, ...] = tuple(problems)
        self.document = document
        """What the file is, in the message's head: a service file shares the loader, not the name."""
        count = len(self.problems)
        head = f"{count} problem{'s' if count != 1 else ''} in the {document}:"
        super().__init__("\n".join([head, *(f"  {problem}" for problem in self.problems)]))
