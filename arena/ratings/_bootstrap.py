"""Confidence intervals for the Bradley–Terry ratings and ranks, and the likelihood of superiority."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from operator import itemgetter, mul

from ._bradley_terry import (
    DEFAULT_PRIOR_GAMES,
    ELO_PER_NAT,
    Comparisons,
    Tally,
    _evaluate,
    _sigmoid,
    _solve_positive_definite,
    bot_names,
    comparisons_from_tally,
    fit_comparisons,
    fit_strengths,
    is_strongly_connected,
    tally_session,
    to_elo,
    verify_options,
)
from ._intervals import acceleration, bca_interval
from ._outcome import RatingError, SessionOutcome
from ._resample import group_blocks, percentile, resample_counts, verify_bootstrap_options


@dataclass(frozen=True)
class Bootstrap:
    """Ratings with bootstrap intervals over duplicate blocks."""

    ratings: Mapping[str, float]
    """The Bradley–Terry ratings of the full data, by bot name."""
    intervals: Mapping[str, tuple[float, float]]
    """Each bot's rating interval: bias-corrected and accelerated (BCa) over the resamples."""
    rank_intervals: Mapping[str, tuple[int, int]]
    """Percentile interval of each bot's rank (1 = best), widened outwards to whole ranks."""
    los: Mapping[str, Mapping[str, float]]
    """`los[a][b]`: the fraction of resamples where a is rated above b (ties count ½; `los[a][a]` is ½)."""
    resamples: int
    """How many resamples were fitted."""
    confidence: float
    """The coverage the intervals aim for."""


# Per pair, a function picking the resample counts of the blocks the pair played in, and the
# pair's score and games in each of those blocks (floats, in the same order).
_Column = tuple[Callable[[list[int]], tuple[int, ...]], tuple[float, ...], tuple[float, ...]]
# Per pair, the blocks it played in (the order of its column).
_PairBlocks = list[list[int]]


def _picker(blocks: list[int]) -> Callable[[list[int]], tuple[int, ...]]:
    # itemgetter returns a bare item, not a 1-tuple, when given a single index.
    if len(blocks) == 1:
        only = blocks[0]
        return lambda counts: (counts[only],)
    return itemgetter(*blocks)


def _block_columns(blocks: list[list[SessionOutcome]], index: dict[str, int]
                   ) -> tuple[Tally, list[tuple[int, int]], list[_Column], _PairBlocks]:
    total: Tally = {}
    per_pair: dict[tuple[int, int], list[tuple[int, Fraction, Fraction]]] = {}
    for b, block in enumerate(blocks):
        tally: Tally = {}
        for outcome in block:
            tally_session(outcome, index, tally)
        for pair, (score, games) in tally.items():
            per_pair.setdefault(pair, []).append((b, score, games))
            entry = total.setdefault(pair, [Fraction(0), Fraction(0)])
            entry[0] += score
            entry[1] += games
    pairs = sorted(total)
    pair_blocks = [[b for b, _, _ in per_pair[pair]] for pair in pairs]
    columns = [(_picker(played),
                tuple(float(score) for _, score, _ in per_pair[pair]),
                tuple(float(games) for _, _, games in per_pair[pair]))
               for pair, played in zip(pairs, pair_blocks, strict=True)]
    return total, pairs, columns, pair_blocks


def _block_influence(theta: list[float], data: Comparisons, prior_games: float, columns: list[_Column],
                     pair_blocks: _PairBlocks, blocks: int, *, anchor: int | None) -> list[list[float]]:
    # The empirical influence of each block on each reported rating (the infinitesimal jackknife):
    # the information matrix's inverse applied to the block's part of the score, in Elo after the
    # same shift as `to_elo` (so only differences between strengths count). Row b, column bot.
    k = len(theta)
    gradients = [[0.0] * k for _ in range(blocks)]
    for i, j, (_, block_scores, block_games), played in zip(data.first, data.second, columns, pair_blocks,
                                                           strict=True):
        expected = _sigmoid(theta[i] - theta[j])
        for b, score, games in zip(played, block_scores, block_games, strict=True):
            residual = score - games * expected
            gradients[b][i] += residual
            gradients[b][j] -= residual
    _, _, info = _evaluate(theta, data, prior_games)
    # Without a prior only differences are identified: hold bot 0 still, as the fit does.
    free = 0 if prior_games > 0 else 1
    reduced = [row[free:] for row in info[free:]]
    inverse = [[0.0] * k for _ in range(k)]
    for column in range(free, k):
        unit = [0.0] * (k - free)
        unit[column - free] = 1.0
        for row, value in enumerate(_solve_positive_definite(reduced, unit), start=free):
            inverse[row][column] = value
    influence = []
    for gradient in gradients:
        moved = [math.fsum(inverse[i][m] * gradient[m] for m in range(k)) for i in range(k)]
        shift = moved[anchor] if anchor is not None else math.fsum(moved) / k
        influence.append([(x - shift) * ELO_PER_NAT for x in moved])
    return influence


