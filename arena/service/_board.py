"""The leaderboard: the current versions' ratings, fitted in a worker process, read by requests as they are.

Theory of operation: a request never fits the ratings nor reads the ladder's sessions: it reads who
plays now and the last fit (`Board.rows`), a few rows of the store. The fit (Bradley-Terry with
block-bootstrap intervals over every finished session, `fit_ladder`) reads no finished block's
sessions: the store tallies each finished block's kind (its pairwise results) as its last result
lands, so a fit reads the kinds with their counts and the finished sessions of the blocks still in
play, and its time and memory grow with the kinds of block, not the sessions (docs/ratings.md).
It is still seconds of numpy, and a Python process runs one thread at a time: in the service's
process it would hold up the event loop that answers requests and plays the ladder. So `Board.run`
keeps a worker process (`python -m arena.service._board_worker STORE`, its numpy on one thread:
`ONE_THREAD_ENV`) that opens the store read-only and fits on demand, whenever the ladder's
generation (its count of finished sessions, kept in the store as results land, and who plays now)
has moved past the last fit's; a fit starts at most `_DUTY` times its own duration after the last
one began, so the worker is idle most of the time however fast results land. Until the first fit
every current version is listed unrated, as being rated; after it, the board lags the ladder by at most a few fits.
"""

from __future__ import annotations

import json
import logging
import math
import os
import sys
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import trio

from ..ratings import ONE_THREAD_ENV, BlockTally, RatingError, SessionOutcome, bootstrap_blocks, connected_groups
from ..storage import StorageError
from ._store import LadderSnapshot, ServiceStore, VersionRecord, note_damaged
from ._worker_process import LineWorker

LOGGER = logging.getLogger(__name__)
_LEADERBOARD_RESAMPLES = 400
_FIT_SECONDS = 1800.0
"""A fit's deadline: past it the worker is stopped, and a new one started for the next fit."""
_MIN_INTERVAL = 1.0
_DUTY = 4.0
"""A fit starts no sooner than this many times the last fit's duration after the last one began."""
_POLL = 2.0
"""Seconds between two looks at the ladder's generation: its results land in another process
(`_ladder_process`), which wakes nothing here."""

PLACEMENT = "in placement: no ladder session played yet"
"""Why a version that has not played is unrated."""
NOT_COMPARED = "not yet compared with the leading group: its sessions never met the rated bots"
"""Why a version that played is unrated when the ladder's comparison graph is split."""
BEING_RATED = "being rated: the ratings are being computed"
"""Why every version is unrated until the first fit."""

Key = tuple[int, tuple[int, ...]]
"""A fit's generation: the ladder's finished sessions and the current versions' ids."""


@dataclass(frozen=True)
class LeaderRow:
    """One bot's row of the leaderboard: its current version's rating over every session it played,
    or why it has none (`unrated`)."""

    name: str
    version: int
    rating: float
    ci_low: float
    ci_high: float
    sessions: int
    unrated: str | None = None
    """Why the version has no rating (then `rating` and the interval mean nothing); None when rated."""

    @property
    def rated(self) -> bool:
        return self.unrated is None

    def as_json(self) -> dict[str, Any]:
        return {"name": self.name, "version": self.version,
                "rating": round(self.rating, 1) if self.rated else None,
                "ci_low": round(self.ci_low, 1) if self.rated else None,
                "ci_high": round(self.ci_high, 1) if self.rated else None, "sessions": self.sessions,
                "unrated": self.unrated}


@dataclass(frozen=True)
class Fit:
    """The ratings of one generation of the ladder (players named by version id, as text)."""

    finished: int
    """Finished sessions when it was fitted."""
    current: tuple[int, ...]
    """The current versions' ids when it was fitted."""
    rated: Mapping[str, tuple[float, float, float]]
    """Rating, interval low and high of each player of the leading group."""
    played: Mapping[str, int]
    """Sessions each player played."""
    leading: tuple[str, ...]
    """The group rated (`main_group`)."""
    error: str | None
    """Why the leading group could not be rated (the fit's `RatingError`), else None."""
    damaged: tuple[tuple[str, str], ...] = ()
    """The finished sessions left out because their stored values are damaged: id and problem."""

    @property
    def key(self) -> Key:
        return self.finished, self.current


