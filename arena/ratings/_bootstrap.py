"""Confidence intervals for the Bradley–Terry ratings and ranks, and the likelihood of superiority."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from ._blocks import BlockTally, tally_blocks
from ._bradley_terry import (
    DEFAULT_PRIOR_GAMES,
    ELO_PER_NAT,
    Comparisons,
    fit_comparisons,
    is_strongly_connected,
    verify_options,
)
from ._intervals import acceleration, bca_interval
from ._newton import Floats, PairIndex, fit_batch, information, sigmoid
from ._outcome import RatingError, SessionOutcome
from ._resample import percentile, verify_bootstrap_options


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


# Refits closer than this to the full-data rating (Elo) are the same rating: the fits are exact only to
# Newton's tolerance (about 2e-8 Elo), and BCa's bias correction counts the resamples equal to the
# estimate apart from those below it (a heads-up resample that redraws the full data's record is a
# fifth of all resamples, and rounding put it below or above the estimate at random).
_SAME_ELO = 1e-6
# Resamples fitted at once: their (resamples x pairs) matrices stay near 64 MiB each.
_BATCH_FLOATS = 1 << 23


@dataclass(frozen=True)
class _Kinds:
    # The distinct blocks as arrays: `entries` rows (kind, pair, score, games), sorted by pair.
    bots: tuple[str, ...]
    pairs: PairIndex
    counts: Floats
    entry_kind: np.ndarray
    entry_pair_starts: np.ndarray
    entry_scores: Floats
    entry_games: Floats
    entry_pairs: np.ndarray

    @classmethod
    def of(cls, tally: BlockTally) -> _Kinds:
        kinds = sorted(tally.kinds().items())
        bots = tuple(sorted({bot for kind, _ in kinds for a, b, _, _ in kind for bot in (a, b)}))
        if not bots:
            raise RatingError("no sessions to rate")
        index = {bot: i for i, bot in enumerate(bots)}
        pair_set = sorted({(index[a], index[b]) for kind, _ in kinds for a, b, _, _ in kind})
        pair_number = {pair: p for p, pair in enumerate(pair_set)}
        rows = sorted((pair_number[(index[a], index[b])], t, float(score), float(games))
                      for t, (kind, _) in enumerate(kinds) for a, b, score, games in kind)
        entry_pairs = np.array([row[0] for row in rows], dtype=np.intp)
        _, starts = np.unique(entry_pairs, return_index=True)
        return cls(bots, PairIndex.of(tuple(i for i, _ in pair_set), tuple(j for _, j in pair_set), len(bots)),
                   np.array([float(count) for _, count in kinds]), np.array([row[1] for row in rows], dtype=np.intp),
                   starts, np.array([row[2] for row in rows]), np.array([row[3] for row in rows]), entry_pairs)

    def totals(self, counts: Floats) -> tuple[Floats, Floats]:
        """Each pair's score and games (rows x pairs) when each kind is drawn `counts` (rows x kinds) times."""
        drawn = counts[:, self.entry_kind]
        return (np.add.reduceat(drawn * self.entry_scores, self.entry_pair_starts, axis=1),
                np.add.reduceat(drawn * self.entry_games, self.entry_pair_starts, axis=1))


def _elo(theta: Floats, *, anchor: int | None, mean: float) -> Floats:
    # `to_elo` on every row at once.
    elo = theta * ELO_PER_NAT
    shift = mean - (elo[:, [anchor]] if anchor is not None else elo.mean(axis=1, keepdims=True))
    result: Floats = elo + shift
    return result


def _influence(theta: Floats, kinds: _Kinds, inverse: Floats, *, anchor: int | None) -> Floats:
    # The empirical influence of each kind of block on each reported rating (the infinitesimal
    # jackknife): the information matrix's inverse (`inverse`, 0 where a bot is held still) applied to
    # the block's part of the score, in Elo
    # after the same shift as `to_elo` (so only differences between strengths count). Kinds x bots.
    k = len(kinds.bots)
    expected = sigmoid(theta[kinds.pairs.first] - theta[kinds.pairs.second])
    residual = kinds.entry_scores - kinds.entry_games * expected[kinds.entry_pairs]
    gradients = np.zeros((kinds.counts.size, k))
    np.add.at(gradients, (kinds.entry_kind, kinds.pairs.first[kinds.entry_pairs]), residual)
    np.add.at(gradients, (kinds.entry_kind, kinds.pairs.second[kinds.entry_pairs]), -residual)
    moved = gradients @ inverse.T
    shift = moved[:, [anchor]] if anchor is not None else moved.mean(axis=1, keepdims=True)
    result: Floats = (moved - shift) * ELO_PER_NAT
    return result


def bootstrap(outcomes: Iterable[SessionOutcome], *, resamples: int = 1000, rng_seed: int = 0,
              confidence: float = 0.95, anchor: str | None = None, mean: float = 1500.0,
              prior_games: float = DEFAULT_PRIOR_GAMES) -> Bootstrap:
    """Resample duplicate blocks with replacement, refit Bradley–Terry each time, and summarise.

    `bootstrap_blocks` of the sessions' blocks (`tally_blocks`).

    >>> sessions = [SessionOutcome(("a", "b"), (1, -1), f"s{i}") for i in range(6)]
    >>> sessions += [SessionOutcome(("a", "b"), (-1, 1), f"t{i}") for i in range(3)]
    >>> result = bootstrap(sessions, resamples=200, rng_seed=1)
    >>> round(result.ratings["a"]), [round(x) for x in result.intervals["a"]], result.rank_intervals["b"]
    (1557, [1443, 1661], (1, 2))
    >>> result.los["a"]["b"] + result.los["b"]["a"], result.los["a"]["a"]
    (1.0, 0.5)
    """
    return bootstrap_blocks(tally_blocks(outcomes), resamples=resamples, rng_seed=rng_seed, confidence=confidence,
                            anchor=anchor, mean=mean, prior_games=prior_games)


