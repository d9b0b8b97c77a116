"""A large ladder's integrity and scale: the rating refit over 10^6 sessions, and planted collusion (no bots run).

The ladder is 100 bots playing heads-up duplicate blocks of two mirrors (the service's default
table), 5 x 10^5 blocks drawn from hidden strengths, tallied as results land (`BlockTally`), then
refitted with 1,000 bootstrap resamples (`standings`' default; the service's board uses 400), in a
process of its own started as the service starts its board's worker (numpy on one thread,
`ONE_THREAD_ENV`). The refit's floor is drawing its resamples alone (numpy's multinomial counts of
each kind of block): the bootstrap cannot be faster than choosing what it refits. The collusion
figures are `benchmarks.collusion`'s.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import trio

from arena.ratings import ONE_THREAD_ENV, BlockTally, SessionOutcome, bootstrap_blocks

from .collusion import planted_figures
from .common import REPO, Sizes

_BOTS = 100
_SESSIONS = 1_000_000
_RESAMPLES = 1000


def ladder_tally(*, bots: int, sessions: int, seed: int = 2026) -> BlockTally:
    """Heads-up blocks of two mirrors from hidden strengths 8 Elo apart: a win, a draw (one in ten) or a loss."""
    rng = random.Random(seed)
    names = [f"bot{index:03d}" for index in range(bots)]
    tally = BlockTally()
    for block in range(sessions // 2):
        first, second = rng.sample(range(bots), 2)
        p_first = 1 / (1 + 10 ** (8 * (second - first) / 400))
        for mirror in range(2):
            draw = rng.random()
            chips = 0 if draw < 0.1 else 3 if draw < 0.1 + 0.9 * p_first else -3
            seats = (names[first], names[second]) if mirror == 0 else (names[second], names[first])
            tally.add(SessionOutcome(seats, (chips, -chips) if mirror == 0 else (-chips, chips), f"b{block}"))
    return tally


def refit_figures() -> dict[str, Any]:
    began = time.perf_counter()
    tally = ladder_tally(bots=_BOTS, sessions=_SESSIONS)
    tallying = time.perf_counter() - began
    kinds = tally.kinds()
    counts = np.array(list(kinds.values()), dtype=np.float64)
    began = time.perf_counter()
    np.random.Generator(np.random.PCG64(0)).multinomial(int(counts.sum()), counts / counts.sum(), size=_RESAMPLES)
    drawing = time.perf_counter() - began
    began, cpu = time.perf_counter(), time.process_time()
    fitted = bootstrap_blocks(tally, resamples=_RESAMPLES)
    refit, refit_cpu = time.perf_counter() - began, time.process_time() - cpu
    widths = [high - low for low, high in fitted.intervals.values()]
    return {"ratings_refit_1e6_s": round(refit, 2), "ratings_refit_1e6_cpu_s": round(refit_cpu, 2),
            "ratings_resample_draws_1e6_s": round(drawing, 2), "ratings_refit_kinds": len(kinds),
            "ratings_tally_us_per_session": round(tallying / _SESSIONS * 1e6, 2),
            "ratings_refit_median_interval_elo": round(sorted(widths)[len(widths) // 2], 1)}


def refit_in_worker() -> dict[str, Any]:
    """`refit_figures` in a process started as the service's board worker is (`python -m benchmarks.integrity`)."""
    done = subprocess.run([sys.executable, "-m", "benchmarks.integrity"], cwd=REPO, capture_output=True, check=True,
                          env={**os.environ, **ONE_THREAD_ENV}, timeout=1800)
    figures: dict[str, Any] = json.loads(done.stdout)
    return figures


async def measure(sizes: Sizes, workdir: Path) -> dict[str, Any]:
    """The suite's `integrity` section, in a worker thread."""
    refit = await trio.to_thread.run_sync(refit_in_worker)
    planted = await trio.to_thread.run_sync(lambda: planted_figures(
        shared=sizes.collusion_shared, trials=sizes.collusion_trials, honest_pools=sizes.collusion_honest_pools))
    return {**refit, **planted}


if __name__ == "__main__":
    print(json.dumps(refit_figures()))