def main_group(groups: list[tuple[str, ...]], current: Mapping[str, str], sessions: Counter[frozenset[str]]
               ) -> tuple[str, ...]:
    """The group the leaderboard rates: the one holding the most current versions, then the one with
    the most sessions, then the first by its current versions' bot names (`current` maps each current
    player to its bot's name; `sessions` counts the sessions of each set of players).

    Most current versions first because the board shows current versions: rating that group leaves
    the fewest of them unrated. When two groups hold as many (two newcomers placed against each other
    beside two established bots), the one with more sessions is the established ladder, whose
    ratings are the better measured; names only make the choice deterministic.
    """
    def played(group: tuple[str, ...]) -> int:
        members = set(group)
        return sum(count for seated, count in sessions.items() if seated <= members)

    def names(group: tuple[str, ...]) -> list[str]:
        return sorted(current[player] for player in group if player in current)

    return min(groups, key=lambda group: (-len(names(group)), -played(group), names(group)))


def fit_ladder(snapshot: LadderSnapshot, *, resamples: int) -> Fit:
    """Rate the ladder's finished sessions: the main group (`main_group`) over its own sessions.

    The sessions come as the snapshot holds them: the finished blocks as kinds with their counts, and
    the finished sessions of the blocks still in play, tallied here; the fit is the same as over every
    session (`bootstrap` tallies its sessions the same way). Ratings are comparable only within a
    connected group of the comparison graph, so when the ladder is split (newcomers placed against each
    other, before a block links them to the rest) only the main group is rated. With the leaderboard's
    prior the bootstrap can still raise `RatingError` when the fit does not converge: then the error is
    kept, and nobody is rated.
    """
    tally = BlockTally()
    for kind, count in snapshot.kinds:
        tally.add_kind(kind, count)
    for session in snapshot.sessions:
        tally.add(SessionOutcome(tuple(str(seat) for seat in session.seating), tuple(session.balances or ()),
                                 f"b{session.block}"))
    kinds = tally.kinds()
    played: Counter[str] = Counter()
    seated: Counter[frozenset[str]] = Counter()
    for kind, count in kinds.items():
        weights: dict[str, Fraction] = {}
        for a, b, _, weight in kind:  # a session's pairs weigh 1 / (seats - 1): 1 per bot and session
            weights[a] = weights.get(a, Fraction(0)) + weight
            weights[b] = weights.get(b, Fraction(0)) + weight
        played.update({bot: int(weight) * count for bot, weight in weights.items()})
        # Each of a session's n (n - 1) / 2 pairs (weight w = 1 / (n - 1)) is 2 w / n of the session.
        seated[frozenset(weights)] += int(sum(2 * weight / (1 / weight + 1) for _, _, _, weight in kind)) * count
    bots = sorted(played)
    index = {bot: i for i, bot in enumerate(bots)}
    groups = connected_groups(bots, ((index[a], index[b]) for kind in kinds for a, b, _, _ in kind))
    rated: dict[str, tuple[float, float, float]] = {}
    leading: tuple[str, ...] = ()
    error: str | None = None
    if groups:
        current = {str(version.id): version.bot for version in snapshot.current}
        leading = main_group(groups, current, seated)
        members = set(leading)
        group = BlockTally()
        for kind, count in kinds.items():
            if kind[0][0] in members:  # a block lies in one group
                group.add_kind(kind, count)
        try:
            fitted = bootstrap_blocks(group, resamples=resamples)
        except RatingError as failure:
            error = str(failure)
        else:
            rated = {bot: (rating, *fitted.intervals[bot]) for bot, rating in fitted.ratings.items()}
    return Fit(snapshot.finished, tuple(version.id for version in snapshot.current), rated, dict(played), leading,
               error, snapshot.damaged)


