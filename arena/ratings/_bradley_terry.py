"""The headline rating: a weighted Bradley–Terry fit on the Elo scale over pairwise finishing orders."""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ._groups import connected_groups
from ._newton import PairIndex, fit_batch
from ._outcome import RatingError, SessionOutcome

ELO_PER_NAT = 400 / math.log(10)
"""Elo points per unit of natural-log strength: P(a beats b) = 1 / (1 + 10 ** ((r_b - r_a) / 400))."""

DEFAULT_PRIOR_GAMES = 1.0
"""Virtual drawn games each bot plays against a virtual opponent fixed at the centre of the scale."""


@dataclass(frozen=True)
class Comparisons:
    """Weighted pairwise results, the sufficient statistics of the fit.

    Pair `p` compares bots `first[p] < second[p]` (indices into `bots`); `games[p]` is its total
    weight and `scores[p]` the part of it that `first[p]` won (draws count half).
    """

    bots: tuple[str, ...]
    first: tuple[int, ...]
    second: tuple[int, ...]
    scores: tuple[float, ...]
    games: tuple[float, ...]


# Exact weighted tallies, keyed by a pair of bot indices (i < j): [score of i, games].
Tally = dict[tuple[int, int], list[Fraction]]


_ZERO = Fraction(0)


@functools.cache
def _weights(seats: int) -> tuple[Fraction, Fraction]:
    # A session's pairwise results are a few shared objects, made once per table size.
    return Fraction(1, seats - 1), Fraction(1, 2 * seats - 2)


def pairwise(outcome: SessionOutcome) -> Iterator[tuple[str, str, Fraction, Fraction]]:
    """Each pair `(a, b)` of a session's bots, `a < b`: a's score against b and the pair's weight 1 / (n - 1)."""
    # With n bots every bot meets n - 1 others, so this weight makes each bot's total weight per
    # session exactly 1, whatever the table size.
    seats = len(outcome.bots)
    weight, half = _weights(seats)
    for x in range(seats):
        a, balance_a = outcome.bots[x], outcome.balances[x]
        for y in range(x + 1, seats):
            b, balance_b = outcome.bots[y], outcome.balances[y]
            if b < a:
                a_, b_, ba, bb = b, a, balance_b, balance_a
            else:
                a_, b_, ba, bb = a, b, balance_a, balance_b
            yield a_, b_, (weight if ba > bb else half if ba == bb else _ZERO), weight


def tally_session(outcome: SessionOutcome, index: dict[str, int], tally: Tally) -> None:
    """Add one session's pairwise finishing orders to `tally` (`index` numbers the bots in name order)."""
    for a, b, score, weight in pairwise(outcome):
        entry = tally.setdefault((index[a], index[b]), [Fraction(0), Fraction(0)])
        entry[0] += score
        entry[1] += weight


def bot_names(outcomes: Iterable[SessionOutcome]) -> tuple[str, ...]:
    names = sorted({bot for outcome in outcomes for bot in outcome.bots})
    if not names:
        raise RatingError("no sessions to rate")
    return tuple(names)


def comparisons_from_tally(bots: tuple[str, ...], tally: Tally) -> Comparisons:
    pairs = sorted(tally)
    return Comparisons(bots, tuple(i for i, _ in pairs), tuple(j for _, j in pairs),
                       tuple(float(tally[pair][0]) for pair in pairs),
                       tuple(float(tally[pair][1]) for pair in pairs))


def verify_connected(data: Comparisons) -> None:
    """Raise `RatingError` unless every bot is linked to every other through played pairs."""
    links = ((i, j) for i, j, games in zip(data.first, data.second, data.games, strict=True) if games > 0)
    groups = connected_groups(data.bots, links)
    if len(groups) > 1:
        listed = "; ".join(", ".join(group) for group in groups)
        raise RatingError(f"the comparison graph is split into {len(groups)} groups that never met, "
                          f"so their ratings cannot be compared (comparison_groups splits them): {listed}")


def is_strongly_connected(data: Comparisons) -> bool:
    """Whether every bot both beat (or drew) and lost to (or drew) its way to every other bot.

    Without a prior this is exactly when the maximum-likelihood ratings are finite (Ford 1957)."""
    k = len(data.bots)
    forward: list[list[int]] = [[] for _ in range(k)]
    backward: list[list[int]] = [[] for _ in range(k)]
    for i, j, score, games in zip(data.first, data.second, data.scores, data.games, strict=True):
        if score > 0:  # i took something from j
            forward[i].append(j)
            backward[j].append(i)
        if games - score > 0:
            forward[j].append(i)
            backward[i].append(j)
    for edges in (forward, backward):
        seen = {0}
        todo = [0]
        while todo:
            for nxt in edges[todo.pop()]:
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        if len(seen) < k:
            return False
    return True


def fit_strengths(data: Comparisons, *, prior_games: float = DEFAULT_PRIOR_GAMES,
                  start: Sequence[float] | None = None) -> list[float]:
    """Maximise the (penalised) log-likelihood by damped Newton steps; strengths in natural-log units.

    The caller checks connectivity (and, without a prior, strong connectivity) first.
    """
    k = len(data.bots)
    begin = np.zeros((1, k)) if start is None else np.array([start], dtype=np.float64)
    theta = fit_batch(PairIndex.of(data.first, data.second, k), np.array([data.scores], dtype=np.float64),
                      np.array([data.games], dtype=np.float64), prior_games=prior_games, start=begin)
    return [float(t) for t in theta[0]]


