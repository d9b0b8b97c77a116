"""A bot's slow decisions over its recent ladder sessions, from the histories' resources files, as
the line chart its page draws (docs/history.md, "Resources")."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..history import read_resources
from ..report import LineChart, line_chart
from ._store import LadderSession


@dataclass(frozen=True)
class SlowDecisions:
    """Per session that has figures (oldest first): the bot's slowest, median and most CPU-hungry decision."""

    sessions: list[str]
    slowest_ms: list[float]
    median_ms: list[float]
    cpu_ms: list[float | None]
    """The most CPU one decision took (None where the session's figures have no CPU time)."""
    limit_ms: int
    """The ladder's per-decision limit (said beside the chart; as a line it would flatten the others)."""
    chart: LineChart


def slow_decisions(data: Path, sessions: Sequence[LadderSession], versions: set[int], *,
                   limit_ms: int) -> SlowDecisions | None:
    """The chart of the bot's (its `versions`') decisions in `sessions` (newest first, as the pages list
    them); None when none of them has a resources file with a decision of the bot's."""
    names, slowest, median, cpu = [], [], [], []
    for session in reversed(sessions):
        if session.status != "finished" or session.history_path is None:
            continue
        seats = {seat for seat, version in enumerate(session.seating) if version in versions}
        figures = read_resources(data / session.history_path) or []
        walls = [figure["wall_ms"] for figure in figures
                 if figure.get("seat") in seats and isinstance(figure.get("wall_ms"), int | float)]
        if not walls:
            continue
        used = [figure["cpu_ms"] for figure in figures
                if figure.get("seat") in seats and isinstance(figure.get("cpu_ms"), int | float)]
        names.append(session.id)
        slowest.append(float(max(walls)))
        median.append(float(statistics.median(walls)))
        cpu.append(float(max(used)) if used else None)
    if not names:
        return None
    xs = list(range(1, len(names) + 1))
    chart = line_chart(xs, [("slowest decision", slowest), ("median decision", median),
                            ("most CPU in a decision", cpu)],
                       x_label="ladder session, oldest to newest", y_label="milliseconds")
    return SlowDecisions(names, slowest, median, cpu, limit_ms, chart)
