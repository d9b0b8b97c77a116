"""The benchmark suite: every figure next to a baseline measured in the same run.

Run: .venv/bin/python -m benchmarks.bench [--quick] [--json FILE]
(the CLI wires the same `main` as `seka-arena bench`). docs/benchmarks.md explains every figure
and every key of the JSON file, and records the figures of a run with its machine.

Theory of operation: these machines are small and noisy, so nothing here is compared with a
number from another day. Each figure that depends on the machine comes with its floor from the
same run: the engine with a fixed pure-Python loop, the arena's decision with a bare grpcio
blocking call to the same bot process, sessions in flight with bare concurrent calls to the same
bot processes, a bot's start with the interpreter importing grpc. Where two things are compared,
their rounds alternate and the median round is kept, so a burst of noise hits both sides.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import math
import os
import platform
import random
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import trio

from arena._proto.seka.v1 import seka_pb2 as pb
from arena._proto.seka.v1 import seka_pb2_grpc as pb_grpc
from arena.engine import GEORGIAN, Bet, SessionState, turn_view
from arena.match import play_session
from arena.protocol import ADDRESS_ENV
from arena.ratings import SessionOutcome, standings
from arena.tournament import TournamentRunner, parse_config, plan
from arena.transport import BotConnection, BotProcess, BotSpec, Telemetry, TimeLimit, call_unary, open_bot
from arena.transport._convert import action_from_reply, turn_request

from .engine import calibration_loops_per_second, engine_pots_per_second, hand_evaluations_per_second

REPO = Path(__file__).resolve().parent.parent
SAMPLE_BOTS = REPO / "sample_bots"
JS_BOT = SAMPLE_BOTS / "js_bot"

# Generous limits: a benchmark measures speed; a fault would change what is measured.
_LIMIT = TimeLimit(decision_ms=10_000, start_ms=30_000)
_DEADLINE = 10.0
_Z95 = 1.959964


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
    scaling_bots: tuple[int, ...]
    resamples: int
    duplicate_pairs: int
    duplicate_inflight: int


FULL = Sizes(engine_seconds=2.0, decision_rounds=7, decision_calls=200, inflight=(1, 4, 16, 64), inflight_bots=8,
             inflight_warmup=2.0, inflight_window=5.0, efficiency_rounds=3, raw_window=3.0, start_repeats=5,
             tournament_bots=8, scaling_bots=(4, 8, 16, 32), resamples=1000, duplicate_pairs=500,
             duplicate_inflight=4)
QUICK = Sizes(engine_seconds=0.7, decision_rounds=5, decision_calls=120, inflight=(1, 4, 16, 64), inflight_bots=8,
              inflight_warmup=0.8, inflight_window=1.5, efficiency_rounds=3, raw_window=1.5, start_repeats=3,
              tournament_bots=4, scaling_bots=(4, 8, 16), resamples=1000, duplicate_pairs=60,
              duplicate_inflight=4)

# The pair whose difference the duplicate-dealing figure measures: real but small (see docs).
DUPLICATE_PAIR = (("threshold", "threshold_bot.py"), ("minimal", "minimal_bot.py"))


# ---------------------------------------------------------------------------------- helpers


def python_bot(name: str, script: str, *args: str) -> BotSpec:
    """A sample bot run by this interpreter (so it finds `arena`), from the repository root."""
    return BotSpec(name=name, command=(sys.executable, str(SAMPLE_BOTS / script), *args), cwd=str(REPO),
                   limit=_LIMIT)


def rss_kib() -> int:
    """This process's resident set size in KiB (VmRSS)."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS in /proc/self/status")


def machine() -> dict[str, Any]:
    model = "unknown"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {"nproc": os.cpu_count(), "cpu_model": model, "python": platform.python_version(),
            "platform": platform.platform(), "grpcio": grpc.__version__, "loadavg_at_start": os.getloadavg()[0]}


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
            async with open_bot(BotSpec(name=name, address=address, limit=_LIMIT), log_dir=workdir / "logs",
                                socket_dir=workdir) as connection:
                if connection.dead is not None:
                    raise RuntimeError(f"{name} on {address}: {connection.dead}")
                yield connection
        finally:
            with trio.CancelScope(shield=True):
                await process.stop()


def decision_state() -> SessionState:
    """A heads-up session at a betting turn with a few actions behind it: a typical TurnRequest."""
    state = SessionState(GEORGIAN, bots=["bench-a", "bench-b"], seed="bench-decision", session="bench")
    for _ in range(3):
        state.bet(state.legal_actions().min_bet)
    return state


# ---------------------------------------------------------------------------------- 1. engine


