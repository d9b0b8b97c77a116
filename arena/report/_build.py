"""Writing a tournament's report: every page of the site from one results folder."""

from __future__ import annotations

import dataclasses
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from ..engine import format_amount
from ..storage import COMMITMENT_FORM, FaultReason, SessionRecord, ValueFunction
from ..tournament import BOOK_NAME
from ._adjusted import adjusted_chip_rates
from ._analysis import (
    Latency,
    PairRecord,
    SeatRecord,
    fault_counts,
    latency,
    pair_records,
    percentile,
    rating_progress,
    seat_records,
)
from ._charts import Histogram, heat_colour, histogram, interval_chart, line_chart
from ._formats import chips_text
from ._replays import Audience, seat_page, tournament_sessions, write_replays
from ._results import Results, StandingRow, load_results
from ._site import Site, bot_page, session_page


def write_report(folder: Path, *, out: Path | None = None, audience: Audience = Audience.ORGANISERS) -> Path:
    """Write the report of a results folder and return its front page (the standings).

    Args:
        folder: `results/NAME` (or its tournament.sqlite); only read.
        out: the report's folder (default: `report/` inside the results folder).
        audience: who may read it (`Audience`): organisers (every view and log) by default; a public
            copy shows each session once, as a spectator saw it or with every hand, and no logs.

    Raises:
        ReportError: the folder holds no results to report, or the report cannot be written.
        StorageError: its results file cannot be read.
    """
    results = load_results(folder)
    bots = {row.name: bot_page(row.name) for row in results.standings.rows}
    site = Site(out if out is not None else results.folder / "report", title=results.tournament.name,
                context={"bot_pages": bots, "replay_pages": {}})
    site.copy_assets()
    write_replays(site, tournament_sessions(results.folder, results.sessions), audience=audience)
    # The other pages link each session to its replay page where one was written.
    written = set(site.written)
    site.context["replay_pages"] = {record.id: session_page(record.id) for record in results.sessions
                                    if session_page(record.id) in written}
    pairs = pair_records(results.finished)
    _crosstable_page(site, results, pairs)
    _sessions_page(site, results)
    for row in results.standings.rows:
        _bot_page(site, results, row, pairs, written, audience)
    return _standings_page(site, results)


# --- the standings -------------------------------------------------------------------------------

def _standings_page(site: Site, results: Results) -> Path:
    standings = results.standings
    book = results.folder / BOOK_NAME
    bound = results.tournament.value_function  # the results file's: a standings.json from before named the code's
    verify = None if standings.secret is None else commitment_check(standings.secret, bound,
                                                                    book if book.is_file() else None)
    intervals = interval_chart([(row.name, row.rating, row.ci_low, row.ci_high) for row in standings.rows],
                               axis_label="Rating (Elo)", reference=1500.0)
    progress = rating_progress(results.finished)
    names = [row.name for row in standings.rows]
    lines = line_chart(progress.sessions, [(name, progress.ratings.get(name, [])) for name in names],
                       x_label="Sessions finished", y_label="Rating (Elo)")
    table = [(size, [progress.ratings.get(name, [None] * len(progress.sessions))[index] for name in names])
             for index, size in enumerate(progress.sessions)]
    adjusted = adjusted_chip_rates(results.folder, results.sessions)
    return site.render("standings.html", "index.html", standings=standings, source=results.standings_source,
                       verify=verify, deals=book.is_file(), value_function=bound, adjusted=adjusted,
                       intervals=intervals,
                       progress=lines, progress_table=table, names=names,
                       audit=f"seka-arena replay --results {shlex.quote(str(results.folder))} "
                             f"--commitment {shlex.quote(standings.seed_commitment)}")


def commitment_check(secret: str, value_function: ValueFunction | None, book: Path | None) -> str:
    """A shell line that prints the commitment of `secret` (with the deal book `book` and the value function,
    as `arena.storage.commitment_text` joins them) for a reader to compare with the published one.

    >>> commitment_check("s3cret", None, None)
    'printf %s s3cret | sha256sum'
    >>> line = commitment_check("s3cret", ValueFunction("hindsight/1", "a" * 64), None)
    >>> line.startswith("printf 'seka-arena/2|q|%s|%s|deals|%s|%s' hindsight/1 aaaa")
    True
    >>> line.endswith(" - s3cret | sha256sum")
    True
    """
    book_hash = None if book is None else f"\"$(sha256sum < {shlex.quote(str(book))} | cut -c1-64)\""
    if value_function is not None:
        return (f"printf '{COMMITMENT_FORM}|q|%s|%s|deals|%s|%s' {shlex.quote(value_function.name)} "
                f"{value_function.sha256} {book_hash or '-'} {shlex.quote(secret)} | sha256sum")
    if book_hash is not None:
        return f"printf '%s|deals|%s' {shlex.quote(secret)} {book_hash} | sha256sum"
    return f"printf %s {shlex.quote(secret)} | sha256sum"


