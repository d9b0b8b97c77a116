"""One tournament played in-process and on a local Dask cluster of two worker processes: sessions per minute, CPU.

Theory of operation: the same tournament (the `tournament` section's sample bots, fresh bot
processes per session, concurrency 4) is played twice in this run, with the `local` executor and
with `--cluster local:2` (two worker processes of two threads each: the same four sessions in
flight). Sessions per minute count from the moment the executor is ready (the cluster started and
the bundles shipped: `cluster_dask_start_seconds`) to the last result. The driver's CPU per
session is this process's CPU over the same span: for `local` it holds the sessions' arena side
(every bot call); for `local:2` the runner, the store and the histories, the Dask client, and the
scheduler and nannies a local cluster runs in the driver's process. That is what bounds how many
workers one driver can feed (docs/scaling.md). The workers' CPU (their arena side and their bots)
is counted once they are stopped and reaped.
"""

from __future__ import annotations

import resource
import time
from pathlib import Path
from typing import Any

from arena.tournament import Progress, TournamentRunner, parse_config

from .common import Sizes
from .tournament import tournament_yaml


def _cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


async def _play(yaml: str, out: Path, cluster: str | None) -> dict[str, float]:
    runner = TournamentRunner(parse_config(yaml, filename="<bench>"), out=out, cluster=cluster)
    marks: dict[str, tuple[float, float]] = {}

    def progress(report: Progress) -> None:
        now = (time.perf_counter(), _cpu(resource.RUSAGE_SELF))
        marks.setdefault("ready", now)  # the first report comes once the executor is ready
        if report.last is not None:
            marks["last"] = now

    try:
        started, children = time.perf_counter(), _cpu(resource.RUSAGE_CHILDREN)
        complete = await runner.run(on_progress=progress)
        children = _cpu(resource.RUSAGE_CHILDREN) - children  # the cluster is stopped, its workers reaped
    finally:
        runner.close()
    if not complete:
        raise RuntimeError(f"the benchmark tournament did not complete (cluster {cluster})")
    sessions = len(runner.plan)
    (ready, ready_cpu), (last, last_cpu) = marks["ready"], marks["last"]
    return {"sessions": sessions, "start_seconds": ready - started, "sessions_per_min": sessions / (last - ready) * 60,
            "driver_cpu_ms_per_session": (last_cpu - ready_cpu) / sessions * 1000,
            "children_cpu_ms_per_session": children / sessions * 1000}


async def measure(sizes: Sizes, workdir: Path) -> dict[str, Any]:
    """The suite's `cluster` section: the `tournament` section's round robin, local and on `local:2`."""
    yaml = tournament_yaml(sizes.tournament_bots, concurrency=4)
    local = await _play(yaml, workdir / "cluster-local", None)
    dask = await _play(yaml, workdir / "cluster-dask", "local:2")
    return {
        "cluster_sessions": local["sessions"],
        "cluster_local_sessions_per_min": round(local["sessions_per_min"], 1),
        "cluster_dask_sessions_per_min": round(dask["sessions_per_min"], 1),
        "cluster_dask_vs_local_ratio": round(dask["sessions_per_min"] / local["sessions_per_min"], 3),
        "cluster_dask_start_seconds": round(dask["start_seconds"], 2),
        "cluster_local_driver_cpu_ms_per_session": round(local["driver_cpu_ms_per_session"], 1),
        "cluster_dask_driver_cpu_ms_per_session": round(dask["driver_cpu_ms_per_session"], 1),
        "cluster_local_bot_cpu_ms_per_session": round(local["children_cpu_ms_per_session"], 1),
        "cluster_dask_worker_cpu_ms_per_session": round(dask["children_cpu_ms_per_session"], 1),
    }