def bench_engine(sizes: Sizes) -> dict[str, Any]:
    pots_per_s, pots = engine_pots_per_second(sizes.engine_seconds)
    evaluations_per_s = hand_evaluations_per_second(sizes.engine_seconds)
    loops_per_s = calibration_loops_per_second(sizes.engine_seconds)
    return {
        "engine_pots_per_s": round(pots_per_s),
        "engine_pots_played": pots,
        "hand_evaluations_per_s": round(evaluations_per_s),
        "baseline_loops_per_s": round(loops_per_s),
        "pots_per_million_baseline_loops": round(pots_per_s / loops_per_s * 1e6, 1),
        "evaluations_per_baseline_loop": round(evaluations_per_s / loops_per_s, 4),
    }


# ---------------------------------------------------------------------------------- 2. per decision


async def _decision_rounds(connection: BotConnection, sizes: Sizes) -> dict[str, float]:
    """Raw blocking calls, bridge-only calls and whole arena decisions, in alternating rounds."""
    state = decision_state()
    session_id = "bench-decision"
    payload = turn_request(turn_view(state), session_id=session_id)
    channel = grpc.insecure_channel(connection.address)
    stub = pb_grpc.SekaBotStub(channel)
    calls = sizes.decision_calls

    async def raw_round() -> tuple[float, float]:
        # Blocks the trio thread on purpose: nothing else runs meanwhile, and this is the floor.
        wall, cpu = time.perf_counter(), time.process_time()
        for _ in range(calls):
            stub.Act(payload, timeout=_DEADLINE)
        return time.perf_counter() - wall, time.process_time() - cpu

    async def bridge_round() -> tuple[float, float]:
        wall, cpu = time.perf_counter(), time.process_time()
        for _ in range(calls):
            await call_unary(stub.Act, payload, timeout=_DEADLINE)
        return time.perf_counter() - wall, time.process_time() - cpu

    async def arena_round() -> tuple[float, float]:
        wall, cpu = time.perf_counter(), time.process_time()
        for _ in range(calls):
            # The whole per-decision path of arena.match, minus applying the action (so the state,
            # and with it the payload, stays the same from call to call).
            request = turn_request(turn_view(state), session_id=session_id)
            action = action_from_reply(await connection.decide("Act", request))
            assert isinstance(action, Bet)  # the call bot always pays the least allowed
            state.verify_bet(action.amount)
        return time.perf_counter() - wall, time.process_time() - cpu

    def local_round() -> tuple[float, float]:
        # The arena's own work per decision, with no call: build the request, check a reply.
        reply = stub.Act(payload, timeout=_DEADLINE)
        start = time.perf_counter()
        for _ in range(calls):
            turn_request(turn_view(state), session_id=session_id)
        built = time.perf_counter()
        for _ in range(calls):
            action = action_from_reply(reply)
            assert isinstance(action, Bet)  # the call bot always pays the least allowed
            state.verify_bet(action.amount)
        return built - start, time.perf_counter() - built

    try:
        await raw_round(), await bridge_round(), await arena_round()  # warm up the channels and the bot
        samples: dict[str, list[float]] = {name: [] for name in
                                           ("raw", "raw_cpu", "bridge", "bridge_cpu", "arena", "arena_cpu",
                                            "build", "check")}
        rounds: list[tuple[str, Callable[[], Awaitable[tuple[float, float]]]]] = [
            ("raw", raw_round), ("bridge", bridge_round), ("arena", arena_round)]
        for number in range(sizes.decision_rounds):
            # Each round starts one variant further on, so no variant always follows the same one.
            for name, round_ in rounds[number % 3:] + rounds[:number % 3]:
                wall, cpu = await round_()
                samples[name].append(wall / calls * 1e6)
                samples[name + "_cpu"].append(cpu / calls * 1e6)
            build, check = local_round()
            samples["build"].append(build / calls * 1e6)
            samples["check"].append(check / calls * 1e6)
        return {name: statistics.median(values) for name, values in samples.items()}
    finally:
        channel.close()


def _decision_figures(medians: dict[str, float], suffix: str) -> dict[str, Any]:
    return {
        f"raw_call_us_{suffix}": round(medians["raw"], 1),
        f"arena_decision_us_{suffix}": round(medians["arena"], 1),
        f"decision_overhead_ratio_{suffix}": round(medians["arena"] / medians["raw"], 3),
        f"bridge_call_us_{suffix}": round(medians["bridge"], 1),
        f"raw_cpu_us_{suffix}": round(medians["raw_cpu"], 1),
        f"arena_cpu_us_{suffix}": round(medians["arena_cpu"], 1),
        f"bridge_cpu_us_{suffix}": round(medians["bridge_cpu"], 1),
    }


