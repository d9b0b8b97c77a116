"""Classic incremental Elo in session order, kept for comparison with the Bradley–Terry fit."""

from __future__ import annotations

from collections.abc import Iterable

from ._outcome import SessionOutcome


def sequential_elo(outcomes: Iterable[SessionOutcome], *, k: float = 16, start: float = 1500) -> dict[str, float]:
    """Update Elo ratings session by session, in the order given.

    A bot enters at `start`. In a session of n bots each pair is a game scored like the
    Bradley–Terry fit (higher balance 1, equal ½), and every bot moves by
    `k / (n - 1) * sum(score - expected)` over its n - 1 opponents, with all expectations taken
    from the ratings before the session; heads-up this is the textbook Elo update. Because each
    update uses the ratings of the moment, reordering the same sessions changes the result, which
    is why the headline rating is `bradley_terry`.

    Returns:
        Ratings by bot name, in the order the bots first appeared.

    >>> sessions = [SessionOutcome(("a", "b"), (3, -3), "s1"), SessionOutcome(("b", "c"), (1, -1), "s2")]
    >>> {bot: round(r, 2) for bot, r in sequential_elo(sessions).items()}
    {'a': 1508.0, 'b': 1500.18, 'c': 1491.82}
    """
    ratings: dict[str, float] = {}
    for outcome in outcomes:
        for bot in outcome.bots:
            ratings.setdefault(bot, float(start))
        before = [ratings[bot] for bot in outcome.bots]
        n = len(outcome.bots)
        for a, bot in enumerate(outcome.bots):
            surprise = 0.0
            for b in range(n):
                if b != a:
                    expected = 1.0 / (1.0 + 10.0 ** ((before[b] - before[a]) / 400.0))
                    score = (1.0 if outcome.balances[a] > outcome.balances[b]
                             else 0.5 if outcome.balances[a] == outcome.balances[b] else 0.0)
                    surprise += score - expected
            ratings[bot] = before[a] + k / (n - 1) * surprise
    return ratings
