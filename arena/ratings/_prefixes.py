"""Ratings as sessions accumulate: the Bradley–Terry fit of growing prefixes of the sessions, tallied once."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ._bradley_terry import (
    DEFAULT_PRIOR_GAMES,
    Tally,
    bot_names,
    comparisons_from_tally,
    fit_comparisons,
    tally_session,
    to_elo,
    verify_options,
)
from ._outcome import RatingError, SessionOutcome


def prefix_ratings(outcomes: Sequence[SessionOutcome], sizes: Iterable[int], *, mean: float = 1500.0,
                   prior_games: float = DEFAULT_PRIOR_GAMES) -> list[dict[str, float] | None]:
    """For each n in `sizes` (increasing), the ratings `bradley_terry(outcomes[:n])` gives, bit for bit.

    The sessions are tallied once, in order, as the prefixes grow, so the cost is one tally of every
    session and one fit per size (a fit per prefix from scratch would tally the first sessions
    again for every size). A prefix whose bots fall into groups that never met has no ratings
    that compare them: its entry is None.

    Raises:
        RatingError: sizes that do not increase or fall outside 1..len(outcomes), or a bad `prior_games`.

    >>> sessions = [SessionOutcome(("a", "b"), (5, -5), "s1"), SessionOutcome(("c", "d"), (1, -1), "s2"),
    ...             SessionOutcome(("b", "c"), (2, -2), "s3"), SessionOutcome(("a", "c"), (-1, 1), "s4")]
    >>> from arena.ratings import bradley_terry
    >>> prefix_ratings(sessions, [1, 2, 4]) == [bradley_terry(sessions[:1]), None, bradley_terry(sessions)]
    True
    """
    sizes = list(sizes)
    if any(not 1 <= size <= len(outcomes) for size in sizes) or sizes != sorted(set(sizes)):
        raise RatingError(f"prefix sizes must increase within 1..{len(outcomes)}, not {sizes[:10]!r}")
    # Indices of every bot in name order: restricted to the bots of a prefix they keep their order,
    # so each pair's tally maps onto the pair `bradley_terry` would tally for that prefix.
    everyone = bot_names(outcomes) if outcomes else ()
    index = {bot: i for i, bot in enumerate(everyone)}
    tally: Tally = {}
    seen: set[str] = set()
    found: list[dict[str, float] | None] = []
    added = 0
    for size in sizes:
        for outcome in outcomes[added:size]:
            tally_session(outcome, index, tally)
            seen.update(outcome.bots)
        added = size
        bots = tuple(sorted(seen))
        local = {index[bot]: i for i, bot in enumerate(bots)}
        data = comparisons_from_tally(bots, {(local[i], local[j]): entry for (i, j), entry in tally.items()})
        verify_options(bots, anchor=None, prior_games=prior_games)
        try:
            theta = fit_comparisons(data, prior_games=prior_games)
        except RatingError:
            found.append(None)
            continue
        found.append(dict(zip(bots, to_elo(theta, bots, anchor=None, mean=mean), strict=True)))
    return found
