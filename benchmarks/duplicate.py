"""What duplicate dealing saves: sessions needed to separate two bots with independent and with duplicate deals."""

from __future__ import annotations

import math
import random
import statistics
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import trio

from arena.engine import GEORGIAN
from arena.match import play_session
from arena.transport import BotConnection

from .common import Sizes, open_bots, python_bot

_Z95 = 1.959964

# The pair whose difference the duplicate-dealing figure measures: real but small (see docs).
DUPLICATE_PAIR = (("threshold", "threshold_bot.py"), ("minimal", "minimal_bot.py"))


def sessions_needed(mean: float, variance: float, *, per_unit: int) -> int:
    """Sessions until the 95% interval of the mean excludes 0: (z sigma / mean)^2 units of `per_unit`.

    >>> sessions_needed(1.0, 4.0, per_unit=1), sessions_needed(1.0, 1.0, per_unit=2)
    (16, 8)
    """
    if mean == 0:
        return sys.maxsize
    return per_unit * math.ceil(_Z95 * _Z95 * variance / (mean * mean))


def saving_interval(independent: Sequence[float], pairs: Sequence[float], *, resamples: int = 2000,
                    seed: int = 7) -> tuple[float, float]:
    """A 95% percentile-bootstrap interval of var(independent) / (2 var(pair means))."""
    rng = random.Random(seed)
    ratios = []
    for _ in range(resamples):
        a = [independent[rng.randrange(len(independent))] for _ in independent]
        b = [pairs[rng.randrange(len(pairs))] for _ in pairs]
        low = statistics.variance(b)
        if low > 0:
            ratios.append(statistics.variance(a) / (2 * low))
    ratios.sort()
    return ratios[int(0.025 * len(ratios))], ratios[int(0.975 * len(ratios)) - 1]


async def duplicate_samples(first: BotConnection, second: BotConnection, pairs: int, *, inflight: int,
                            tag: str = "dup") -> tuple[list[float], list[float]]:
    """`pairs` duplicate pairs and `2 * pairs` independent sessions of `first` against `second`.

    Returns the chip differences (first's balance minus second's) of the independent sessions and
    the per-session mean difference of each duplicate pair.
    """
    independent: list[float] = [0.0] * (2 * pairs)
    duplicate: list[float] = [0.0] * pairs
    jobs: list[tuple[str, int]] = []
    for number in range(pairs):
        jobs += [("pair", number), ("single", 2 * number), ("single", 2 * number + 1)]
    limiter = trio.Semaphore(inflight)

    def difference(result: Any, seating: Sequence[BotConnection]) -> float:
        balance = {seat.bot: result.balances[seat.seat] for seat in result.seats}
        return float(balance[first.name] - balance[second.name])

    async def play(kind: str, number: int) -> None:
        async with limiter:
            if kind == "pair":
                seed = f"{tag}-pair-{number}"
                total = 0.0
                for mirror, seating in enumerate(([first, second], [second, first])):
                    result = await play_session(GEORGIAN, seating, seed=seed, session_id=f"{seed}-{mirror}")
                    total += difference(result, seating)
                duplicate[number] = total / 2
            else:
                # Own seed each; seats alternate so that both sides have the seat advantage equally.
                seed = f"{tag}-single-{number}"
                seating = [first, second] if number % 2 == 0 else [second, first]
                result = await play_session(GEORGIAN, seating, seed=seed, session_id=seed)
                independent[number] = difference(result, seating)

    async with trio.open_nursery() as nursery:
        for kind, number in jobs:
            nursery.start_soon(play, kind, number)
    return independent, duplicate


def duplicate_figures(independent: Sequence[float], duplicate: Sequence[float]) -> dict[str, Any]:
    single_variance = statistics.variance(independent)
    pair_variance = statistics.variance(duplicate)
    # One estimate of the true difference for both counts (the two means weighted by their
    # precision), so that the counts differ by the variances alone.
    single_weight = len(independent) / single_variance
    pair_weight = len(duplicate) / pair_variance
    mean = (single_weight * statistics.fmean(independent) + pair_weight * statistics.fmean(duplicate)) / (
        single_weight + pair_weight)
    low, high = saving_interval(independent, duplicate)
    return {
        "duplicate_mean_difference": round(mean, 3),
        "duplicate_mean_difference_se": round(1 / math.sqrt(single_weight + pair_weight), 3),
        "duplicate_mean_difference_independent": round(statistics.fmean(independent), 3),
        "duplicate_mean_difference_duplicate": round(statistics.fmean(duplicate), 3),
        "duplicate_sd_session_independent": round(math.sqrt(single_variance), 3),
        "duplicate_sd_pair_duplicate": round(math.sqrt(pair_variance), 3),
        "sessions_needed_independent": sessions_needed(mean, single_variance, per_unit=1),
        "sessions_needed_duplicate": sessions_needed(mean, pair_variance, per_unit=2),
        "duplicate_saving_ratio": round(single_variance / (2 * pair_variance), 2),
        "duplicate_saving_ratio_ci": [round(low, 2), round(high, 2)],
        "duplicate_sessions_played": len(independent) + 2 * len(duplicate),
    }


async def measure(sizes: Sizes, workdir: Path) -> dict[str, Any]:
    """The suite's `duplicate` section: threshold against minimal, on long-lived bots."""
    (first_name, first_script), (second_name, second_script) = DUPLICATE_PAIR
    specs = [python_bot(first_name, first_script), python_bot(second_name, second_script)]
    async with open_bots(specs, workdir=workdir) as (first, second):
        independent, duplicate = await duplicate_samples(first, second, sizes.duplicate_pairs,
                                                         inflight=sizes.duplicate_inflight)
    figures = duplicate_figures(independent, duplicate)
    figures["duplicate_pair"] = f"{first_name} vs {second_name}"
    return figures
