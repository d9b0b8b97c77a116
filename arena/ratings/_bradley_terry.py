"""The headline rating: a weighted Bradley–Terry fit on the Elo scale over pairwise finishing orders."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from ._groups import connected_groups
from ._outcome import RatingError, SessionOutcome

ELO_PER_NAT = 400 / math.log(10)
"""Elo points per unit of natural-log strength: P(a beats b) = 1 / (1 + 10 ** ((r_b - r_a) / 400))."""

DEFAULT_PRIOR_GAMES = 1.0
"""Virtual drawn games each bot plays against a virtual opponent fixed at the centre of the scale."""

# Newton stops once no strength moves by more than this (in natural-log units: about 2e-8 Elo).
_TOLERANCE = 1e-10
_MAX_ITERATIONS = 200


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


def tally_session(outcome: SessionOutcome, index: dict[str, int], tally: Tally) -> None:
    """Add one session's pairwise finishing orders to `tally`, each pair weighted 1 / (n - 1)."""
    # With n bots every bot meets n - 1 others, so this weight makes each bot's total weight per
    # session exactly 1, whatever the table size.
    seats = len(outcome.bots)
    weight = Fraction(1, seats - 1)
    half = weight / 2
    ranked = [(index[bot], balance) for bot, balance in zip(outcome.bots, outcome.balances, strict=True)]
    for a in range(seats):
        i, balance_i = ranked[a]
        for b in range(a + 1, seats):
            j, balance_j = ranked[b]
            if i > j:
                i_, j_, bi, bj = j, i, balance_j, balance_i
            else:
                i_, j_, bi, bj = i, j, balance_i, balance_j
            entry = tally.setdefault((i_, j_), [Fraction(0), Fraction(0)])
            entry[0] += weight if bi > bj else half if bi == bj else 0
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


def _sigmoid(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def _softplus(x: float) -> float:
    # log(1 + e^x) without overflow for large |x|.
    return max(x, 0.0) + math.log1p(math.exp(-abs(x)))


def _evaluate(theta: list[float], data: Comparisons, prior: float
              ) -> tuple[float, list[float], list[list[float]]]:
    # The log-posterior, its gradient, and the negated Hessian (a weighted graph Laplacian plus
    # the prior's diagonal), in one pass over the pairs.
    k = len(theta)
    grad = [0.0] * k
    info = [[0.0] * k for _ in range(k)]
    loglik = 0.0
    if prior:
        for i, t in enumerate(theta):
            s = _sigmoid(t)
            loglik += prior * (0.5 * t - _softplus(t))
            grad[i] = prior * (0.5 - s)
            info[i][i] = prior * s * (1.0 - s)
    for i, j, w, n in zip(data.first, data.second, data.scores, data.games, strict=True):
        d = theta[i] - theta[j]
        s = _sigmoid(d)
        loglik += w * d - n * _softplus(d)
        r = w - n * s
        grad[i] += r
        grad[j] -= r
        c = n * s * (1.0 - s)
        row_i, row_j = info[i], info[j]
        row_i[i] += c
        row_j[j] += c
        row_i[j] -= c
        row_j[i] -= c
    return loglik, grad, info


def _solve_positive_definite(matrix: list[list[float]], rhs: list[float]) -> list[float]:
    # Cholesky: the negated Hessian is symmetric positive definite once the gauge is fixed.
    n = len(rhs)
    low = [[0.0] * n for _ in range(n)]
    for i in range(n):
        row_i = low[i]
        for j in range(i + 1):
            row_j = low[j]
            s = matrix[i][j]
            for m in range(j):
                s -= row_i[m] * row_j[m]
            if i == j:
                if s <= 0.0:
                    raise RatingError("the rating equations are singular (a bot without comparisons?)")
                row_i[i] = math.sqrt(s)
            else:
                row_i[j] = s / row_j[j]
    y = [0.0] * n
    for i in range(n):
        s = rhs[i]
        row = low[i]
        for m in range(i):
            s -= row[m] * y[m]
        y[i] = s / row[i]
    x = [0.0] * n
    for i in range(n - 1, -1, -1):
        s = y[i]
        for m in range(i + 1, n):
            s -= low[m][i] * x[m]
        x[i] = s / low[i][i]
    return x


def fit_strengths(data: Comparisons, *, prior_games: float = DEFAULT_PRIOR_GAMES,
                  start: Sequence[float] | None = None) -> list[float]:
    """Maximise the (penalised) log-likelihood by damped Newton steps; strengths in natural-log units.

    The caller checks connectivity (and, without a prior, strong connectivity) first.
    """
    k = len(data.bots)
    theta = list(start) if start is not None else [0.0] * k
    # With a prior the virtual opponent pins the scale; without one, bot 0 is held still and the
    # others move relative to it (the likelihood only sees differences).
    free = 0 if prior_games > 0 else 1
    loglik, grad, info = _evaluate(theta, data, prior_games)
    for _ in range(_MAX_ITERATIONS):
        if free == k:
            return theta
        reduced = [row[free:] for row in info[free:]]
        step = [0.0] * free + _solve_positive_definite(reduced, grad[free:])
        scale = 1.0
        while True:
            candidate = [t + scale * s for t, s in zip(theta, step, strict=True)]
            new_loglik, new_grad, new_info = _evaluate(candidate, data, prior_games)
            # Allow for rounding: near the optimum the log-likelihood is flat to machine precision.
            if new_loglik >= loglik - 1e-12 * (1.0 + abs(loglik)):
                break
            scale /= 2.0
            if scale < 1e-12:
                raise RatingError("the Bradley-Terry fit did not converge")
        theta, loglik, grad, info = candidate, new_loglik, new_grad, new_info
        if max(abs(scale * s) for s in step) < _TOLERANCE:
            return theta
    raise RatingError("the Bradley-Terry fit did not converge")


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
