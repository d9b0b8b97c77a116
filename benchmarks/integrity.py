"""A large ladder's integrity and scale: the rating refit over 10^6 sessions, the service's refit, and planted
collusion (no bots run).

The ladder is 100 bots playing heads-up duplicate blocks of two mirrors (the service's default
table), 5 x 10^5 blocks drawn from hidden strengths, tallied as results land (`BlockTally`), then
refitted with 1,000 bootstrap resamples (`standings`' default; the service's board uses 400), in a
process of its own started as the service starts its board's worker (numpy on one thread,
`ONE_THREAD_ENV`). The refit's floor is drawing its resamples alone (numpy's multinomial counts of
each kind of block): the bootstrap cannot be faster than choosing what it refits. The collusion
figures are `benchmarks.collusion`'s.

The service's refit: a service store holding 10^4, then 10^5 such sessions (recorded through the
store's bulk API, which tallies the blocks' kinds as the ladder's results do), fitted by the board's
own worker process (`python -m arena.service._board_worker STORE`, 400 resamples as the board asks)
twice: the seconds from the second request to its answer, the worker's CPU over both and its peak
resident memory. The 10^4 store is the baseline of the same run.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import trio

from arena.ratings import ONE_THREAD_ENV, BlockTally, SessionOutcome, bootstrap_blocks
from arena.service import FinishedSession, ServiceStore

from .collusion import collusion_figures
from .common import REPO, Sizes

_BOTS = 100
_SESSIONS = 1_000_000
_RESAMPLES = 1000
_SERVICE_SESSIONS = (10_000, 100_000)
_BOARD_RESAMPLES = 400


def ladder_results(*, bots: int, sessions: int, seed: int = 2026) -> Iterator[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Heads-up blocks of two mirrors from hidden strengths 8 Elo apart: a win, a draw (one in ten) or a loss.

    Each block's two sessions, one after the other: seating (bot numbers) and balances.
    """
    rng = random.Random(seed)
    for _ in range(sessions // 2):
        first, second = rng.sample(range(bots), 2)
        p_first = 1 / (1 + 10 ** (8 * (second - first) / 400))
        for mirror in range(2):
            draw = rng.random()
            chips = 0 if draw < 0.1 else 3 if draw < 0.1 + 0.9 * p_first else -3
            yield ((first, second), (chips, -chips)) if mirror == 0 else ((second, first), (-chips, chips))


def ladder_tally(*, bots: int, sessions: int, seed: int = 2026) -> BlockTally:
    """`ladder_results` tallied as they land."""
    tally = BlockTally()
    for index, (seats, balances) in enumerate(ladder_results(bots=bots, sessions=sessions, seed=seed)):
        tally.add(SessionOutcome(tuple(f"bot{seat:03d}" for seat in seats), balances, f"b{index // 2}"))
    return tally


def ladder_blocks(*, bots: int, sessions: int) -> list[list[FinishedSession]]:
    """`ladder_results` as the service stores them (players are version ids 1..bots)."""
    results = [FinishedSession(tuple(seat + 1 for seat in seats), balances, (0, 0), "h.jsonl")
               for seats, balances in ladder_results(bots=bots, sessions=sessions)]
    return [results[index:index + 2] for index in range(0, len(results), 2)]


def service_refit(store_path: Path, *, sessions: int) -> dict[str, Any]:
    """Fill a service store with `sessions` ladder sessions, then time the board's worker fitting it."""
    store = ServiceStore.open(store_path)
    blocks = ladder_blocks(bots=_BOTS, sessions=sessions)
    for start in range(0, len(blocks), 5000):
        store.record_finished_blocks(blocks[start:start + 5000], seed=lambda block: f"bench{block}", reason="benchmark")
    kinds = len(store.ladder_snapshot().kinds)
    store.close()
    worker = subprocess.Popen([sys.executable, "-m", "arena.service._board_worker", str(store_path)], cwd=REPO,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, env={**os.environ, **ONE_THREAD_ENV})
    assert worker.stdin is not None and worker.stdout is not None
    seconds = []
    for _ in range(2):  # the first fit opens the store and imports numpy; the second is a refit as the board's are
        began = time.perf_counter()
        worker.stdin.write(f"{_BOARD_RESAMPLES}\n".encode())
        worker.stdin.flush()
        answer = json.loads(worker.stdout.readline())
        seconds.append(time.perf_counter() - began)
        if "problem" in answer or len(answer["rated"]) != _BOTS:
            raise RuntimeError(f"the board's worker did not rate the ladder: {str(answer)[:500]}")
    worker.stdin.close()
    _, status, usage = os.wait4(worker.pid, 0)
    if status != 0:
        raise RuntimeError(f"the board's worker ended with status {status}")
    return {"s": seconds[1], "first_s": seconds[0], "cpu_s": usage.ru_utime + usage.ru_stime,
            "rss_mib": usage.ru_maxrss / 1024, "kinds": kinds,
            "store_mib": store_path.stat().st_size / 2**20}


def service_figures(workdir: Path) -> dict[str, Any]:
    """The service's refit at 10^4 and 10^5 stored sessions (the module's docstring)."""
    figures: dict[str, Any] = {}
    for sessions in _SERVICE_SESSIONS:
        size = f"1e{len(str(sessions)) - 1}"
        measured = service_refit(workdir / f"service-{size}.sqlite", sessions=sessions)
        figures.update({f"service_refit_{size}_s": round(measured["s"], 2),
                        f"service_refit_first_{size}_s": round(measured["first_s"], 2),
                        f"service_refit_worker_cpu_{size}_s": round(measured["cpu_s"], 2),
                        f"service_refit_peak_rss_{size}_mib": round(measured["rss_mib"], 1),
                        f"service_refit_kinds_{size}": measured["kinds"],
                        f"service_store_{size}_mib": round(measured["store_mib"], 1)})
    small, large = (f"1e{len(str(sessions)) - 1}" for sessions in _SERVICE_SESSIONS)
    figures["service_refit_time_ratio"] = round(figures[f"service_refit_{large}_s"]
                                                / figures[f"service_refit_{small}_s"], 2)
    figures["service_refit_rss_ratio"] = round(figures[f"service_refit_peak_rss_{large}_mib"]
                                               / figures[f"service_refit_peak_rss_{small}_mib"], 2)
    return figures


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
    service = await trio.to_thread.run_sync(service_figures, workdir)
    refit = await trio.to_thread.run_sync(refit_in_worker)
    collusion = await trio.to_thread.run_sync(collusion_figures, sizes)
    return {**service, **refit, **collusion}


if __name__ == "__main__":
    print(json.dumps(refit_figures()))
