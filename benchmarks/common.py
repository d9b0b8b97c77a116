"""What the benchmark sections share: run sizes, sample bots opened for a block, a typical decision."""

from __future__ import annotations

import os
import socket
import sys
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import trio

from arena.engine import GEORGIAN, SessionState
from arena.isolation import BotProcess
from arena.protocol import ADDRESS_ENV
from arena.transport import BotConnection, BotSpec, TimeLimit, open_bot

REPO = Path(__file__).resolve().parent.parent
SAMPLE_BOTS = REPO / "sample_bots"
JS_BOT = SAMPLE_BOTS / "js_bot"

# Generous limits: a benchmark measures speed; a fault would change what is measured.
LIMIT = TimeLimit(decision_ms=10_000, start_ms=30_000)
DEADLINE = 10.0
"""Seconds allowed to a raw grpcio call made beside the arena's."""


@dataclass(frozen=True)
class Sizes:
    """How much of everything one run measures; `--quick` picks the small set."""

    engine_seconds: float
    decision_rounds: int
    decision_calls: int
    inflight: tuple[int, ...]
    inflight_bots: int
    inflight_warmup: float
    inflight_window: float
    efficiency_rounds: int
    raw_window: float
    start_repeats: int
    tournament_bots: int
    """Sample bots of the cluster section's round robin."""
    tournament_blocks: int
    """Duplicate blocks per table of the demo tournament (the demo itself has 4)."""
    scaling_bots: tuple[int, ...]
    resamples: int
    duplicate_pairs: int
    duplicate_inflight: int
    service_requests: int
    """Leaderboard requests per client (8 clients) over the service's 10^5 sessions."""
    service_rounds: int
    """Idle and browsed windows (each) of the ladder's pace."""
    service_window: float
    """Seconds per window."""
    separation_blocks: int
    """Duplicate blocks (and as many independent sessions as they hold) of each heads-up pair of `efficiency`;
    a twelfth of them at six seats."""
    bias_sessions: int
    """Sessions of each of the ten cases of the estimator's bias (`efficiency`)."""
    collusion_shared: int
    """Sessions each planted pair shares before its report (`integrity`); each pair of an honest pool as many."""
    collusion_trials: int
    """Planted pools of each kind (`integrity`)."""
    collusion_honest_pools: int
    """Pools of nine honest drawn-choice bots, one report each (`integrity`)."""
    collusion_population: tuple[int, int]
    """Honest drawn-choice bots (3 mod 6) of the one-report population, and the passes of its balanced design
    (each pair shares three sessions a pass; `integrity`)."""


FULL = Sizes(engine_seconds=2.0, decision_rounds=7, decision_calls=200, inflight=(1, 4, 16, 64), inflight_bots=8,
             inflight_warmup=2.0, inflight_window=5.0, efficiency_rounds=3, raw_window=3.0, start_repeats=9,
             tournament_bots=8, tournament_blocks=4, scaling_bots=(4, 8, 16, 32), resamples=1000, duplicate_pairs=500,
             duplicate_inflight=4, service_requests=100, service_rounds=3, service_window=40.0,
             separation_blocks=2000, bias_sessions=10_000, collusion_shared=2000,
             collusion_trials=2, collusion_honest_pools=20, collusion_population=(147, 10))
QUICK = Sizes(engine_seconds=0.7, decision_rounds=5, decision_calls=120, inflight=(1, 4, 16, 64), inflight_bots=8,
              inflight_warmup=0.8, inflight_window=1.5, efficiency_rounds=3, raw_window=1.5, start_repeats=5,
              tournament_bots=4, tournament_blocks=2, scaling_bots=(4, 8, 16), resamples=1000, duplicate_pairs=60,
              duplicate_inflight=4, service_requests=40, service_rounds=2, service_window=20.0,
              separation_blocks=300, bias_sessions=300, collusion_shared=300,
              collusion_trials=1, collusion_honest_pools=1, collusion_population=(15, 8))


def python_bot(name: str, script: str, *args: str) -> BotSpec:
    """A sample bot run by this interpreter (so it finds `arena`), from the repository root."""
    return BotSpec(name=name, command=(sys.executable, str(SAMPLE_BOTS / script), *args), cwd=str(REPO),
                   limit=LIMIT)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@asynccontextmanager
async def open_bots(specs: Sequence[BotSpec], *, workdir: Path) -> AsyncIterator[list[BotConnection]]:
    """Open every bot at once (readiness dominates) and keep them open for the whole block."""
    done = trio.Event()
    all_ready = trio.Event()
    connections: dict[int, BotConnection] = {}

    async def hold(index: int, spec: BotSpec) -> None:
        # Each bot's context is entered and left by its own task, as run_session does.
        async with open_bot(spec, log_dir=workdir / "logs", socket_dir=workdir) as connection:
            connections[index] = connection
            if len(connections) == len(specs):
                all_ready.set()
            await done.wait()

    async with trio.open_nursery() as nursery:
        for index, spec in enumerate(specs):
            nursery.start_soon(hold, index, spec)
        try:
            await all_ready.wait()
            ordered = [connections[index] for index in range(len(specs))]
            dead = [f"{bot.name}: {bot.dead}" for bot in ordered if bot.dead is not None]
            if dead:
                raise RuntimeError("bots failed to start: " + "; ".join(dead))
            yield ordered
        finally:
            done.set()


@asynccontextmanager
async def open_tcp_bot(name: str, script: str, *, workdir: Path) -> AsyncIterator[BotConnection]:
    """A sample bot listening on loopback TCP, launched the arena's way, connected by address."""
    address = f"127.0.0.1:{free_port()}"
    async with trio.open_nursery() as nursery:
        process = BotProcess.launch((sys.executable, str(SAMPLE_BOTS / script)), name=name,
                                    log_dir=workdir / "logs", cwd=str(REPO), env={**os.environ, ADDRESS_ENV: address})
        nursery.start_soon(process.drain_output)
        try:
            # A bot given by its address where nothing listens yet is a crash at once: wait for the port.
            while process.returncode is None and not _accepts(address):
                await trio.sleep(0.01)
            async with open_bot(BotSpec(name=name, address=address, limit=LIMIT), log_dir=workdir / "logs",
                                socket_dir=workdir) as connection:
                if connection.dead is not None:
                    raise RuntimeError(f"{name} on {address}: {connection.dead}")
                yield connection
        finally:
            with trio.CancelScope(shield=True):
                await process.stop()


def _accepts(address: str) -> bool:
    host, _, port = address.rpartition(":")
    try:
        socket.create_connection((host, int(port)), timeout=1).close()
    except OSError:
        return False
    return True


def decision_state() -> SessionState:
    """A heads-up session at a betting turn with a few actions behind it: a typical TurnRequest."""
    state = SessionState(GEORGIAN, bots=["bench-a", "bench-b"], seed="bench-decision", session="bench")
    for _ in range(3):
        state.bet(state.legal_actions().min_bet)
    return state
