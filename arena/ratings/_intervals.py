"""Bias-corrected and accelerated (BCa) bootstrap intervals, which keep their coverage with few blocks.

Theory of operation. A plain percentile interval of a bootstrap distribution is off centre when
the resampling units are few (the demo has 24 duplicate blocks): simulated at that size, its 95 %
intervals held the true rating 92.5-94 % of the time (`benchmarks/coverage.py`, docs/ratings.md).
BCa (Efron 1987) makes two corrections:

- Bias. z0 = Φ⁻¹(share of resampled estimates below the full-data estimate). The prior that keeps
  ratings finite pulls every estimate towards the pool's centre, and each resample is pulled once
  more; z0 moves the interval back by that much.
- Acceleration. a = Σ U³ / (6 (Σ U²)^{3/2}) over the empirical influence U of each resampled unit
  (each block) on the estimate. It lets the spread change with the value, which is what an
  estimate that is skewed (a strong bot's rating more than an average one's) needs.

The interval's ends are the quantiles Φ(z0 + (z0 + z) / (1 − a (z0 + z))) of the sorted
resampled estimates, with z = Φ⁻¹((1 − c)/2) for the low end and Φ⁻¹((1 + c)/2) for the high end
at confidence c. With z0 = a = 0 this is the percentile interval.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist

import numpy as np

from ._newton import Floats
from ._resample import percentile

_NORMAL = NormalDist()


def acceleration(influence: Floats, counts: Floats) -> Floats:
    """The BCa acceleration of each estimate (a column of `influence`) from each kind of unit's empirical
    influence on it (a row) and how many units are of that kind (0 where no unit moves the estimate).

    >>> acceleration(np.array([[1.0, 3.0], [-1.0, -1.0], [2.0, -1.0], [-2.0, -1.0]]), np.ones(4)).round(4).tolist()
    [0.0, 0.0962]
    """
    squares = counts @ (influence * influence)
    cubes = counts @ (influence * influence * influence)
    spread = 6.0 * squares * np.sqrt(squares)
    result: Floats = np.divide(cubes, spread, out=np.zeros_like(cubes), where=squares > 0.0)
    return result


def bca_interval(ordered: Sequence[float], estimate: float, *, accel: float, confidence: float) -> tuple[float, float]:
    """The BCa interval from the sorted resampled estimates, the full-data estimate and the acceleration.

    With the estimate at the median of the resamples and no acceleration it is the percentile
    interval; resamples all equal to the estimate give the estimate twice.

    >>> resamples = [float(x) for x in range(1, 100)]
    >>> [round(end, 6) for end in bca_interval(resamples, 50.0, accel=0.0, confidence=0.9)]
    [5.9, 94.1]
    >>> percentile(resamples, 0.05), percentile(resamples, 0.95)
    (5.9, 94.1)
    >>> [round(end, 1) for end in bca_interval(resamples, 60.0, accel=0.0, confidence=0.9)]  # the estimate sits high
    [13.6, 97.5]
    >>> [round(end, 1) for end in bca_interval(resamples, 50.0, accel=0.05, confidence=0.9)]  # skewed upwards
    [7.3, 95.4]
    >>> bca_interval([7.0] * 50, 7.0, accel=0.1, confidence=0.95)
    (7.0, 7.0)
    """
    count = len(ordered)
    if count == 0:
        return math.nan, math.nan
    below = sum(value < estimate for value in ordered) + 0.5 * sum(value == estimate for value in ordered)
    # An estimate outside every resample would give an infinite z0: keep it half a resample inside.
    share = min(max(below / count, 0.5 / count), 1.0 - 0.5 / count)
    z0 = _NORMAL.inv_cdf(share) if count > 1 else 0.0

    def level(q: float) -> float:
        shifted = z0 + _NORMAL.inv_cdf(q)
        denominator = 1.0 - accel * shifted
        if denominator <= 0.0:  # skewness beyond what the formula can map: the far end of the resamples
            return 1.0 if shifted > 0 else 0.0
        return _NORMAL.cdf(z0 + shifted / denominator)

    return percentile(ordered, level((1 - confidence) / 2)), percentile(ordered, level((1 + confidence) / 2))
