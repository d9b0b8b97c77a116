"""What a report is made from: a tournament's results folder, read without writing to it.

The standings are the folder's standings.json when it covers every finished session (the numbers
the report shows are then exactly those of the file); when it is missing or stale (a run still in
progress, an interrupted one) they are computed from the results file the same way `seka-arena
ratings` computes them. Everything read is checked: a results folder may come from anyone.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..engine import ArenaError
from ..storage import FaultReason, SessionRecord, SessionStatus, Store, TournamentRecord
from ..tournament import tournament_results


class ReportError(ArenaError):
    """A results folder the report cannot be made from, with the file and field at fault."""


@dataclass(frozen=True)
class StandingRow:
    """One bot's row of standings.json, checked."""

    name: str
    rating: float
    ci_low: float
    ci_high: float
    rank_low: int
    rank_high: int
    sessions: int
    wins: int
    win_share: str
    chip_rate: str
    """Exact, as the file writes it (`"283/24"`)."""
    chip_rate_float: float
    chip_ci_low: float
    chip_ci_high: float
    faults: int
    fault_kinds: Mapping[str, int]
    fault_reasons: Sequence[FaultReason]
    sequential_elo: float
    los: Mapping[str, float]


@dataclass(frozen=True)
class Standings:
    """standings.json, checked."""

    tournament: str
    complete: bool
    sessions: int
    seed_commitment: str
    secret: str | None
    isolation: Sequence[str]
    warnings: Sequence[str]
    rows: Sequence[StandingRow]


@dataclass(frozen=True)
class Results:
    """Everything a report shows, read from one results folder."""

    folder: Path
    tournament: TournamentRecord
    standings: Standings
    standings_source: str
    """Where the standings came from: `standings.json`, or why they were computed afresh."""
    sessions: Sequence[SessionRecord]
    """Every planned session, in plan order; finished ones carry their results."""

    @property
    def finished(self) -> list[SessionRecord]:
        """The finished sessions, in plan order."""
        return [record for record in self.sessions if record.status is SessionStatus.FINISHED]


def load_results(folder: Path) -> Results:
    """Read a results folder (`results/NAME`, or its tournament.sqlite) for a report; nothing is written.

    Raises:
        ReportError: no results file, no finished session, or a standings.json that is not one.
        StorageError: the results file cannot be read.
    """
    database = folder / "tournament.sqlite" if folder.is_dir() else folder
    folder = database.parent
    if not database.is_file():
        raise ReportError(f"no tournament results at {database}")
    with Store.open(database, read_only=True) as store:
        tournament = store.tournament()
        if tournament is None:
            raise ReportError(f"{database} holds no tournament yet")
        sessions = store.sessions()
        finished = sum(record.status is SessionStatus.FINISHED for record in sessions)
        if not finished:
            raise ReportError(f"{folder}: no finished session to report yet")
        path = folder / "standings.json"
        document: Any = None
        if path.is_file():
            try:
                document = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
                raise ReportError(f"{path}: not a standings file ({error})") from None
        if isinstance(document, dict) and document.get("sessions") == finished:
            source = "standings.json"
        else:
            why = "missing" if document is None else "older than the results file"
            source = f"computed from tournament.sqlite (standings.json {why})"
            try:
                document = tournament_results(store).standings
            except ArenaError as error:
                raise ReportError(f"{folder}: {error}") from None
    return Results(folder=folder, tournament=tournament, standings=parse_standings(document, str(path)),
                   standings_source=source, sessions=sessions)