def _ranks(ratings: list[float]) -> list[int]:
    # Competition ranking: 1 + the number of bots rated strictly higher.
    return [1 + sum(other > mine for other in ratings) for mine in ratings]


def bootstrap(outcomes: Iterable[SessionOutcome], *, resamples: int = 1000, rng_seed: int = 0,
              confidence: float = 0.95, anchor: str | None = None, mean: float = 1500.0,
              prior_games: float = DEFAULT_PRIOR_GAMES) -> Bootstrap:
    """Resample duplicate blocks with replacement, refit Bradley–Terry each time, and summarise.

    Each resample draws as many blocks as there are, with replacement, keeping the sessions of a
    block together, and refits the ratings starting from the full-data fit. A rating's interval is
    the bias-corrected and accelerated (BCa) interval of the refits, which keeps its coverage in
    small tournaments (docs/ratings.md); rank
    intervals are the `(1 - confidence) / 2` and `(1 + confidence) / 2` percentiles of the ranks,
    widened to whole ranks. The resamples depend only on `rng_seed` and the block ids, not on the
    order of `outcomes`.

    Raises:
        RatingError: as `bradley_terry`, or when (with `prior_games=0`) a resample has a bot with an
            infinite rating.

    >>> sessions = [SessionOutcome(("a", "b"), (1, -1), f"s{i}") for i in range(6)]
    >>> sessions += [SessionOutcome(("a", "b"), (-1, 1), f"t{i}") for i in range(3)]
    >>> result = bootstrap(sessions, resamples=200, rng_seed=1)
    >>> round(result.ratings["a"]), [round(x) for x in result.intervals["a"]], result.rank_intervals["b"]
    (1557, [1443, 1661], (1, 2))
    >>> result.los["a"]["b"] + result.los["b"]["a"], result.los["a"]["a"]
    (1.0, 0.5)
    """
    verify_bootstrap_options(resamples=resamples, confidence=confidence)
    blocks = group_blocks(outcomes)
    bots = bot_names(outcome for block in blocks for outcome in block)
    verify_options(bots, anchor=anchor, prior_games=prior_games)
    index = {bot: i for i, bot in enumerate(bots)}
    total, pairs, columns, pair_blocks = _block_columns(blocks, index)
    full = comparisons_from_tally(bots, total)
    theta_hat = fit_comparisons(full, prior_games=prior_games)
    ratings = to_elo(theta_hat, bots, anchor=anchor, mean=mean)

    k = len(bots)
    first = tuple(i for i, _ in pairs)
    second = tuple(j for _, j in pairs)
    rng = random.Random(rng_seed)
    samples: list[list[float]] = [[] for _ in range(k)]
    rank_samples: list[list[int]] = [[] for _ in range(k)]
    wins = [[0.0] * k for _ in range(k)]
    for r in range(resamples):
        counts = resample_counts(rng, len(blocks))
        scores = []
        games = []
        for pick, block_scores, block_games in columns:
            drawn = pick(counts)
            scores.append(sum(map(mul, drawn, block_scores)))
            games.append(sum(map(mul, drawn, block_games)))
        data = Comparisons(bots, first, second, tuple(scores), tuple(games))
        if prior_games == 0 and not is_strongly_connected(data):
            raise RatingError(f"resample {r} leaves a bot that won or lost every comparison, so its "
                              "rating is infinite; use prior_games > 0")
        theta = fit_strengths(data, prior_games=prior_games, start=theta_hat)
        elo = to_elo(theta, bots, anchor=anchor, mean=mean)
        for i, rank in enumerate(_ranks(elo)):
            samples[i].append(elo[i])
            rank_samples[i].append(rank)
        for a in range(k):
            row = wins[a]
            for b in range(k):
                if elo[a] > elo[b]:
                    row[b] += 1.0
                elif elo[a] == elo[b]:
                    row[b] += 0.5
    influence = _block_influence(theta_hat, full, prior_games, columns, pair_blocks, len(blocks),
                                 anchor=None if anchor is None else index[anchor])
    low_q, high_q = (1 - confidence) / 2, (1 + confidence) / 2
    intervals = {}
    rank_intervals = {}
    for i, bot in enumerate(bots):
        intervals[bot] = bca_interval(sorted(samples[i]), ratings[i], accel=acceleration([row[i] for row in influence]),
                                      confidence=confidence)
        ranks = sorted(float(rank) for rank in rank_samples[i])
        rank_intervals[bot] = (math.floor(percentile(ranks, low_q)), math.ceil(percentile(ranks, high_q)))
    los = {a: {b: wins[i][j] / resamples for j, b in enumerate(bots)} for i, a in enumerate(bots)}
    return Bootstrap(dict(zip(bots, ratings, strict=True)), intervals, rank_intervals, los, resamples, confidence)
