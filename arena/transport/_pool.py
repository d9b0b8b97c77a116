"""Bot processes kept between sessions: a pool that leases each session its bots, launched or warm.

Theory of operation: a tournament's sessions take their bots from one `BotPool`. With
`max_sessions` 1 (`bot_processes: fresh`, the default) every lease launches a process for its
session, as `open_bot` does, and the process is stopped once the session is over, in the pool's
nursery, so the session's result does not wait for its bots to exit. With more (`reuse`), a
process that got through its session cleanly goes back to the pool, and a later session of the
same bot may take it instead of launching one. The rules that keep results fair:

- a lease is exclusive: a process serves one session at a time;
- a process never serves two sessions with the same key (the tournament passes the deal seed, so
  no process plays both mirrors of a duplicate block: it would know the cards);
- no process that served a key is alive while another session of that key is played: a process
  goes back only after the `final` session of its key (the last mirror of its block to be played),
  and a lease waits until every process that served its key is reaped. Otherwise a process kept
  warm from one mirror could tell its twin in the next the cards through whatever the machine
  shares at one moment (a count of ptys, of open files, the load: see docs/isolation.md);
- only a clean process goes back: any fault of the bot in the session (late, malformed, illegal,
  crashed, still working on an abandoned call), or a process that exited, and it is stopped; one
  that exits while it waits is stopped instead of leased; after `max_sessions` it is stopped too;
- nothing of the arena's carries over: each session starts with fresh telemetry, time bank and
  fairness accounting (`BotConnection.begin_session`) and its own log files (`BotProcess.log_to`);
- each process is launched as `open_bot` launches one: under `sandbox` with its own uid, control
  group, socket folder and private /tmp, which it keeps for its life and shares with no other.

Bots given by address, and disabled bots, are not pooled: each lease opens them as `open_bot` does.
At most `keep_idle()` processes wait between sessions; past that the longest waiting is stopped.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

import trio

from ..isolation import session_folder
from ._bot import BotConnection, BotSpec, launch_bot, open_bot, shut_down


@dataclass(eq=False)
class _Warm:
    """One launched process of a bot and what it has served."""

    connection: BotConnection
    served: set[str] = field(default_factory=set)
    """The keys of the sessions it has finished playing (deal seeds)."""
    sessions: int = 0
    leased: bool = True
    gone: trio.Event = field(default_factory=trio.Event)
    """Set once it is stopped and reaped."""


class BotPool:
    """Leases bots to sessions; see the module docstring. Open one with `open_bot_pool`."""

    def __init__(self, nursery: trio.Nursery, socket_dir: Path, *, hidden: Sequence[Path], max_sessions: int,
                 keep_idle: Callable[[], int]) -> None:
        if max_sessions < 1:
            raise ValueError(f"max_sessions must be at least 1, not {max_sessions}")
        self._nursery = nursery
        self._socket_dir = socket_dir
        self._hidden = tuple(hidden)
        self.max_sessions = max_sessions
        """Sessions a process serves at most (1: a process per session)."""
        self._keep_idle = keep_idle
        self._idle: list[_Warm] = []  # waiting between sessions, the longest waiting first
        self._live: set[_Warm] = set()  # every process launched and not yet reaped
        self.launched = 0
        """Processes launched so far."""

    @asynccontextmanager
    async def lease(self, spec: BotSpec, *, key: str, log_dir: Path, final: bool = False
                    ) -> AsyncIterator[BotConnection]:
        """A ready connection to a process of `spec` for one session, that never served `key` and
        serves nothing else meanwhile: a warm one if there is one, else one launched now; first, every
        process that served `key` is stopped and reaped.

        Its output goes to `log_dir`. A bot that fails to start is still yielded, with `dead` set.
        `final`: no later lease has this key (the last mirror of a block to be played), so the
        process may stay warm after it; otherwise it is stopped once the session is over.

        Raises:
            SandboxError: the machine cannot provide the bot's isolation level.
            RuntimeError: a process that served `key` is serving another session: the caller said
                `final` for a key it leased again.
        """
        await self._forget(key)
        if spec.command is None or spec.disabled is not None:
            async with open_bot(spec, log_dir=log_dir, socket_dir=self._socket_dir, hidden=self._hidden) as connection:
                yield connection
            return
        warm = self._take(spec, key)
        if warm is None:
            self.launched += 1
            warm = _Warm(await launch_bot(spec, nursery=self._nursery, log_dir=log_dir, socket_dir=self._socket_dir,
                                          hidden=self._hidden))
            self._live.add(warm)
        else:
            assert warm.connection.process is not None
            warm.connection.process.log_to(log_dir)
            warm.connection.begin_session(warm.sessions + 1)
        warm.sessions += 1
        warm.leased = True
        kept = False
        try:
            yield warm.connection
            kept = final and warm.sessions < self.max_sessions and warm.connection.is_clean()
        finally:
            warm.served.add(key)
            warm.leased = False
            if kept:
                self._idle.append(warm)
                while len(self._idle) > max(0, self._keep_idle()):
                    self._retire(self._idle.pop(0))
            else:
                self._retire(warm)

    async def _forget(self, key: str) -> None:
        """Stop every process that served `key`, and wait until each is reaped (a bounded wait:
        stopping a bot is, see `BotProcess.stop`)."""
        for warm in [warm for warm in self._idle if key in warm.served]:
            self._idle.remove(warm)
            self._retire(warm)
        served = [warm for warm in self._live if key in warm.served]
        if any(warm.leased for warm in served):
            raise RuntimeError(f"a process that served {key!r} is serving another session: its lease was final")
        for warm in served:
            await warm.gone.wait()

    def _take(self, spec: BotSpec, key: str) -> _Warm | None:
        """The warm process of `spec` that waited least, among those that never served `key`."""
        for warm in reversed(self._idle):
            connection = warm.connection
            if connection.name != spec.name or connection.spec != spec or key in warm.served:
                continue
            self._idle.remove(warm)
            assert connection.process is not None
            if connection.process.returncode is None:
                return warm
            self._retire(warm)  # it ended while it waited: replaced, and its end is no session's fault
        return None

    def _retire(self, warm: _Warm) -> None:
        async def stop() -> None:
            try:
                await shut_down(warm.connection)
            finally:
                self._live.discard(warm)
                warm.gone.set()

        self._nursery.start_soon(stop)

    def close(self) -> None:
        """Stop every waiting process (in the pool's nursery, which waits for them)."""
        while self._idle:
            self._retire(self._idle.pop())


@asynccontextmanager
async def open_bot_pool(*, hidden: Sequence[Path] = (), max_sessions: int = 1,
                        keep_idle: Callable[[], int] = lambda: 0) -> AsyncIterator[BotPool]:
    """A `BotPool` whose processes listen in one session folder (see `session_folder`); on exit every
    process is stopped and reaped.

    Args:
        hidden: what no sandboxed bot may be shown (see `open_bot`).
        max_sessions: sessions a process serves at most; 1 launches a process per session.
        keep_idle: how many processes may wait between sessions, asked whenever one goes back.
    """
    with session_folder() as sockets:
        async with trio.open_nursery() as nursery:
            pool = BotPool(nursery, sockets, hidden=hidden, max_sessions=max_sessions, keep_idle=keep_idle)
            try:
                yield pool
            finally:
                pool.close()