def leader_rows(fit: Fit | None, current: Sequence[VersionRecord]) -> list[LeaderRow]:
    """The board: every current version, rated best first, then the unrated, those that played first, by
    name; a version the fit does not rate says why."""
    rows: list[LeaderRow] = []
    for version in current:
        key = str(version.id)
        if fit is None:
            rows.append(LeaderRow(version.bot, version.number, math.nan, math.nan, math.nan, 0, unrated=BEING_RATED))
        elif (rating := fit.rated.get(key)) is not None:
            rows.append(LeaderRow(version.bot, version.number, *rating, fit.played[key]))
        else:
            played = fit.played.get(key, 0)
            reason = (PLACEMENT if not played else NOT_COMPARED if key not in fit.leading
                      else f"not rated: the ratings could not be computed ({fit.error})")
            rows.append(LeaderRow(version.bot, version.number, math.nan, math.nan, math.nan, played, unrated=reason))
    rows.sort(key=lambda row: (not row.rated, -row.rating if row.rated else -row.sessions, row.name))
    return rows


class Board:
    """The last fit and the worker process that makes the next (see the module's docstring)."""

    def __init__(self, store: ServiceStore, *, changed: Callable[[], trio.Event]) -> None:
        self.store = store
        self.fit: Fit | None = None
        """The last fit, or None before the first."""
        self._changed = changed
        self._worker = LineWorker("arena.service._board_worker", store.path, what="the leaderboard",
                                  env={**os.environ, **ONE_THREAD_ENV})
        self._lock = trio.Lock()
        self._logged: str | None = None  # the last error logged: each is logged once, not at every fit

    def key(self) -> Key:
        """The ladder's generation now (two small queries)."""
        return self.store.finished_ladder_sessions(), tuple(version.id for version in self.store.current_versions())

    def rows(self) -> list[LeaderRow]:
        """The board as of the last fit, over the versions that play now (never waits for a fit)."""
        return leader_rows(self.fit, self.store.current_versions())

    async def refresh(self) -> Fit:
        """Fit now, in the worker process (started if need be), and keep the fit.

        Raises:
            StorageError: the worker could not read the store, or died.
        """
        async with self._lock:
            try:
                with trio.fail_after(_FIT_SECONDS):
                    answer = json.loads(await self._worker.ask(str(_LEADERBOARD_RESAMPLES).encode()))
            except BaseException:
                await self._worker.aclose()  # it may be half-way through a fit: the next one starts afresh
                raise
        if "problem" in answer:
            raise StorageError(answer["problem"])
        rated = {bot: tuple(row) for bot, row in answer["rated"].items()}
        fit = Fit(answer["finished"], tuple(answer["current"]), rated, answer["played"], tuple(answer["leading"]),
                  answer["error"], tuple((session, problem) for session, problem in answer["damaged"]))
        for session, problem in fit.damaged:  # left out of the fit: said once, here rather than by the worker
            note_damaged(session, problem)
        if fit.error is not None:
            self._log_once(f"the leaderboard shows every bot unrated: {fit.error}")
        else:
            self._logged = None
        self.fit = fit
        return fit

    async def run(self) -> None:
        """Fit whenever the ladder's generation moves past the last fit's (paced by `_DUTY`), until cancelled."""
        next_at = -math.inf
        try:
            while True:
                changed = self._changed()  # taken before the key is read: no change is missed
                if self.fit is None or self.fit.key != self.key():
                    await trio.sleep_until(next_at)
                    began = trio.current_time()
                    try:
                        await self.refresh()
                    except (StorageError, OSError, ValueError, trio.TooSlowError) as error:  # logged once; tried later
                        self._log_once(f"the leaderboard's fit failed: {error}")
                    next_at = began + max(_MIN_INTERVAL, _DUTY * (trio.current_time() - began))
                    continue
                with trio.move_on_after(_POLL):
                    await changed.wait()
        finally:
            with trio.CancelScope(shield=True):
                await self._worker.aclose()

    async def aclose(self) -> None:
        """Stop the worker, if one runs (the next fit starts another)."""
        await self._worker.aclose()

    def _log_once(self, message: str) -> None:
        if message != self._logged:
            LOGGER.error("%s", message)
            self._logged = message


def work(store_path: Path) -> None:
    """The worker: for each line of stdin (the resamples), one fit of the store's ladder as a JSON line on stdout."""
    store: ServiceStore | None = None
    for line in sys.stdin:
        try:
            store = store or ServiceStore.open_reader(store_path)
            answer: dict[str, Any] = asdict(fit_ladder(store.ladder_snapshot(), resamples=int(line)))
        except (StorageError, ValueError) as error:  # a store it cannot read: said, not a traceback
            answer = {"problem": str(error)}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
