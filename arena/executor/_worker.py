"""What a Dask worker runs: a session job, played with `trio.run` in the worker's own thread.

Theory of operation: Dask runs each task in one of the worker's pool threads, which live until the
worker stops. `play_on_worker` runs a whole session there with `trio.run` (no event loop is
running in that thread) and never leaves the thread (no `secede`): the bot launcher arms each
bot's parent-death signal, which the kernel sends when the thread that forked the bot exits, so
bots die with their worker, SIGKILL included. Before its first session a worker checks that it can
provide each isolation level asked (cached for the process); the bots' bundles are checked against
their digests (once per bytes object received) and unpacked into the worker's own cache; the bots'
logs go to a temporary folder whose files travel back in the outcome. Nothing here writes the
driver's store or files.
"""

from __future__ import annotations

import functools
import os
import shutil
import tempfile
import threading
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

import trio

from ..engine import ArenaError
from ..isolation import Isolation, isolation_problem
from ._bundles import unpack_bundle, unpacked_spec
from ._jobs import JobOutcome, SessionJob, play_job

_checked: dict[Isolation, str | None] = {}
_verified: dict[str, bytes] = {}  # digest -> the bytes object found to have it
_lock = threading.Lock()


class WorkerError(ArenaError):
    """A worker that cannot play a job (it lacks an isolation level, a bundle): says which and why."""


def worker_address() -> str:
    """This worker's address, or `in-process` outside a Dask worker."""
    try:
        from distributed import get_worker  # a Dask worker has distributed; anything else needs no name
    except ImportError:
        return "in-process"
    try:
        return str(get_worker().address)
    except ValueError:
        return "in-process"


def worker_problem(isolation: Isolation) -> str | None:
    """Why this worker cannot launch bots at `isolation`, or None; checked once per process."""
    with _lock:
        if isolation not in _checked:
            _checked[isolation] = isolation_problem(isolation)
        return _checked[isolation]


def check_worker(isolation: str) -> str | None:
    """Run on every worker when a driver connects: None, or why it cannot provide `isolation`."""
    return worker_problem(Isolation(isolation))


def bundle_cache() -> Path:
    """Where this worker unpacks bundles: its Dask local folder, else the system's temporary folder."""
    try:
        from distributed import get_worker

        return Path(get_worker().local_directory) / "arena-bundles"
    except (ImportError, ValueError):
        # Not `seka-*`: the sandbox hides those folders of the temporary folder from every bot.
        return Path(tempfile.gettempdir()) / f"arena-bundles-{os.geteuid()}"


def _unpacked(data: bytes, digest: str, *, bot: str) -> Path:
    # Dask hands every task the same bytes object it keeps for a bundle: checked once, not per session.
    folder = bundle_cache() / digest
    with _lock:
        if _verified.get(digest) is data and folder.is_dir():
            return folder
    folder = unpack_bundle(data, digest, bundle_cache(), bot=bot)
    with _lock:
        _verified[digest] = data
    return folder


def play_on_worker(job: SessionJob, bundles: Mapping[str, bytes]) -> JobOutcome:
    """Play `job` here, its bots unpacked from `bundles` (by digest); the outcome, logs included.

    Raises:
        WorkerError: this worker lacks an isolation level the job asks for.
        arena.executor.BundleError: a bundle is missing, or does not match its digest.
    """
    worker = worker_address()
    for spec in job.bots:
        if spec.disabled is None and spec.command is not None and (problem := worker_problem(spec.isolation)):
            raise WorkerError(f"worker {worker} cannot run bot {spec.name!r} at isolation "
                              f"`{spec.isolation.value}`: {problem}")
    specs = list(job.bots)
    for seat, digest in enumerate(job.bundles):
        if digest is None:
            continue
        if digest not in bundles:
            raise WorkerError(f"worker {worker}: the bundle {digest} of bot {specs[seat].name!r} did not arrive")
        specs[seat] = unpacked_spec(specs[seat], _unpacked(bundles[digest], digest, bot=specs[seat].name))
    logs = Path(tempfile.mkdtemp(prefix="arena-logs-"))
    try:
        return trio.run(functools.partial(play_job, replace(job, bots=tuple(specs)), log_dir=logs, worker=worker,
                                          logs_back=True))
    finally:
        shutil.rmtree(logs, ignore_errors=True)
