"""What the ladder's results say of a bot, of each of its versions and of an author: the numbers the
bot and author pages show, read from a bounded number of recent sessions (no page reads them all)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from ..engine import Amount
from ..storage import FaultReason
from ._board import LeaderRow
from ._store import BotRecord, LadderSession, ServiceStore, VersionRecord

RECENT_SESSIONS = 50
"""How many of a bot's (or a version's) newest ladder sessions its results are taken over."""
NOT_RECORDED = "not recorded"
"""The kind shown for faults of sessions played before their kinds and reasons were stored."""


@dataclass(frozen=True)
class Standing:
    """A bot's place on the leaderboard, as its page shows it."""

    rank: int | None
    """Its place among the rated bots (1 is best), or None while unrated."""
    of: int
    """How many bots are rated."""
    row: LeaderRow


@dataclass(frozen=True)
class SessionResult:
    """What one ladder session gave the bot: its balance, whether it was among the winners, its faults."""

    version: int
    """The id of the version that sat at the table."""
    balance: Amount
    won: bool
    faults: int
    reasons: tuple[FaultReason, ...] | None
    """Its faults with the arena's reasons, or None when the session did not record them."""


@dataclass(frozen=True)
class Summary:
    """A bot's (or a version's) results over some sessions."""

    sessions: int
    won: int
    """Sessions it ended with the highest balance, shared or not."""
    chip_rate: Fraction
    """Its mean balance per session."""
    faults: int
    kinds: dict[str, int]
    """Its faults by kind, most first (`NOT_RECORDED` for those of sessions that did not record their kinds)."""
    reasons: list[FaultReason]
    """Its faults by kind and reason, summed over the sessions, most first (not for spectators: a crash's
    reason quotes the bot's stderr)."""


@dataclass(frozen=True)
class VersionResults:
    """One version with its own results."""

    version: VersionRecord
    played: int
    """Its finished ladder sessions, all of them."""
    summary: Summary | None
    """Over its newest `RECENT_SESSIONS` finished sessions; None before its first."""


@dataclass(frozen=True)
class BotOverview:
    """Everything the bot and author pages show of one bot's results."""

    bot: BotRecord
    standing: Standing | None
    sessions: list[LadderSession]
    """Its newest ladder sessions (any version, any status), newest first."""
    results: dict[str, SessionResult]
    """The finished ones' results, by session id."""
    summary: Summary | None
    versions: list[VersionResults]
    """Newest first."""


def standing_of(rows: Sequence[LeaderRow], name: str) -> Standing | None:
    """The bot's row of the board with its rank among the rated, or None when its current version is not on it."""
    rated = [row.name for row in rows if row.rated]
    row = next((row for row in rows if row.name == name), None)
    if row is None:
        return None
    return Standing(rated.index(name) + 1 if name in rated else None, len(rated), row)


def bot_results(sessions: Sequence[LadderSession], versions: set[int]) -> dict[str, SessionResult]:
    """Each finished session's result for the seat one of `versions` held (winners: every highest balance)."""
    results = {}
    for session in sessions:
        seats = [seat for seat, version in enumerate(session.seating) if version in versions]
        if session.balances is None or not seats:
            continue
        seat = seats[0]
        results[session.id] = SessionResult(
            session.seating[seat], session.balances[seat], session.balances[seat] == max(session.balances),
            session.faults[seat] if session.faults else 0,
            session.fault_reasons[seat] if session.fault_reasons else None)
    return results


def results_summary(results: Iterable[SessionResult]) -> Summary | None:
    """Sessions, wins, the mean balance (chip rate) and faults over `results`, or None when there are none."""
    shown = list(results)
    if not shown:
        return None
    kinds: Counter[str] = Counter()
    reasons: Counter[tuple[str, str]] = Counter()
    for result in shown:
        if result.reasons is None:
            kinds[NOT_RECORDED] += result.faults
            continue
        for reason in result.reasons:
            kinds[reason.kind] += reason.count
            reasons[reason.kind, reason.reason] += reason.count
    return Summary(len(shown), sum(result.won for result in shown),
                   Fraction(sum((result.balance for result in shown), Fraction(0)), len(shown)),
                   sum(result.faults for result in shown),
                   {kind: count for kind, count in sorted(kinds.items(), key=lambda item: (-item[1], item[0]))
                    if count},
                   [FaultReason(kind, reason, count) for (kind, reason), count
                    in sorted(reasons.items(), key=lambda item: (-item[1], item[0]))])


def winners(session: LadderSession, labels: dict[int, str]) -> list[str]:
    """The labels of the versions that ended a finished session with the highest balance (none while unfinished)."""
    if session.balances is None:
        return []
    best = max(session.balances)
    return [labels[version] for version, balance in zip(session.seating, session.balances, strict=True)
            if balance == best]


def bot_overview(store: ServiceStore, rows: Sequence[LeaderRow], bot: BotRecord) -> BotOverview:
    """The bot's standing, its results over its newest sessions, and each version's own."""
    versions = store.versions(bot.name)
    ids = [version.id for version in versions]
    sessions = store.sessions_of(ids, newest=RECENT_SESSIONS)
    results = bot_results(sessions, set(ids))
    played = store.sessions_played(ids)
    return BotOverview(bot, standing_of(rows, bot.name), sessions, results, results_summary(results.values()), [
        VersionResults(version, played.get(version.id, 0), results_summary(
            bot_results(store.sessions_of([version.id], newest=RECENT_SESSIONS), {version.id}).values()))
        for version in reversed(versions)])