# --- the crosstable ------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Cell:
    record: PairRecord | None
    colour: str
    text: str
    """What the cell says in words (its title, for a pointer and a screen reader)."""


def _crosstable_page(site: Site, results: Results, pairs: Mapping[tuple[str, str], PairRecord]) -> Path:
    names = [row.name for row in results.standings.rows]
    grid = []
    for a in names:
        cells = []
        for b in names:
            record = pairs.get((a, b))
            if record is None:
                cells.append(_Cell(None, "", "same bot" if a == b else f"{a} never met {b}"))
            else:
                cells.append(_Cell(record, heat_colour(record.share),
                                   f"{a} against {b}: finished above {_score(record.score)} of {record.sessions} "
                                   f"sessions, net chips {chips_text(record.chips)}"))
        grid.append((a, cells))
    legend = [(heat_colour(share), label) for share, label in _HEAT_LEGEND]
    return site.render("crosstable.html", "crosstable.html", names=names, grid=grid, score=_score, legend=legend)


_HEAT_LEGEND = ((0.0, "lost every session"), (0.25, "a quarter"), (0.5, "even"), (0.75, "three quarters"),
                (1.0, "won every one"))
"""The heatmap's legend: the colour of a score share, and what the share means."""


def _score(score: Fraction) -> str:
    # As crosstable.csv writes it: 3, 2.5.
    return f"{float(score):g}"


# --- the sessions --------------------------------------------------------------------------------

@dataclass(frozen=True)
class _SessionRow:
    record: SessionRecord
    seats: Sequence[tuple[str, str, bool]]
    """(bot, balance or "", among the winners) by seat."""
    faults: Mapping[str, Mapping[str, int]]


def _session_rows(records: Sequence[SessionRecord]) -> list[_SessionRow]:
    rows = []
    for record in records:
        balances = record.balances or {}
        winners = set(record.winners or ())
        rows.append(_SessionRow(record, [(bot, format_amount(balances[bot]) if bot in balances else "",
                                          bot in winners) for bot in record.table], fault_counts(record)))
    return rows


def _sessions_page(site: Site, results: Results) -> Path:
    return site.render("sessions.html", "sessions.html", rows=_session_rows(results.sessions),
                       finished=len(results.finished), planned=len(results.sessions))


# --- one bot -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Opponent:
    name: str
    record: PairRecord
    los: float | None


def _bot_page(site: Site, results: Results, row: StandingRow, pairs: Mapping[tuple[str, str], PairRecord],
              written: set[str], audience: Audience) -> Path:
    played = [record for record in results.finished if row.name in record.table]
    # Where a session's replay from this bot's seat was written: what the bot could see, step by step.
    views = {record.id: page for record in results.sessions if row.name in record.table
             and (page := seat_page(record.id, record.table.index(row.name))) in written}
    opponents = [_Opponent(other.name, pairs[(row.name, other.name)], row.los.get(other.name))
                 for other in results.standings.rows if (row.name, other.name) in pairs]
    seats: list[SeatRecord] = seat_records(played, row.name)
    times = latency(played, row.name)
    return site.render("bot.html", bot_page(row.name), row=row, position=results.standings.rows.index(row) + 1,
                       sessions=_session_rows([record for record in results.sessions if row.name in record.table]),
                       opponents=opponents, seats=seats, reasons=_reasons(row.fault_reasons, audience),
                       latency=times,
                       seat_views=views,
                       latency_summary=_latency_summary(times), latency_chart=_latency_chart(times),
                       score=_score)


_REASON_WITHHELD = "not shown in a public report: the arena's reasons may quote the bot's own output"


def _reasons(reasons: Sequence[FaultReason], audience: Audience) -> list[FaultReason]:
    if audience is not Audience.ORGANISERS:  # a crash's reason quotes the bot's stderr: its author's
        kinds: dict[str, FaultReason] = {}
        for reason in reasons:
            found = kinds.get(reason.kind, FaultReason(reason.kind, _REASON_WITHHELD, 0))
            kinds[reason.kind] = dataclasses.replace(found, count=found.count + reason.count, sessions=tuple(
                dict.fromkeys((*found.sessions, *reason.sessions))))
        reasons = list(kinds.values())
    return sorted(reasons, key=lambda reason: (-reason.count, reason.kind, reason.reason))


def _latency_summary(times: Latency) -> list[tuple[str, str]]:
    def ms(value: float | None) -> str:
        return "–" if value is None else f"{value:.3g} ms"
    return [("decisions", str(times.decisions)), ("sessions with a decision", str(len(times.medians))),
            ("median of the sessions' medians", ms(percentile(times.medians, 0.5))),
            ("slowest session median", ms(max(times.medians, default=None))),
            ("median of the sessions' 99th percentiles", ms(percentile(times.p99s, 0.5))),
            ("slowest decision", ms(times.worst))]


def _latency_chart(times: Latency) -> Histogram | None:
    if not times.medians:
        return None
    return histogram(times.medians, x_label="Median decision time in a session (ms)", y_label="Sessions",
                     unit=" ms")