async def bench_decisions(sizes: Sizes, workdir: Path) -> dict[str, Any]:
    async with open_bots([python_bot("call-unix", "call_bot.py")], workdir=workdir) as (bot,):
        unix = await _decision_rounds(bot, sizes)
    async with open_tcp_bot("call-tcp", "call_bot.py", workdir=workdir) as bot:
        tcp = await _decision_rounds(bot, sizes)
    figures = _decision_figures(unix, "unix") | _decision_figures(tcp, "tcp")
    figures["decision_overhead_ratio"] = figures["decision_overhead_ratio_unix"]
    figures["request_build_us"] = round(statistics.median([unix["build"], tcp["build"]]), 1)
    figures["reply_check_us"] = round(statistics.median([unix["check"], tcp["check"]]), 1)
    return figures


# ---------------------------------------------------------------------------------- 3, 4. in flight


def _pair(index: int, bots: int) -> tuple[int, int]:
    """The two bots of the index-th session slot: neighbours first, then every other distance."""
    first = index % bots
    return first, (first + 1 + (index // bots) % (bots - 1)) % bots


def machine_jiffies() -> tuple[int, int]:
    """(busy, all) CPU time of the whole machine so far, in clock ticks, from /proc/stat."""
    ticks = [int(field) for field in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return sum(ticks) - ticks[3] - ticks[4], sum(ticks)  # idle and iowait are not busy


def processes_cpu(bots: Sequence[BotConnection]) -> float:
    """CPU seconds used so far by the bots' processes (all their threads)."""
    total = 0
    for bot in bots:
        if bot.process is not None:
            with contextlib.suppress(FileNotFoundError):
                fields = Path(f"/proc/{bot.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
                total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / os.sysconf("SC_CLK_TCK")


@contextmanager
def machine_and_bots_cpu(bots: Sequence[BotConnection]) -> Iterator[dict[str, float]]:
    """On exit: the share of the machine's CPU that was busy meanwhile, and the bots' CPU seconds."""
    measured: dict[str, float] = {}
    busy, every = machine_jiffies()
    bots_cpu = processes_cpu(bots)
    yield measured
    busy_after, every_after = machine_jiffies()
    measured["machine_busy"] = (busy_after - busy) / max(every_after - every, 1)
    measured["bots_cpu_s"] = processes_cpu(bots) - bots_cpu


@dataclass
class InflightRun:
    sessions_per_s: float
    decisions_per_s: float
    rpcs_per_s: float
    cpu_us_per_rpc: float
    rss_peak_kib: int
    faults: int
    bot_cpu_us_per_rpc: float
    machine_busy: float


async def _sessions_in_flight(bots: Sequence[BotConnection], inflight: int, *, warmup: float, window: float,
                              tag: str) -> InflightRun:
    """`inflight` sessions at all times on the open bots; counted over `window` after `warmup`."""
    for bot in bots:
        bot.telemetry = Telemetry()  # its latency lists would otherwise grow through the whole run
    measuring = False
    finished = 0
    faults = 0

    async def slot(index: int) -> None:
        nonlocal finished, faults
        first, second = _pair(index, len(bots))
        number = 0
        while True:
            seating = [bots[first], bots[second]] if number % 2 == 0 else [bots[second], bots[first]]
            name = f"{tag}-{index}-{number}"
            result = await play_session(GEORGIAN, seating, seed=name, session_id=name)
            number += 1
            if measuring:
                finished += 1
                faults += sum(sum(seat.telemetry["faults"].values()) for seat in result.seats)

    peak = 0
    with counting_rpcs(bots) as counts:
        async with trio.open_nursery() as nursery:
            for index in range(inflight):
                nursery.start_soon(slot, index)
            await trio.sleep(warmup)
            with machine_and_bots_cpu(bots) as machine:
                before, start, cpu = dict(counts), time.perf_counter(), time.process_time()
                measuring = True
                while (elapsed := time.perf_counter() - start) < window:
                    peak = max(peak, rss_kib())
                    await trio.sleep(min(0.05, window - elapsed))
                counted, after, cpu = finished, dict(counts), time.process_time() - cpu
                measuring = False
            nursery.cancel_scope.cancel()
    rpcs = max(after["rpcs"] - before["rpcs"], 1)
    return InflightRun(counted / elapsed, (after["decisions"] - before["decisions"]) / elapsed, rpcs / elapsed,
                       cpu / rpcs * 1e6, peak, faults, machine["bots_cpu_s"] / rpcs * 1e6, machine["machine_busy"])


def _raw_concurrent(addresses: Sequence[str], callers: int, seconds: float,
                    payload: pb.TurnRequest) -> tuple[float, float]:
    """Calls per second of `callers` threads making blocking Act calls, spread like the sessions,
    and this process's CPU microseconds per call."""
    channels = [grpc.insecure_channel(address) for address in addresses]
    stubs = [pb_grpc.SekaBotStub(channel) for channel in channels]
    for stub in stubs:
        stub.Act(payload, timeout=_DEADLINE)
    counts = [0] * callers
    barrier = threading.Barrier(callers + 1)
    stop = threading.Event()

    def caller(index: int) -> None:
        first, second = _pair(index, len(stubs))
        pair = (stubs[first].Act, stubs[second].Act)
        barrier.wait()
        count = 0
        while not stop.is_set():
            pair[count % 2](payload, timeout=_DEADLINE)
            count += 1
        counts[index] = count

    threads = [threading.Thread(target=caller, args=(index,), daemon=True) for index in range(callers)]
    for thread in threads:
        thread.start()
    barrier.wait()
    start, cpu = time.perf_counter(), time.process_time()
    time.sleep(seconds)
    stop.set()
    for thread in threads:
        thread.join()
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    for channel in channels:
        channel.close()
    # Calls that finish just after `stop` are counted over a slightly short window: at ~1 ms per
    # call and seconds of window, under a tenth of a percent.
    return sum(counts) / elapsed, cpu / sum(counts) * 1e6


@contextmanager
def counting_rpcs(bots: Sequence[BotConnection]) -> Iterator[dict[str, int]]:
    """Count every RPC (Hello, Notify, Act, Svara) and every decision (Act, Svara) on the connections.

    The wrappers cost one extra coroutine call per RPC, about a microsecond against ~1 ms calls.
    """
    counts = {"rpcs": 0, "decisions": 0}
    for bot in bots:
        call, decide = bot.call, bot.decide

        async def counted_call(method: str, request: Any, _call: Callable[..., Any] = call) -> Any:
            counts["rpcs"] += 1
            return await _call(method, request)

        async def counted_decide(method: str, request: Any, _decide: Callable[..., Any] = decide) -> Any:
            counts["rpcs"] += 1
            counts["decisions"] += 1
            return await _decide(method, request)

        bot.call, bot.decide = counted_call, counted_decide  # type: ignore[method-assign]
    try:
        yield counts
    finally:
        for bot in bots:
            del bot.call, bot.decide  # back to the class's methods


def inflight_specs(count: int) -> list[BotSpec]:
    """Threshold and minimal bots, alternately: they answer at once, like the call bot, but end
    their deals (two call bots run every deal to the action cap, ~1,600 ever longer requests)."""
    return [python_bot(f"threshold{index}", "threshold_bot.py") if index % 2 == 0
            else python_bot(f"minimal{index}", "minimal_bot.py") for index in range(count)]


async def bench_inflight(sizes: Sizes, workdir: Path) -> dict[str, Any]:
    specs = inflight_specs(sizes.inflight_bots)
    figures: dict[str, Any] = {}
    async with open_bots(specs, workdir=workdir) as bots:
        payload = turn_request(turn_view(decision_state()), session_id="bench-inflight")
        await _sessions_in_flight(bots, 4, warmup=0.2, window=0.5, tag="warm")  # threads, caches, channels
        idle = rss_kib()
        faults = 0
        peak_64 = idle
        decisions_64: list[float] = []
        rpcs_64: list[float] = []
        for inflight in sizes.inflight:
            runs: list[InflightRun] = []
            raws: list[tuple[float, float]] = []
            raw_machines: list[dict[str, float]] = []
            rounds = sizes.efficiency_rounds if inflight == 64 else 1
            for _ in range(rounds):
                if inflight == 64:
                    # Measured around the whole raw run: its set-up (64 threads, 8 channels, one
                    # call each) adds a few milliseconds to windows of seconds.
                    with machine_and_bots_cpu(bots) as raw_machine:
                        raws.append(await trio.to_thread.run_sync(
                            _raw_concurrent, [bot.address for bot in bots], 64, sizes.raw_window, payload))
                    raw_machine["bot_cpu_us_per_call"] = (raw_machine["bots_cpu_s"] / (raws[-1][0] * sizes.raw_window)
                                                          * 1e6)
                    raw_machines.append(raw_machine)
                runs.append(await _sessions_in_flight(bots, inflight, warmup=sizes.inflight_warmup,
                                                      window=sizes.inflight_window, tag=f"n{inflight}"))
            faults += sum(run.faults for run in runs)
            figures[f"sessions_per_s_inflight_{inflight}"] = round(statistics.median(r.sessions_per_s for r in runs), 2)
            figures[f"decisions_per_s_inflight_{inflight}"] = round(statistics.median(r.decisions_per_s for r in runs))
            figures[f"rpcs_per_s_inflight_{inflight}"] = round(statistics.median(r.rpcs_per_s for r in runs))
            if inflight == 64:
                peak_64 = max(run.rss_peak_kib for run in runs)
                decisions_64 = [run.decisions_per_s for run in runs]
                rpcs_64 = [run.rpcs_per_s for run in runs]
                figures["raw_concurrent_calls_per_s_64"] = round(statistics.median(raw[0] for raw in raws))
                figures["raw_concurrent_cpu_us_per_call_64"] = round(statistics.median(raw[1] for raw in raws), 1)
                figures["arena_cpu_us_per_rpc_64"] = round(statistics.median(run.cpu_us_per_rpc for run in runs), 1)
                figures["raw_concurrent_bot_cpu_us_per_call_64"] = round(
                    statistics.median(machine["bot_cpu_us_per_call"] for machine in raw_machines), 1)
                figures["bot_cpu_us_per_rpc_64"] = round(statistics.median(run.bot_cpu_us_per_rpc for run in runs), 1)
                figures["raw_concurrent_machine_busy_64"] = round(
                    statistics.median(machine["machine_busy"] for machine in raw_machines), 3)
                figures["inflight_machine_busy_64"] = round(statistics.median(run.machine_busy for run in runs), 3)
        if decisions_64:
            figures["concurrency_efficiency_64"] = round(
                statistics.median(decisions_64) / figures["raw_concurrent_calls_per_s_64"], 3)
            figures["rpc_efficiency_64"] = round(
                statistics.median(rpcs_64) / figures["raw_concurrent_calls_per_s_64"], 3)
            figures["rpc_calls_per_decision"] = round(statistics.median(rpcs_64) / statistics.median(decisions_64), 2)
            figures["arena_memory_per_session_kib"] = round((peak_64 - idle) / 64, 1)
        figures["arena_rss_idle_kib"] = idle
        figures["arena_rss_inflight_64_kib"] = peak_64
        figures["inflight_faults"] = faults
    return figures


# ---------------------------------------------------------------------------------- 5. start


def _python_import_grpc_ms() -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import grpc"], check=True)
    return (time.perf_counter() - start) * 1000


async def _start_to_ready_ms(spec: BotSpec, workdir: Path) -> float:
    start = time.perf_counter()
    async with open_bot(spec, log_dir=workdir / "logs", socket_dir=workdir) as connection:
        ready = time.perf_counter()
        if connection.dead is not None:
            raise RuntimeError(f"{spec.name}: {connection.dead}")
    return (ready - start) * 1000


async def bench_start(sizes: Sizes, workdir: Path) -> dict[str, Any]:
    python_spec = python_bot("start-call", "call_bot.py")
    js_spec = None
    if (JS_BOT / "node_modules").is_dir() and shutil.which("node"):
        js_spec = BotSpec(name="start-js", command=("node", str(JS_BOT / "index.js")), cwd=str(REPO), limit=_LIMIT)
    imports, pythons, scripts = [], [], []
    for _ in range(sizes.start_repeats):  # alternated, like the decision rounds
        imports.append(await trio.to_thread.run_sync(_python_import_grpc_ms))
        pythons.append(await _start_to_ready_ms(python_spec, workdir))
        if js_spec is not None:
            scripts.append(await _start_to_ready_ms(js_spec, workdir))
    figures: dict[str, Any] = {
        "bot_start_to_ready_ms": round(statistics.median(pythons), 1),
        "bot_start_to_ready_ms_js": round(statistics.median(scripts), 1) if scripts else None,
        "python_import_grpc_ms": round(statistics.median(imports), 1),
    }
    figures["bot_start_vs_import_grpc_ratio"] = round(figures["bot_start_to_ready_ms"] /
                                                      figures["python_import_grpc_ms"], 2)
    return figures


# ---------------------------------------------------------------------------------- 6. tournament

_TOURNAMENT_BOTS = [
    ("random", "random_bot.py --seed 7"),
    ("call", "call_bot.py"),
    ("threshold", "threshold_bot.py"),
    ("strong", "strong_bot.py"),
    ("minimal", "minimal_bot.py"),
    ("threshold-tight", "threshold_bot.py --strong 30 --medium 24"),
    ("random-2", "random_bot.py --seed 8"),
    ("threshold-loose", "threshold_bot.py --strong 26 --medium 18"),
]


def tournament_yaml(bots: int, *, concurrency: int = 4) -> str:
    participants = "\n".join(f"  - name: {name}\n    command: python3 {SAMPLE_BOTS / line}\n    cwd: {REPO}"
                             for name, line in _TOURNAMENT_BOTS[:bots])
    return (f"name: bench\nparticipants:\n{participants}\nprofile: georgian\ntable_size: 2\nformat: round_robin\n"
            f"sessions_per_table: 1\nduplicate: true\nseed: bench\nconcurrency: {concurrency}\n"
            "limits:\n  decision_ms: 5000\n  start_ms: 30000\nisolation: none\nrestart_crashed: true\n")


def _cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


async def bench_tournament(sizes: Sizes, workdir: Path) -> dict[str, Any]:
    config = parse_config(tournament_yaml(sizes.tournament_bots), filename="<bench>")
    runner = TournamentRunner(config, out=workdir / "tournament")
    try:
        start, own, children = time.perf_counter(), _cpu(resource.RUSAGE_SELF), _cpu(resource.RUSAGE_CHILDREN)
        complete = await runner.run()
        played = time.perf_counter()
        own, children = _cpu(resource.RUSAGE_SELF) - own, _cpu(resource.RUSAGE_CHILDREN) - children
        runner.write_results()
        written = time.perf_counter()
    finally:
        runner.close()
    if not complete:
        raise RuntimeError("the benchmark tournament did not complete")
    sessions = len(runner.plan)
    return {
        "tournament_bots": sizes.tournament_bots,
        "tournament_sessions": sessions,
        "tournament_concurrency": config.concurrency,
        "tournament_seconds": round(written - start, 2),
        "tournament_sessions_per_min": round(sessions / (written - start) * 60, 1),
        "tournament_results_seconds": round(written - played, 3),
        "tournament_arena_cpu_ms_per_session": round(own / sessions * 1000, 1),
        "tournament_bot_cpu_ms_per_session": round(children / sessions * 1000, 1),
    }


# ---------------------------------------------------------------------------------- 7. scaling


def scaling_config(bots: int) -> Any:
    participants = ", ".join(f'{{name: b{index:02d}, address: "127.0.0.1:{20000 + index}"}}' for index in range(bots))
    return parse_config(f"name: scale\nparticipants: [{participants}]\nseed: bench\nsessions_per_table: 1\n"
                        "duplicate: true\n")


def synthetic_outcomes(planned: Sequence[Any], seed: int = 2026) -> list[SessionOutcome]:
    """Heads-up results drawn from hidden strengths: balances (x, -x) with x an integer."""
    rng = random.Random(seed)
    names = sorted({name for session in planned for name in session.table})
    strength = {name: rng.gauss(0, 1) for name in names}
    outcomes = []
    for session in planned:
        first, second = session.table
        chips = round(rng.gauss(strength[first] - strength[second], 3) * 5)
        outcomes.append(SessionOutcome(session.table, (chips, -chips), session.block))
    return outcomes


def bench_scaling(sizes: Sizes) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    for bots in sizes.scaling_bots:
        config = scaling_config(bots)
        start = time.perf_counter()
        planned = plan(config)
        planning = time.perf_counter() - start
        outcomes = synthetic_outcomes(planned)
        start = time.perf_counter()
        standings(outcomes, resamples=sizes.resamples)
        rating = time.perf_counter() - start
        figures[f"round_robin_sessions_bots_{bots}"] = len(planned)
        figures[f"plan_seconds_bots_{bots}"] = round(planning, 5)
        figures[f"ratings_seconds_bots_{bots}"] = round(rating, 3)
    return figures


# ---------------------------------------------------------------------------------- 8. duplicate


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


async def bench_duplicate(sizes: Sizes, workdir: Path) -> dict[str, Any]:
    (first_name, first_script), (second_name, second_script) = DUPLICATE_PAIR
    specs = [python_bot(first_name, first_script), python_bot(second_name, second_script)]
    async with open_bots(specs, workdir=workdir) as (first, second):
        independent, duplicate = await duplicate_samples(first, second, sizes.duplicate_pairs,
                                                         inflight=sizes.duplicate_inflight)
    figures = duplicate_figures(independent, duplicate)
    figures["duplicate_pair"] = f"{first_name} vs {second_name}"
    return figures


# ---------------------------------------------------------------------------------- report

# (key, label, unit, baseline key or None): the rows of the printed table, in order.
_ROWS: list[tuple[str, str, str, str | None]] = [
    ("engine_pots_per_s", "engine: resolved pots (3 seats, random, one core)", "/s", None),
    ("hand_evaluations_per_s", "hand evaluations", "/s", None),
    ("pots_per_million_baseline_loops", "engine pots per 1e6 baseline loops", "", None),
    ("raw_call_us_unix", "raw grpcio sync Act call, unix", "µs", None),
    ("bridge_call_us_unix", "trio bridge call_unary alone, unix", "µs", "raw_call_us_unix"),
    ("arena_decision_us_unix", "arena decision (build, decide, check), unix", "µs", "raw_call_us_unix"),
    ("raw_call_us_tcp", "raw grpcio sync Act call, TCP", "µs", None),
    ("bridge_call_us_tcp", "trio bridge call_unary alone, TCP", "µs", "raw_call_us_tcp"),
    ("arena_decision_us_tcp", "arena decision, TCP", "µs", "raw_call_us_tcp"),
    ("raw_cpu_us_unix", "client CPU per raw call, unix", "µs", None),
    ("arena_cpu_us_unix", "client CPU per arena decision, unix", "µs", "raw_cpu_us_unix"),
    ("request_build_us", "building a TurnRequest from the view", "µs", None),
    ("reply_check_us", "reply to action + verify", "µs", None),
    ("sessions_per_s_inflight_1", "sessions/s, 1 in flight (8 bot processes)", "/s", None),
    ("sessions_per_s_inflight_4", "sessions/s, 4 in flight", "/s", "sessions_per_s_inflight_1"),
    ("sessions_per_s_inflight_16", "sessions/s, 16 in flight", "/s", "sessions_per_s_inflight_1"),
    ("sessions_per_s_inflight_64", "sessions/s, 64 in flight", "/s", "sessions_per_s_inflight_1"),
    ("raw_concurrent_calls_per_s_64", "raw: 64 threads of blocking Act calls", "/s", None),
    ("decisions_per_s_inflight_64", "arena decisions/s, 64 in flight", "/s", "raw_concurrent_calls_per_s_64"),
    ("rpcs_per_s_inflight_64", "arena RPCs/s (decisions + Hello + Notify), 64 in flight", "/s",
     "raw_concurrent_calls_per_s_64"),
    ("raw_concurrent_cpu_us_per_call_64", "arena-side CPU per raw call, 64 threads", "µs", None),
    ("arena_cpu_us_per_rpc_64", "arena CPU per RPC, 64 sessions in flight", "µs", "raw_concurrent_cpu_us_per_call_64"),
    ("raw_concurrent_bot_cpu_us_per_call_64", "bots' CPU per raw call, 64 threads", "µs", None),
    ("bot_cpu_us_per_rpc_64", "bots' CPU per arena RPC, 64 sessions in flight", "µs",
     "raw_concurrent_bot_cpu_us_per_call_64"),
    ("raw_concurrent_machine_busy_64", "machine CPU busy, raw 64 threads (share of all cores)", "", None),
    ("inflight_machine_busy_64", "machine CPU busy, 64 sessions in flight", "", None),
    ("rpc_calls_per_decision", "RPCs per decision in sessions (Hello, Notify, Act, Svara)", "", None),
    ("arena_memory_per_session_kib", "arena RSS per session in flight", "KiB", None),
    ("python_import_grpc_ms", "python -c 'import grpc'", "ms", None),
    ("bot_start_to_ready_ms", "Python bot launch to SERVING", "ms", "python_import_grpc_ms"),
    ("bot_start_to_ready_ms_js", "JS bot launch to SERVING", "ms", "python_import_grpc_ms"),
    ("tournament_sessions_per_min", "tournament sessions/min (bots launched per session)", "/min", None),
    ("tournament_arena_cpu_ms_per_session", "arena CPU per tournament session", "ms", None),
    ("tournament_bot_cpu_ms_per_session", "bot processes' CPU per tournament session (start included)", "ms",
     "tournament_arena_cpu_ms_per_session"),
    ("tournament_vs_longlived_ratio", "… ÷ sessions/min with 4 in flight on long-lived bots", "", None),
    ("plan_seconds_bots_32", "plan(), 32 bots", "s", None),
    ("ratings_seconds_bots_4", "standings, 4 bots, 12 sessions", "s", None),
    ("ratings_seconds_bots_8", "standings, 8 bots, 56 sessions", "s", "ratings_seconds_bots_4"),
    ("ratings_seconds_bots_16", "standings, 16 bots, 240 sessions", "s", "ratings_seconds_bots_4"),
    ("ratings_seconds_bots_32", "standings, 32 bots, 992 sessions", "s", "ratings_seconds_bots_4"),
    ("sessions_needed_independent", "sessions to separate the pair, independent deals", "", None),
    ("sessions_needed_duplicate", "sessions to separate the pair, duplicate deals", "", "sessions_needed_independent"),
]


def _format(value: Any) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, float) and not value.is_integer() and abs(value) < 100:
        return f"{value:,.3g}" if abs(value) < 1 else f"{value:,.1f}"
    if isinstance(value, (int, float)):
        return f"{value:,.0f}"
    return str(value)


def print_table(figures: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title="seka-arena benchmarks" + (" (quick)" if figures.get("quick") else ""))
    table.add_column("figure")
    table.add_column("value", justify="right")
    table.add_column("unit")
    table.add_column("÷ same-run baseline", justify="right")
    for key, label, unit, baseline in _ROWS:
        if key not in figures:
            continue
        value = figures[key]
        ratio = ""
        if baseline is not None and value is not None and figures.get(baseline):
            ratio = f"{value / figures[baseline]:.2f}"
        table.add_row(label, _format(value), unit, ratio)
    console = Console(width=max(110, Console().width))
    console.print(table)
    headline = [("decision_overhead_ratio", "decision overhead ratio (unix, arena ÷ raw; goal ≤ 1.25)"),
                ("decision_overhead_ratio_tcp", "decision overhead ratio (TCP)"),
                ("concurrency_efficiency_64", "concurrency efficiency at 64 in flight (goal ≥ 0.7)"),
                ("duplicate_saving_ratio", f"duplicate-dealing saving ({figures.get('duplicate_pair')}; goal ≥ 2)")]
    for key, label in headline:
        if key in figures:
            extra = ""
            if key == "duplicate_saving_ratio" and figures.get("duplicate_saving_ratio_ci"):
                low, high = figures["duplicate_saving_ratio_ci"]
                extra = f"  (95% CI {low}–{high})"
            value = figures[key]  # two decimals: a ratio against its goal
            shown = f"{value:.2f}" if isinstance(value, float) else _format(value)
            console.print(f"{label}: [bold]{shown}[/bold]{extra}")
    if figures.get("inflight_faults"):
        console.print(f"[red]faults during the in-flight runs: {figures['inflight_faults']}[/red]")


# ---------------------------------------------------------------------------------- main

SECTIONS = ("engine", "decisions", "inflight", "start", "tournament", "scaling", "duplicate")


async def run_all(sizes: Sizes, sections: Sequence[str], *, progress: Callable[[str], None]) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    seconds: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="seka-bench-") as directory:
        workdir = Path(directory)
        for section in sections:
            progress(section)
            start = time.perf_counter()
            if section == "engine":
                figures |= await trio.to_thread.run_sync(bench_engine, sizes)
            elif section == "decisions":
                figures |= await bench_decisions(sizes, workdir)
            elif section == "inflight":
                figures |= await bench_inflight(sizes, workdir)
            elif section == "start":
                figures |= await bench_start(sizes, workdir)
            elif section == "tournament":
                figures |= await bench_tournament(sizes, workdir)
            elif section == "scaling":
                figures |= await trio.to_thread.run_sync(bench_scaling, sizes)
            elif section == "duplicate":
                figures |= await bench_duplicate(sizes, workdir)
            seconds[section] = round(time.perf_counter() - start, 1)
    if "tournament_sessions_per_min" in figures and "sessions_per_s_inflight_4" in figures:
        # Same concurrency (4), same kind of Python bots: what launching bots per session costs.
        figures["tournament_vs_longlived_ratio"] = round(
            figures["tournament_sessions_per_min"] / 60 / figures["sessions_per_s_inflight_4"], 3)
    figures["section_seconds"] = seconds
    return figures


def main(argv: Sequence[str] | None = None) -> int:
    """Run the suite, print the table, and write the figures as JSON when asked."""
    parser = argparse.ArgumentParser(prog="seka-arena bench", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller measurements: about a minute")
    parser.add_argument("--json", metavar="FILE", help="also write every figure to FILE (keys: docs/benchmarks.md)")
    parser.add_argument("--only", metavar="SECTION", action="append", choices=SECTIONS,
                        help="run only this section (repeatable): " + ", ".join(SECTIONS))
    args = parser.parse_args(argv)
    sizes = QUICK if args.quick else FULL
    sections = args.only or list(SECTIONS)
    started = time.perf_counter()
    figures: dict[str, Any] = {"schema": 1, "quick": args.quick, "machine": machine(),
                               "command": " ".join(["seka-arena bench", *(argv if argv is not None else sys.argv[1:])])}

    def progress(section: str) -> None:
        print(f"[{time.perf_counter() - started:6.1f}s] {section} ...", file=sys.stderr, flush=True)

    figures |= trio.run(functools.partial(run_all, sizes, sections, progress=progress))
    figures["total_seconds"] = round(time.perf_counter() - started, 1)
    figures["machine"]["loadavg_at_end"] = os.getloadavg()[0]
    print_table(figures)
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