def to_elo(theta: Sequence[float], bots: Sequence[str], *, anchor: str | None, mean: float) -> list[float]:
    """Convert strengths to Elo points and shift them so the anchor, or else the mean, is `mean`."""
    elo = [t * ELO_PER_NAT for t in theta]
    if anchor is None:
        shift = mean - math.fsum(elo) / len(elo)
    else:
        shift = mean - elo[list(bots).index(anchor)]
    return [r + shift for r in elo]


def verify_options(bots: Sequence[str], *, anchor: str | None, prior_games: float) -> None:
    if anchor is not None and anchor not in bots:
        raise RatingError(f"the anchor {anchor!r} played no session; bots are {', '.join(bots)}")
    if not (prior_games >= 0 and math.isfinite(prior_games)):
        raise RatingError(f"prior_games must be a finite number >= 0, not {prior_games!r}")


def fit_comparisons(data: Comparisons, *, prior_games: float) -> list[float]:
    """Check the comparison graph, then fit; strengths in natural-log units by bot index."""
    verify_connected(data)
    if prior_games == 0 and not is_strongly_connected(data):
        raise RatingError("without a prior some bot won or lost every comparison against a group of "
                          "others, so its maximum-likelihood rating is infinite; use prior_games > 0")
    return fit_strengths(data, prior_games=prior_games)


PairResults = Mapping[tuple[str, str], tuple[Fraction, Fraction]]
"""Per pair of bots `(a, b)` with `a < b`: a's weighted score against b and their weighted games,
exact (`pair_results`): all the Bradley-Terry fit needs, and small enough to keep as results land."""


def pair_results(outcomes: Iterable[SessionOutcome]) -> dict[tuple[str, str], tuple[Fraction, Fraction]]:
    """Every pair's score and games over `outcomes`, weighted as `bradley_terry` weighs them.

    >>> pair_results([SessionOutcome(("b", "a", "c"), (2, -1, -1), "s1")])[("a", "c")]
    (Fraction(1, 4), Fraction(1, 2))
    """
    outcomes = list(outcomes)
    bots = sorted({bot for outcome in outcomes for bot in outcome.bots})
    index = {bot: i for i, bot in enumerate(bots)}
    tally: Tally = {}
    for outcome in outcomes:
        tally_session(outcome, index, tally)
    return {(bots[i], bots[j]): (score, games) for (i, j), (score, games) in tally.items()}


def bradley_terry_pairs(pairs: PairResults, *, anchor: str | None = None, mean: float = 1500.0,
                        prior_games: float = DEFAULT_PRIOR_GAMES) -> dict[str, float]:
    """`bradley_terry` of the sessions whose `pair_results` are `pairs` (the same ratings, to the bit).

    >>> sessions = [SessionOutcome(("a", "b"), (5, -5), "s1"), SessionOutcome(("a", "b", "c"), (1, 1, -2), "s2")]
    >>> bradley_terry_pairs(pair_results(sessions)) == bradley_terry(sessions)
    True
    """
    bots = tuple(sorted({bot for pair in pairs for bot in pair}))
    if not bots:
        raise RatingError("no sessions to rate")
    index = {bot: i for i, bot in enumerate(bots)}
    tally: Tally = {}
    for (a, b), (score, games) in pairs.items():
        if not a < b:
            raise RatingError(f"a pair names its bots in order, not {(a, b)!r}")
        tally[(index[a], index[b])] = [score, games]
    data = comparisons_from_tally(bots, tally)
    verify_options(data.bots, anchor=anchor, prior_games=prior_games)
    theta = fit_comparisons(data, prior_games=prior_games)
    return dict(zip(data.bots, to_elo(theta, data.bots, anchor=anchor, mean=mean), strict=True))


def bradley_terry(outcomes: Iterable[SessionOutcome], *, anchor: str | None = None, mean: float = 1500.0,
                  prior_games: float = DEFAULT_PRIOR_GAMES) -> dict[str, float]:
    """Fit Bradley–Terry ratings on the Elo scale to the pairwise finishing orders of every session.

    Within a session of n bots, each pair is one comparison weighted 1 / (n - 1): the bot with the
    higher balance scores 1, equal balances score ½ each. Each bot also draws `prior_games` virtual
    games against a virtual opponent, which keeps the ratings finite when a bot won or lost
    everything. The fit is the exact maximum of the penalised likelihood, so the order of the
    sessions does not matter.

    Args:
        outcomes: finished sessions.
        anchor: a bot whose rating is fixed at `mean`; by default the average rating is `mean`.
        mean: the rating of the anchor, or the average rating.
        prior_games: virtual drawn games per bot; 0 gives the plain maximum-likelihood fit, which
            exists only if no group of bots won (or lost) every comparison with the rest.

    Returns:
        Ratings by bot name, in name order.

    Raises:
        RatingError: no sessions, an anchor that did not play, bots split into groups that never
            met, or (with `prior_games=0`) a bot whose maximum-likelihood rating is infinite.

    >>> sessions = [SessionOutcome(("a", "b"), (5, -5), "s1"), SessionOutcome(("b", "a"), (-2, 2), "s2"),
    ...             SessionOutcome(("a", "b"), (-1, 1), "s3"), SessionOutcome(("a", "b", "c"), (1, 1, -2), "s4")]
    >>> {bot: round(r, 1) for bot, r in bradley_terry(sessions).items()}
    {'a': 1620.0, 'b': 1534.7, 'c': 1345.3}
    >>> {bot: round(r, 1) for bot, r in bradley_terry(sessions, anchor="c", mean=0).items()}
    {'a': 274.7, 'b': 189.4, 'c': 0.0}
    """
    return bradley_terry_pairs(pair_results(outcomes), anchor=anchor, mean=mean, prior_games=prior_games)
