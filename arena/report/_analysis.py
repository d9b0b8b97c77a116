"""The numbers behind the report's charts and bot pages, computed from stored session results."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..engine import Amount
from ..ratings import SessionOutcome, prefix_ratings
from ..storage import SessionRecord
from ..tournament import pairwise_scores


def accumulation_order(records: Sequence[SessionRecord]) -> list[SessionRecord]:
    """Finished sessions in the order they finished (plan order among equal times)."""
    return sorted(records, key=lambda record: (record.finished_at or "", record.index))


def outcome(record: SessionRecord) -> SessionOutcome:
    """A finished session as the ratings read it (as `seka-arena ratings` builds it)."""
    assert record.balances is not None
    faults = {bot: _fault_count(kinds) for bot, kinds in _mapping(record.faults).items()}
    return SessionOutcome(record.table, tuple(record.balances[bot] for bot in record.table), record.block,
                          faults=faults)


@dataclass(frozen=True)
class RatingProgress:
    """Each bot's Bradley–Terry rating after the first n sessions, for several n."""

    sessions: Sequence[int]
    """The prefix sizes, increasing; the last is every finished session."""
    ratings: Mapping[str, Sequence[float | None]]
    """Per bot, its rating after each prefix (None before it played, or while the bots that had
    played fell into groups that never met, when no rating compares them)."""


def rating_progress(records: Sequence[SessionRecord], *, points: int = 40) -> RatingProgress:
    """Refit the ratings on about `points` growing prefixes of the sessions in the order they finished.

    Each point is the tournament's own rating (`arena.ratings.bradley_terry`, the headline of the
    standings) of the sessions finished by then (`arena.ratings.prefix_ratings` fits them all in
    one pass): not an incremental Elo, so the last point is the standings' rating.
    """
    ordered = [outcome(record) for record in accumulation_order(records)]
    total = len(ordered)
    sizes = sorted({max(1, math.ceil(total * step / points)) for step in range(1, points + 1)}) if total else []
    fits = prefix_ratings(ordered, sizes)
    kept = [(size, fitted) for size, fitted in zip(sizes, fits, strict=True) if fitted is not None]
    names = sorted({bot for item in ordered for bot in item.bots})
    return RatingProgress(sessions=[size for size, _ in kept],
                          ratings={name: [fitted.get(name) for _, fitted in kept] for name in names})


@dataclass(frozen=True)
class PairRecord:
    """One bot's record against another over the sessions they shared."""

    score: Fraction
    """Sessions finished above the other (level counts ½)."""
    sessions: int
    chips: Amount
    """The bot's net chips over those sessions (against the whole table)."""

    @property
    def share(self) -> float:
        return float(self.score) / self.sessions if self.sessions else 0.5


def pair_records(records: Sequence[SessionRecord]) -> dict[tuple[str, str], PairRecord]:
    """For each ordered pair of bots that met: the first's record against the second (the numbers of
    crosstable.csv, with the chips)."""
    return {pair: PairRecord(score, sessions, chips)
            for pair, (score, sessions, chips) in pairwise_scores(records).items()}


@dataclass(frozen=True)
class SeatRecord:
    """A bot's results from one seat."""

    seat: int
    sessions: int
    wins: int
    """Sessions with the highest balance (shared included)."""
    chips: Amount

    @property
    def average(self) -> Fraction:
        """Its chips per session, exact."""
        return Fraction(self.chips) / self.sessions if self.sessions else Fraction(0)


def seat_records(records: Sequence[SessionRecord], bot: str) -> list[SeatRecord]:
    """The bot's results by the seat it sat in (seat 0 acts first in the first pot), seat order."""
    seats: dict[int, list[Any]] = defaultdict(lambda: [0, 0, 0])
    for record in records:
        if bot in record.table and record.balances is not None:
            entry = seats[record.table.index(bot)]
            entry[0] += 1
            entry[1] += bot in (record.winners or ())
            entry[2] += record.balances[bot]
    return [SeatRecord(seat, *seats[seat]) for seat in sorted(seats)]


@dataclass(frozen=True)
class Latency:
    """A bot's decision times as its sessions' telemetry recorded them."""

    decisions: int
    medians: Sequence[float]
    """Each session's median decision time, in ms (sessions with a decision)."""
    p99s: Sequence[float]
    """Each session's 99th-percentile decision time, in ms."""
    worst: float | None
    """The slowest decision of all, in ms."""


def latency(records: Sequence[SessionRecord], bot: str) -> Latency:
    """Gather a bot's decision times from its sessions' telemetry, skipping what is not a number
    (telemetry is free-form JSON: a results folder from anywhere may hold anything there)."""
    decisions = 0
    medians: list[float] = []
    p99s: list[float] = []
    worst: float | None = None
    for record in records:
        entry = _mapping(_mapping(record.telemetry).get(bot))
        count = entry.get("decisions")
        if isinstance(count, int) and not isinstance(count, bool) and count > 0:
            decisions += count
        times = _mapping(entry.get("latency_ms"))
        if (median := _number(times.get("median"))) is not None:
            medians.append(median)
        if (p99 := _number(times.get("p99"))) is not None:
            p99s.append(p99)
        if (most := _number(times.get("max"))) is not None:
            worst = most if worst is None else max(worst, most)
    return Latency(decisions=decisions, medians=medians, p99s=p99s, worst=worst)


def percentile(values: Sequence[float], share: float) -> float | None:
    """The `share` quantile (0..1) of `values`, interpolating linearly; None when there are none.

    >>> percentile([1, 2, 3, 4], 0.5), percentile([], 0.5)
    (2.5, None)
    """
    ordered = sorted(values)
    if not ordered:
        return None
    position = (len(ordered) - 1) * share
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def fault_counts(record: SessionRecord) -> dict[str, dict[str, int]]:
    """The session's faults by bot and kind, as stored ({bot: {kind: count}}), bots without faults left out."""
    found: dict[str, dict[str, int]] = {}
    for bot, kinds in _mapping(record.faults).items():
        counts = {str(kind): count for kind, count in _mapping(kinds).items()
                  if isinstance(count, int) and not isinstance(count, bool) and count > 0}
        if counts:
            found[str(bot)] = counts
    return found


def _fault_count(kinds: Any) -> int:
    return sum(count for count in _mapping(kinds).values() if isinstance(count, int) and not isinstance(count, bool))


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _number(value: Any) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value) and value >= 0:
        return float(value)
    return None