def bootstrap_blocks(blocks: BlockTally, *, resamples: int = 1000, rng_seed: int = 0, confidence: float = 0.95,
                     anchor: str | None = None, mean: float = 1500.0,
                     prior_games: float = DEFAULT_PRIOR_GAMES) -> Bootstrap:
    """Resample duplicate blocks with replacement, refit Bradley–Terry each time, and summarise.

    Each resample draws as many blocks as there are, with replacement, keeping the sessions of a
    block together (as a multinomial count of each kind of block, `BlockTally`), and refits the
    ratings starting from the full-data fit, every resample at once (`fit_batch`). A rating's
    interval is the bias-corrected and accelerated (BCa) interval of the refits, which keeps its
    coverage in small tournaments (docs/ratings.md); rank intervals are the `(1 - confidence) / 2`
    and `(1 + confidence) / 2` percentiles of the ranks, widened to whole ranks. The resamples
    depend only on `rng_seed` and the blocks' results, not on the order of the sessions or blocks.
    The cost grows with the kinds of block and the pairs, not with the sessions.

    Raises:
        RatingError: as `bradley_terry`, or when (with `prior_games=0`) a resample has a bot with an
            infinite rating.
    """
    verify_bootstrap_options(resamples=resamples, confidence=confidence)
    kinds = _Kinds.of(blocks)
    bots = kinds.bots
    verify_options(bots, anchor=anchor, prior_games=prior_games)
    k = len(bots)
    anchor_index = None if anchor is None else bots.index(anchor)
    total_scores, total_games = kinds.totals(kinds.counts[None, :])
    full = Comparisons(bots, tuple(int(i) for i in kinds.pairs.first), tuple(int(j) for j in kinds.pairs.second),
                       tuple(float(x) for x in total_scores[0]), tuple(float(x) for x in total_games[0]))
    theta_hat = np.array(fit_comparisons(full, prior_games=prior_games))
    ratings = _elo(theta_hat[None, :], anchor=anchor_index, mean=mean)[0]

    # The inverse information at the full-data fit: the influence's, and the resamples' chord steps.
    # Without a prior only differences are identified: bot 0 is held still, as the fit does.
    free = 0 if prior_games > 0 else 1
    info = information(theta_hat[None, :], kinds.pairs, total_games, prior_games)[0]
    inverse = np.zeros((k, k))
    inverse[free:, free:] = np.linalg.inv(info[free:, free:])
    rng = np.random.Generator(np.random.PCG64(rng_seed))
    drawn = int(kinds.counts.sum())
    shares = kinds.counts / drawn
    elo = np.empty((resamples, k))
    batch = max(1, _BATCH_FLOATS // max(kinds.pairs.first.size, kinds.entry_kind.size, k * k))
    for low in range(0, resamples, batch):
        rows = min(batch, resamples - low)
        counts = rng.multinomial(drawn, shares, size=rows).astype(np.float64)
        scores, games = kinds.totals(counts)
        if prior_games == 0:
            for r in range(rows):
                data = Comparisons(bots, full.first, full.second, tuple(scores[r]), tuple(games[r]))
                if not is_strongly_connected(data):
                    raise RatingError(f"resample {low + r} leaves a bot that won or lost every comparison, so "
                                      "its rating is infinite; use prior_games > 0")
        theta = fit_batch(kinds.pairs, scores, games, prior_games=prior_games,
                          start=np.broadcast_to(theta_hat, (rows, k)), chord=inverse[free:, free:])
        elo[low:low + rows] = _elo(theta, anchor=anchor_index, mean=mean)
    # ranks and likelihood of superiority, one bot at a time to keep memory at resamples x bots.
    ranks = np.empty((resamples, k))
    wins = np.empty((k, k))
    for a in range(k):
        above = elo > elo[:, [a]]
        ranks[:, a] = 1 + above.sum(axis=1)
        wins[:, a] = (above.sum(axis=0) + 0.5 * (elo == elo[:, [a]]).sum(axis=0)) / resamples
    accel = acceleration(_influence(theta_hat, kinds, inverse, anchor=anchor_index), kinds.counts)
    low_q, high_q = (1 - confidence) / 2, (1 + confidence) / 2
    intervals = {}
    rank_intervals = {}
    for i, bot in enumerate(bots):
        refits = np.where(np.abs(elo[:, i] - ratings[i]) <= _SAME_ELO, ratings[i], elo[:, i])
        intervals[bot] = bca_interval(sorted(refits.tolist()), float(ratings[i]),
                                      accel=float(accel[i]),
                                      confidence=confidence)
        ordered = sorted(ranks[:, i].tolist())
        rank_intervals[bot] = (math.floor(percentile(ordered, low_q)), math.ceil(percentile(ordered, high_q)))
    los = {a: {b: float(wins[i][j]) for j, b in enumerate(bots)} for i, a in enumerate(bots)}
    return Bootstrap({bot: float(r) for bot, r in zip(bots, ratings, strict=True)}, intervals, rank_intervals, los,
                     resamples, confidence)
