"""The Bradley–Terry fit as damped Newton steps on many data sets at once (the bootstrap's resamples), with numpy.

Theory of operation: every data set shares the pairs (`first[p] < second[p]`, indices of bots) and
differs only in each pair's weighted score and games, so the log-posterior, its gradient and its
negated Hessian (a weighted graph Laplacian plus the prior's diagonal) are array expressions over
a (data sets x pairs) matrix, and each Newton step is one batched linear solve. Each data set
takes its own step length (halved until its log-posterior does not fall) and stops on its own
once no strength moves by more than `_TOLERANCE`; one data set (`rows == 1`) is the plain fit.
Pairs are scattered onto bots by sorted segments (`_Scatter`), so the memory is that of the
(data sets x pairs) matrices and of one (data sets x bots x bots) block of Hessians at a time.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ._outcome import RatingError

ONE_THREAD_ENV = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
"""Environment variables that keep numpy's linear algebra to one thread in a process started with them.

For a process that fits beside play (the service's board worker): the fits' matrices are small
(bots x bots), so more threads gain little, and on a loaded machine idle BLAS threads spin on the
cores that play sessions (at a load of 12 on 2 cores, one thread took 5.2 s of CPU where the
default took 8.2 s)."""
Floats = NDArray[np.float64]
Ints = NDArray[np.intp]

# Newton stops once no strength moves by more than this (in natural-log units: about 2e-8 Elo).
_TOLERANCE = 1e-10
_MAX_ITERATIONS = 200
# Chord steps (one shared matrix) before Newton's own: enough to converge when the rows lie near
# the shared point (a large ladder's resamples take 10 to 15), few enough that rows far from it
# soon get Newton's quadratic convergence.
_CHORD_ITERATIONS = 25
# Hessians solved at once: rows x bots x bots floats stay near 128 MiB.
_HESSIAN_FLOATS = 1 << 24


def sigmoid(x: Floats) -> Floats:
    """The logistic function, without overflow for large |x|."""
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def _softplus(x: Floats) -> Floats:
    # log(1 + e^x) without overflow for large |x|.
    return np.maximum(x, 0.0) + np.log1p(np.exp(-np.abs(x)))


@dataclass(frozen=True)
class _Scatter:
    # Sums the columns of a (rows x pairs) matrix into (rows x bots) by bot index, in sorted segments.
    order: Ints
    starts: Ints
    targets: Ints
    bots: int

    @classmethod
    def of(cls, index: Ints, bots: int) -> _Scatter:
        order = np.argsort(index, kind="stable")
        targets, starts = np.unique(index[order], return_index=True)
        return cls(order, starts.astype(np.intp), targets.astype(np.intp), bots)

    def __call__(self, values: Floats) -> Floats:
        out = np.zeros((values.shape[0], self.bots))
        if self.order.size:
            out[:, self.targets] = np.add.reduceat(values[:, self.order], self.starts, axis=1)
        return out


@dataclass(frozen=True)
class PairIndex:
    """The pairs every data set of a batch compares: `first[p] < second[p]`, indices into `bots` bots."""

    first: Ints
    second: Ints
    bots: int
    by_first: _Scatter
    by_second: _Scatter

    @classmethod
    def of(cls, first: tuple[int, ...] | Ints, second: tuple[int, ...] | Ints, bots: int) -> PairIndex:
        low, high = np.asarray(first, dtype=np.intp), np.asarray(second, dtype=np.intp)
        return cls(low, high, bots, _Scatter.of(low, bots), _Scatter.of(high, bots))

    def scatter(self, values: Floats) -> Floats:
        """Per bot, the sum of `values` over its pairs as first minus the sum over its pairs as second."""
        return self.by_first(values) - self.by_second(values)


def _loglik(theta: Floats, pairs: PairIndex, scores: Floats, games: Floats, prior: float) -> Floats:
    d = theta[:, pairs.first] - theta[:, pairs.second]
    total: Floats = (scores * d - games * _softplus(d)).sum(axis=1)
    if prior:
        total += prior * (0.5 * theta - _softplus(theta)).sum(axis=1)
    return total


def information(theta: Floats, pairs: PairIndex, games: Floats, prior: float) -> Floats:
    """The negated Hessian of the log-posterior of each row of `theta` (rows x bots x bots)."""
    k = pairs.bots
    d = theta[:, pairs.first] - theta[:, pairs.second]
    s = sigmoid(d)
    c = games * s * (1.0 - s)
    info = np.zeros((theta.shape[0], k, k))
    info[:, pairs.first, pairs.second] = -c
    info[:, pairs.second, pairs.first] = -c
    diagonal = pairs.by_first(c) + pairs.by_second(c)
    if prior:
        st = sigmoid(theta)
        diagonal += prior * st * (1.0 - st)
    rows = np.arange(k)
    info[:, rows, rows] = diagonal
    return info


def gradient(theta: Floats, pairs: PairIndex, scores: Floats, games: Floats, prior: float) -> Floats:
    """The gradient of the log-posterior of each row of `theta` (rows x bots)."""
    d = theta[:, pairs.first] - theta[:, pairs.second]
    grad = pairs.scatter(scores - games * sigmoid(d))
    if prior:
        grad += prior * (0.5 - sigmoid(theta))
    return grad


def _steps(theta: Floats, pairs: PairIndex, scores: Floats, games: Floats, prior: float, free: int,
           chord: Floats | None) -> Floats:
    # Each row's direction: Newton's, or with `chord` (the inverse of one information matrix, over
    # the free bots) the chord method's; without a prior bot 0 is held still (only differences count).
    step = np.zeros_like(theta)
    grad = gradient(theta, pairs, scores, games, prior)
    if chord is not None:
        step[:, free:] = grad[:, free:] @ chord
        return step
    rows = max(1, _HESSIAN_FLOATS // (pairs.bots * pairs.bots))
    for low in range(0, theta.shape[0], rows):
        info = information(theta[low:low + rows], pairs, games[low:low + rows], prior)
        try:
            step[low:low + rows, free:] = np.linalg.solve(info[:, free:, free:],
                                                          grad[low:low + rows, free:, None])[..., 0]
        except np.linalg.LinAlgError as error:
            raise RatingError("the rating equations are singular (a bot without comparisons?)") from error
    return step


def fit_batch(pairs: PairIndex, scores: Floats, games: Floats, *, prior_games: float, start: Floats,
              chord: Floats | None = None) -> Floats:
    """Maximise each row's (penalised) log-likelihood; strengths in natural-log units (rows x bots).

    `scores` and `games` are (rows x pairs); `start` (rows x bots) is where each row's search begins.
    With `chord`, the inverse information matrix at a point near every row's maximum (a bootstrap's
    full-data fit; over bots 1.. without a prior), the first `_CHORD_ITERATIONS` steps use it instead
    of each row's own: a matrix product instead of a linear solve per row and step, and as many steps
    as Newton's when the rows lie near that point. The caller checks connectivity (and, without a
    prior, strong connectivity) first.

    >>> pairs = PairIndex.of((0,), (1,), 2)
    >>> theta = fit_batch(pairs, np.array([[3.0], [1.0]]), np.array([[4.0], [4.0]]), prior_games=0.0,
    ...                   start=np.zeros((2, 2)))
    >>> [round(float(t), 6) for t in theta[:, 1]]  # log(1/3) and log(3): the share of games won
    [-1.098612, 1.098612]
    """
    theta = np.array(start, dtype=np.float64)
    free = 0 if prior_games > 0 else 1
    if free == pairs.bots:
        return theta
    active = np.arange(theta.shape[0])
    loglik = _loglik(theta, pairs, scores, games, prior_games)
    for iteration in range(_MAX_ITERATIONS):
        if not active.size:
            return theta
        here, s, g = theta[active], scores[active], games[active]
        step = _steps(here, pairs, s, g, prior_games, free, chord if iteration < _CHORD_ITERATIONS else None)
        scale = np.ones(active.size)
        while True:
            candidate = here + scale[:, None] * step
            reached = _loglik(candidate, pairs, s, g, prior_games)
            # Allow for rounding: near the optimum the log-likelihood is flat to machine precision.
            worse = reached < loglik - 1e-12 * (1.0 + np.abs(loglik))
            if not worse.any():
                break
            scale[worse] /= 2.0
            if scale.min() < 1e-12:
                raise RatingError("the Bradley-Terry fit did not converge")
        theta[active] = candidate
        # A chord step shortened by the line search says little about the distance left.
        settled = np.abs(scale[:, None] * step).max(axis=1) < _TOLERANCE
        if iteration < _CHORD_ITERATIONS and chord is not None:
            settled &= scale == 1.0
        active, loglik = active[~settled], reached[~settled]
    if active.size:
        raise RatingError("the Bradley-Terry fit did not converge")
    return theta
