"""The session executor interface, and its default backend: sessions in the driver's own trio loop.

Theory of operation: a driver (the tournament runner, a ladder) decides which sessions to play and
in which order, and keeps at most `SessionExecutor.limit` of them in flight; the executor plays
each `SessionJob` it is handed and returns its `JobOutcome`, writing nothing of the driver's.
An executor is entered (`async with`) for the time of a run: a backend that needs a cluster, or
processes kept between sessions, starts them there and stops them on the way out.

`LocalExecutor` plays every session as a task of the caller's trio loop (the caller's nursery
and its limit are the semaphore), bots launched on this machine from their own folders, their
logs written in place. Its limit is the `Governor`'s: fixed by `concurrency`, or fitted to what
sessions cost on this machine's cores. While it is entered, its sessions lease their bots from
one `arena.transport.BotPool`: a process per session (`bot_processes: fresh`), stopped once the
session is over without the session waiting for it, or warm processes that serve several
sessions in turn (`reuse`; see the pool for the rules that keep that fair).
"""

from __future__ import annotations

import abc
import time
from collections.abc import Sequence
from contextlib import AsyncExitStack
from pathlib import Path
from types import TracebackType

from ..transport import BotPool, BotSpec, open_bot_pool
from ._governor import Governor
from ._jobs import JobOutcome, SessionJob, play_job


class SessionExecutor(abc.ABC):
    """Plays session jobs; entered (`async with`) for the time of a run."""

    name: str
    """`local` or `dask`, for the run's output."""

    @property
    @abc.abstractmethod
    def limit(self) -> int:
        """Sessions the driver may have in flight now."""

    @abc.abstractmethod
    def describe(self) -> str:
        """Where and how many at a time sessions are played, for the run's output."""

    def verify(self, bots: Sequence[BotSpec]) -> None:
        """Refuse, before anything is stored or started, bots this executor cannot play.

        Raises:
            arena.engine.ArenaError: naming the bot and why.
        """
        return None

    async def prepare(self, bots: Sequence[BotSpec]) -> None:
        """Ready the executor for these bots before their first session (a cluster ships their files).

        Raises:
            arena.engine.ArenaError: a bot this executor cannot play, saying why.
        """
        return None

    @abc.abstractmethod
    async def play(self, job: SessionJob) -> JobOutcome:
        """Play one session to its end and return its outcome (never writes the driver's files).

        Raises:
            arena.engine.ArenaError: the session could not be played (the backend says why); a
                bot's own failure is never an error here, but a fault in the outcome.
        """

    async def __aenter__(self) -> SessionExecutor:
        return self

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None,
                        traceback: TracebackType | None) -> None:
        return None


class LocalExecutor(SessionExecutor):
    """Sessions in the caller's trio loop, bots on this machine; see the module docstring."""

    name = "local"

    def __init__(self, *, logs: Path, hidden: Sequence[Path] = (), concurrency: int | None = None,
                 sessions_per_process: int = 1, seats: int = 2, live: Path | None = None) -> None:
        self.logs = logs
        """Each session's bot logs go to `logs/<session id>/`."""
        self.live = live
        """Each session's history is appended to `live/<session id>.jsonl` as it is played (live pages)."""
        self.hidden = tuple(hidden)
        """What no sandboxed bot may be shown (see `arena.match.run_session`)."""
        self.governor = Governor(concurrency)
        """How many sessions may be in flight (`concurrency`, or chosen as they go)."""
        self._in_flight = 0
        # The process's CPU, shared among the sessions in flight as each ends.
        self._cpu, self._at = time.process_time(), time.monotonic()
        self.sessions_per_process = sessions_per_process
        """Sessions one bot process serves at most: 1 with `bot_processes: fresh`."""
        self._seats = seats
        self._pool: BotPool | None = None
        self._entered = AsyncExitStack()

    async def __aenter__(self) -> LocalExecutor:
        # Enough warm processes wait between sessions for the sessions in flight and the next ones.
        self._pool = await self._entered.enter_async_context(open_bot_pool(
            hidden=self.hidden, max_sessions=self.sessions_per_process,
            keep_idle=lambda: 2 * self._seats * self.governor.limit))
        return self

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None,
                        traceback: TracebackType | None) -> None:
        self._pool = None
        await self._entered.__aexit__(kind, error, traceback)  # every bot process stopped and reaped

    @property
    def limit(self) -> int:
        return self.governor.limit

    def describe(self) -> str:
        if self.governor.fixed is not None:
            return f"{self.governor.fixed} at a time"
        return (f"as many at a time as {self.governor.cores} cores can serve (from {self.governor.limit}, "
                "adjusted to what sessions cost)")

    async def play(self, job: SessionJob) -> JobOutcome:
        self._in_flight += 1
        try:
            outcome = await play_job(job, log_dir=self.logs / job.session_id, hidden=self.hidden, pool=self._pool,
                                     live=self.live / f"{job.session_id}.jsonl" if self.live is not None else None)
        finally:
            self._in_flight -= 1
        now, cpu = time.monotonic(), time.process_time()
        self.governor.ended(seconds=outcome.seconds, bots_cpu=outcome.bots_cpu(),
                            arena_cores=(cpu - self._cpu) / max(now - self._at, 1e-3) / (self._in_flight + 1))
        self._cpu, self._at = cpu, now
        return outcome
