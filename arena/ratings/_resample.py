"""Helpers shared by the bootstraps: duplicate blocks and percentiles."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from ._outcome import RatingError, SessionOutcome


def group_blocks(outcomes: Iterable[SessionOutcome]) -> list[list[SessionOutcome]]:
    """Sessions grouped by block, blocks in block-id order (so input order cannot change a resample)."""
    blocks: dict[str, list[SessionOutcome]] = {}
    for outcome in outcomes:
        blocks.setdefault(outcome.block, []).append(outcome)
    if not blocks:
        raise RatingError("no sessions to rate")
    return [blocks[block] for block in sorted(blocks)]


def verify_bootstrap_options(*, resamples: int, confidence: float) -> None:
    if isinstance(resamples, bool) or not isinstance(resamples, int) or resamples < 1:
        raise RatingError(f"resamples must be a positive int, not {resamples!r}")
    if not 0 < confidence < 1:
        raise RatingError(f"confidence must lie strictly between 0 and 1, not {confidence!r}")


def percentile(ordered: Sequence[float], q: float) -> float:
    """The q-quantile of sorted values, interpolating linearly between order statistics.

    This is the usual "type 7" definition (numpy's default).

    >>> percentile([1.0, 2.0, 3.0, 4.0], 0.5), percentile([1.0, 2.0, 3.0, 4.0], 0.0)
    (2.5, 1.0)
    """
    if not ordered:
        return math.nan
    h = (len(ordered) - 1) * q
    low = math.floor(h)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (h - low) * (ordered[high] - ordered[low])
