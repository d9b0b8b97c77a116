"""Terminal presentation of a tournament: live progress and the standings, drawn with rich."""

from __future__ import annotations

import csv
import io
from types import TracebackType
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from ._runner import Progress as RunProgress


class LiveProgress:
    """A progress bar with sessions done and total, rate, time left and faults so far."""

    def __init__(self, console: Console, name: str) -> None:
        self._bar = Progress(
            TextColumn(f"[bold]{name}[/]"), BarColumn(), MofNCompleteColumn(), TextColumn("sessions"),
            TextColumn("{task.fields[rate]}"), TimeElapsedColumn(), TextColumn("left"), TimeRemainingColumn(),
            TextColumn("faults {task.fields[faults]}"), console=console, transient=False)
        self._task = self._bar.add_task(name, total=None, rate="", faults=0)
        self._console = console

    def __enter__(self) -> LiveProgress:
        self._bar.__enter__()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self._bar.__exit__(kind, error, trace)

    def update(self, progress: RunProgress) -> None:
        task = self._bar.tasks[0]
        elapsed = task.elapsed or 0.0
        started_with = getattr(self, "_started_with", None)
        if started_with is None:
            self._started_with = started_with = progress.done
        played = progress.done - started_with
        rate = f"{played / elapsed * 60:.1f}/min" if elapsed > 0 and played else ""
        self._bar.update(self._task, total=progress.total, completed=progress.done, rate=rate,
                         faults=progress.faults)
        if progress.last is not None and progress.last.balances is not None:
            balances = ", ".join(f"{bot} {amount}" for bot, amount in progress.last.balances.items())
            self._console.print(f"  {progress.last.id} [dim]{progress.last.block}[/]: {balances}", highlight=False)
        if progress.warning is not None:
            self._console.print(f"[yellow]warning:[/] {progress.warning}", highlight=False)


def standings_table(document: dict[str, Any]) -> Table:
    """The standings as a table: rating with its interval, rank range, sessions, wins, chip rate, faults
    (with their kinds; `faults_table` has their reasons)."""
    # The warnings (such as deals not protected between mirrors) are the table's footer.
    table = Table(title=f"Standings: {document['tournament']} ({document['sessions']} sessions"
                        f"{'' if document['complete'] else ', incomplete'})",
                  caption="\n".join(f"Warning: {warning}" for warning in document.get("warnings", [])) or None,
                  caption_justify="left")
    for header in ("#", "bot", "Elo", "95% interval", "rank range", "sessions", "wins", "chips/session",
                   "chip 95% interval", "faults"):
        table.add_column(header, justify="left" if header == "bot" else "right")
    for place, row in enumerate(document["standings"], start=1):
        table.add_row(str(place), row["name"], f"{row['rating']:.0f}", f"{row['ci_low']:.0f} .. {row['ci_high']:.0f}",
                      f"{row['rank_low']}-{row['rank_high']}", str(row["sessions"]), str(row["wins"]),
                      f"{row['chip_rate_float']:+.2f}", f"{row['chip_ci_low']:+.2f} .. {row['chip_ci_high']:+.2f}",
                      _fault_cell(row))
    return table


def _fault_cell(row: dict[str, Any]) -> str:
    kinds = row.get("fault_kinds") or {}
    detail = ", ".join(f"{kind} {count}" for kind, count in kinds.items())
    return f"{row['faults']}: {detail}" if detail else str(row["faults"])


_SESSIONS_SHOWN = 3


def faults_table(document: dict[str, Any]) -> Table | None:
    """Every fault's reason, by bot in standings order (None when no bot made one): how many, in
    which sessions."""
    rows = [(row["name"], reason) for row in document["standings"] for reason in row.get("fault_reasons", [])]
    if not rows:
        return None
    table = Table(title="Faults (each reason as the arena saw it)")
    for header in ("bot", "type", "count", "reason", "sessions"):
        table.add_column(header, justify="right" if header == "count" else "left")
    for name, reason in rows:
        sessions = reason["sessions"]
        shown = " ".join(sessions[:_SESSIONS_SHOWN]) + (f" +{len(sessions) - _SESSIONS_SHOWN}"
                                                         if len(sessions) > _SESSIONS_SHOWN else "")
        table.add_row(name, reason["kind"], str(reason["count"]), reason["reason"], shown)
    return table


def crosstable_table(text: str) -> Table:
    """The crosstable CSV as a table: row bot's score against the column bot, over sessions together."""
    rows = list(csv.reader(io.StringIO(text)))
    table = Table(title="Crosstable (row's score against column: ahead 1, level 1/2)")
    for header in rows[0]:
        table.add_column(header, justify="left" if header == "bot" else "right")
    for row in rows[1:]:
        table.add_row(*[cell or "-" for cell in row])
    return table
