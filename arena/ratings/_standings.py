"""The standings table: every rating and record of a bot in one row, best first."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction

from ._bootstrap import bootstrap
from ._bradley_terry import DEFAULT_PRIOR_GAMES
from ._chips import chip_rate
from ._outcome import SessionOutcome
from ._sequential import sequential_elo


@dataclass(frozen=True)
class Standing:
    """One bot's row of the standings."""

    name: str
    """The bot."""
    rating: float
    """Bradley–Terry rating (the headline Elo)."""
    ci_low: float
    """Lower end of the rating's bootstrap interval."""
    ci_high: float
    """Upper end of the rating's bootstrap interval."""
    rank_low: int
    """Best rank within the bootstrap interval (1 = best)."""
    rank_high: int
    """Worst rank within the bootstrap interval."""
    sessions: int
    """Sessions played."""
    wins: int
    """Sessions with the highest balance, shared top places included."""
    win_share: Fraction
    """Sessions won, a top place shared by k bots counting 1/k."""
    chip_rate: Fraction
    """Average balance per session relative to the table."""
    chip_ci_low: float
    """Lower end of the chip rate's bootstrap interval."""
    chip_ci_high: float
    """Upper end of the chip rate's bootstrap interval."""
    faults: int
    """Faults over all sessions."""
    sequential_elo: float
    """Incremental Elo in session order, for comparison only."""
    los: Mapping[str, float]
    """Likelihood of superiority over each bot (the row of the LOS matrix)."""


def standings(outcomes: Iterable[SessionOutcome], *, anchor: str | None = None, resamples: int = 1000,
              rng_seed: int = 0, confidence: float = 0.95, mean: float = 1500.0,
              prior_games: float = DEFAULT_PRIOR_GAMES, k: float = 16) -> list[Standing]:
    """Rate every bot and gather its row, best rating first (ties by name).

    The rating and chip-rate intervals both resample duplicate blocks from `rng_seed`. The LOS
    matrix is `{row.name: row.los for row in rows}`; `sequential_elo` follows the given order.

    >>> sessions = [SessionOutcome(("a", "b", "c"), (4, -1, -3), f"s{i}") for i in range(3)]
    >>> sessions.append(SessionOutcome(("a", "b", "c"), (-2, 3, -1), "s3"))
    >>> rows = standings(sessions, resamples=200)
    >>> for row in rows:
    ...     print(row.name, round(row.rating), (row.rank_low, row.rank_high), row.wins, row.chip_rate)
    a 1615 (1, 3) 3 5/2
    b 1558 (1, 2) 1 0
    c 1326 (2, 3) 0 -5/2
    """
    outcomes = list(outcomes)
    fitted = bootstrap(outcomes, resamples=resamples, rng_seed=rng_seed, confidence=confidence,
                       anchor=anchor, mean=mean, prior_games=prior_games)
    chips = chip_rate(outcomes, resamples=resamples, rng_seed=rng_seed, confidence=confidence)
    incremental = sequential_elo(outcomes, k=k, start=mean)
    rows = []
    for name, rating in fitted.ratings.items():
        low, high = fitted.intervals[name]
        rank_low, rank_high = fitted.rank_intervals[name]
        record = chips[name]
        rows.append(Standing(name=name, rating=rating, ci_low=low, ci_high=high, rank_low=rank_low,
                             rank_high=rank_high, sessions=record.sessions, wins=record.wins,
                             win_share=record.win_share, chip_rate=record.chip_rate,
                             chip_ci_low=record.ci_low, chip_ci_high=record.ci_high, faults=record.faults,
                             sequential_elo=incremental[name], los=fitted.los[name]))
    rows.sort(key=lambda row: (-row.rating, row.name))
    return rows