def parse_standings(document: Any, where: str) -> Standings:
    """Check a standings document (as standings.json holds it) field by field.

    Raises:
        ReportError: naming the file and the field (`standings.json: standings[1].rating: ...`).
    """
    top = _Reader(document, where)
    rows = []
    for index, item in enumerate(top.items("standings")):
        row = _Reader(item, f"{where}: standings[{index}]")
        reasons = []
        for number, entry in enumerate(row.items("fault_reasons")):
            reason = _Reader(entry, f"{row.where}.fault_reasons[{number}]")
            reasons.append(FaultReason(kind=reason.text("kind"), reason=reason.text("reason"),
                                       count=reason.integer("count"),
                                       sessions=tuple(reason.texts("sessions"))))
        rows.append(StandingRow(
            name=row.text("name"), rating=row.number("rating"), ci_low=row.number("ci_low"),
            ci_high=row.number("ci_high"), rank_low=row.integer("rank_low"), rank_high=row.integer("rank_high"),
            sessions=row.integer("sessions"), wins=row.integer("wins"), win_share=row.text("win_share"),
            chip_rate=row.text("chip_rate"), chip_rate_float=row.number("chip_rate_float"),
            chip_ci_low=row.number("chip_ci_low"), chip_ci_high=row.number("chip_ci_high"),
            faults=row.integer("faults"), fault_kinds=row.counts("fault_kinds"), fault_reasons=tuple(reasons),
            sequential_elo=row.number("sequential_elo"), los=row.numbers("los")))
    secret = top.value("secret")
    if secret is not None and not isinstance(secret, str):
        raise ReportError(f"{where}: secret: expected text or null, not {secret!r}")
    return Standings(tournament=top.text("tournament"), complete=top.flag("complete"),
                     sessions=top.integer("sessions"), seed_commitment=top.text("seed_commitment"),
                     secret=secret, isolation=tuple(top.texts("isolation", optional=True)),
                     warnings=tuple(top.texts("warnings", optional=True)), rows=tuple(rows))


class _Reader:
    """Typed fields of one JSON object, each failure naming where it is."""

    def __init__(self, value: Any, where: str) -> None:
        if not isinstance(value, dict):
            raise ReportError(f"{where}: expected an object, not {type(value).__name__}")
        self.data: dict[str, Any] = value
        self.where = where

    def _fail(self, key: str, expected: str, value: Any) -> ReportError:
        return ReportError(f"{self.where}.{key}: expected {expected}, not {value!r}"[:300])

    def value(self, key: str) -> Any:
        if key not in self.data:
            raise ReportError(f"{self.where}: no field {key!r}")
        return self.data[key]

    def text(self, key: str) -> str:
        value = self.value(key)
        if not isinstance(value, str):
            raise self._fail(key, "text", value)
        return value

    def flag(self, key: str) -> bool:
        value = self.value(key)
        if not isinstance(value, bool):
            raise self._fail(key, "true or false", value)
        return value

    def integer(self, key: str) -> int:
        value = self.value(key)
        if isinstance(value, bool) or not isinstance(value, int):
            raise self._fail(key, "a whole number", value)
        return value

    def number(self, key: str) -> float:
        value = self.value(key)
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise self._fail(key, "a number", value)
        return float(value)

    def items(self, key: str, *, optional: bool = False) -> list[Any]:
        if optional and key not in self.data:
            return []
        value = self.value(key)
        if not isinstance(value, list):
            raise self._fail(key, "a list", value)
        return value

    def texts(self, key: str, *, optional: bool = False) -> list[str]:
        values = self.items(key, optional=optional)
        if not all(isinstance(value, str) for value in values):
            raise self._fail(key, "a list of text", values)
        return values

    def numbers(self, key: str) -> dict[str, float]:
        value = self.value(key)
        if not isinstance(value, dict) or not all(
                isinstance(item, int | float) and not isinstance(item, bool) for item in value.values()):
            raise self._fail(key, "an object of numbers", value)
        return {str(name): float(item) for name, item in value.items()}

    def counts(self, key: str) -> dict[str, int]:
        value = self.value(key)
        if not isinstance(value, dict) or not all(
                isinstance(item, int) and not isinstance(item, bool) for item in value.values()):
            raise self._fail(key, "an object of whole numbers", value)
        return {str(name): item for name, item in value.items()}
