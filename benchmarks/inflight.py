"""Sessions in flight on long-lived bots (1 to 64 at a time) against raw concurrent calls, and memory per session."""

from __future__ import annotations

import contextlib
import os
import statistics
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import trio
from grpc_health.v1 import health_pb2, health_pb2_grpc

from arena.engine import GEORGIAN, TurnView, turn_view
from arena.match import play_session
from arena.transport import BotConnection, BotSpec, RawClient, Telemetry

from .common import DEADLINE, Sizes, decision_state, open_bots, python_bot


def rss_kib() -> int:
    """This process's resident set size in KiB (VmRSS)."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS in /proc/self/status")


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


async def sessions_in_flight(bots: Sequence[BotConnection], inflight: int, *, warmup: float, window: float,
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
    async with trio.open_nursery() as nursery:
        for index in range(inflight):
            nursery.start_soon(slot, index)
        await trio.sleep(warmup)
        with machine_and_bots_cpu(bots) as machine:
            before, start, cpu = rpc_counts(bots), time.perf_counter(), time.process_time()
            measuring = True
            while (elapsed := time.perf_counter() - start) < window:
                peak = max(peak, rss_kib())
                await trio.sleep(min(0.05, window - elapsed))
            counted, after, cpu = finished, rpc_counts(bots), time.process_time() - cpu
            measuring = False
        nursery.cancel_scope.cancel()
    rpcs = max(after["rpcs"] - before["rpcs"], 1)
    return InflightRun(counted / elapsed, (after["decisions"] - before["decisions"]) / elapsed, rpcs / elapsed,
                       cpu / rpcs * 1e6, peak, faults, machine["bots_cpu_s"] / rpcs * 1e6, machine["machine_busy"])


def raw_concurrent(addresses: Sequence[str], callers: int, seconds: float, view: TurnView) -> tuple[float, float]:
    """Calls per second of `callers` threads making blocking Act calls about `view`, spread like the
    sessions, and this process's CPU microseconds per call."""
    payload = RawClient.prebuilt_turn(view, session_id="bench-inflight")
    clients = [RawClient(address, options=()) for address in addresses]  # default channels, as before
    for client in clients:
        client.act(payload, timeout=DEADLINE)
    counts = [0] * callers
    barrier = threading.Barrier(callers + 1)
    stop = threading.Event()

    def caller(index: int) -> None:
        first, second = _pair(index, len(clients))
        pair = (clients[first].act, clients[second].act)
        barrier.wait()
        count = 0
        while not stop.is_set():
            pair[count % 2](payload, timeout=DEADLINE)
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
    for client in clients:
        client.close()
    # Calls that finish just after `stop` are counted over a slightly short window: at ~1 ms per
    # call and seconds of window, under a tenth of a percent.
    return sum(counts) / elapsed, cpu / sum(counts) * 1e6


async def bridged_concurrent(addresses: Sequence[str], callers: int, seconds: float,
                             view: TurnView) -> tuple[float, float]:
    """As `raw_concurrent`, but `callers` trio tasks calling through the arena's bridge (`call_unary`,
    the arena's channel options, a Watch stream held open per channel as `BotConnection` does) and
    doing nothing else: the floor of what any arena built on this bridge can reach."""
    payload = RawClient.prebuilt_turn(view, session_id="bench-inflight")
    clients = [RawClient(address) for address in addresses]
    watches = [KeepSpinning(client.channel) for client in clients]
    for client in clients:
        await client.act_bridged(payload, timeout=DEADLINE)
    counts = [0] * callers
    measuring = False

    async def caller(index: int) -> None:
        first, second = _pair(index, len(clients))
        pair = (clients[first], clients[second])
        count = 0
        while True:
            await pair[count % 2].act_bridged(payload, timeout=DEADLINE)
            count += 1
            if measuring:
                counts[index] += 1

    try:
        async with trio.open_nursery() as nursery:
            for index in range(callers):
                nursery.start_soon(caller, index)
            await trio.sleep(0.2)
            start, cpu = time.perf_counter(), time.process_time()
            measuring = True
            await trio.sleep(seconds)
            measuring = False
            elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
            nursery.cancel_scope.cancel()
    finally:
        for watch in watches:
            watch.close()
        for client in clients:
            client.close()
    return sum(counts) / elapsed, cpu / max(sum(counts), 1) * 1e6


class KeepSpinning:
    """A Health.Watch stream held open on a channel, so grpcio's channel spin thread never exits
    (as `BotConnection.wait_ready` holds one)."""

    def __init__(self, channel: grpc.Channel) -> None:
        self._stream = health_pb2_grpc.HealthStub(channel).Watch(health_pb2.HealthCheckRequest(service=""))
        next(self._stream)  # the first status proves the stream is up; later updates are never read

    def close(self) -> None:
        self._stream.cancel()


def rpc_counts(bots: Sequence[BotConnection]) -> dict[str, int]:
    """RPCs made so far on the connections (Hello, Notify, Act, Svara), and decisions among them (Act, Svara).

    Read from each connection's telemetry, which `sessions_in_flight` starts afresh.
    """
    rpcs = decisions = 0
    for bot in bots:
        calls = bot.telemetry.calls
        rpcs += calls.total()
        decisions += calls["Act"] + calls["Svara"]
    return {"rpcs": rpcs, "decisions": decisions}


def inflight_specs(count: int) -> list[BotSpec]:
    """Threshold and minimal bots, alternately: they answer at once, like the call bot, but end
    their deals (two call bots run every deal to the action cap, ~1,600 ever longer requests)."""
    return [python_bot(f"threshold{index}", "threshold_bot.py") if index % 2 == 0
            else python_bot(f"minimal{index}", "minimal_bot.py") for index in range(count)]


async def measure(sizes: Sizes, workdir: Path) -> dict[str, Any]:
    """The suite's `inflight` section (memory included): 1, 4, 16 and 64 sessions in flight on 8 bots."""
    specs = inflight_specs(sizes.inflight_bots)
    figures: dict[str, Any] = {}
    async with open_bots(specs, workdir=workdir) as bots:
        view = turn_view(decision_state())
        await sessions_in_flight(bots, 4, warmup=0.2, window=0.5, tag="warm")  # threads, caches, channels
        idle = rss_kib()
        faults = 0
        peak_64 = idle
        decisions_64: list[float] = []
        rpcs_64: list[float] = []
        for inflight in sizes.inflight:
            runs: list[InflightRun] = []
            raws: list[tuple[float, float]] = []
            bridged: list[tuple[float, float]] = []
            raw_machines: list[dict[str, float]] = []
            rounds = sizes.efficiency_rounds if inflight == 64 else 1
            for _ in range(rounds):
                if inflight == 64:
                    # Measured around the whole raw run: its set-up (64 threads, 8 channels, one
                    # call each) adds a few milliseconds to windows of seconds.
                    with machine_and_bots_cpu(bots) as raw_machine:
                        raws.append(await trio.to_thread.run_sync(
                            raw_concurrent, [bot.address for bot in bots], 64, sizes.raw_window, view))
                    raw_machine["bot_cpu_us_per_call"] = (raw_machine["bots_cpu_s"] / (raws[-1][0] * sizes.raw_window)
                                                          * 1e6)
                    raw_machines.append(raw_machine)
                    bridged.append(await bridged_concurrent([bot.address for bot in bots], 64, sizes.raw_window,
                                                            view))
                runs.append(await sessions_in_flight(bots, inflight, warmup=sizes.inflight_warmup,
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
                # Per decision as well: a protocol that needs fewer RPCs a decision reads worse per RPC.
                figures["arena_cpu_us_per_decision_64"] = round(statistics.median(
                    run.cpu_us_per_rpc * run.rpcs_per_s / run.decisions_per_s for run in runs), 1)
                figures["bridge_concurrent_calls_per_s_64"] = round(statistics.median(call[0] for call in bridged))
                figures["bridge_concurrent_cpu_us_per_call_64"] = round(
                    statistics.median(call[1] for call in bridged), 1)
                figures["raw_concurrent_bot_cpu_us_per_call_64"] = round(
                    statistics.median(machine["bot_cpu_us_per_call"] for machine in raw_machines), 1)
                figures["bot_cpu_us_per_rpc_64"] = round(statistics.median(run.bot_cpu_us_per_rpc for run in runs), 1)
                figures["raw_concurrent_machine_busy_64"] = round(
                    statistics.median(machine["machine_busy"] for machine in raw_machines), 3)
                figures["inflight_machine_busy_64"] = round(statistics.median(run.machine_busy for run in runs), 3)
        if decisions_64:
            figures["concurrency_efficiency_64"] = round(
                statistics.median(decisions_64) / figures["raw_concurrent_calls_per_s_64"], 3)
            figures["arena_cpu_ratio_64"] = round(
                figures["arena_cpu_us_per_rpc_64"] / figures["raw_concurrent_cpu_us_per_call_64"], 3)
            figures["bridge_cpu_ratio_64"] = round(
                figures["bridge_concurrent_cpu_us_per_call_64"] / figures["raw_concurrent_cpu_us_per_call_64"], 3)
            figures["bridge_efficiency_64"] = round(
                figures["bridge_concurrent_calls_per_s_64"] / figures["raw_concurrent_calls_per_s_64"], 3)
            figures["rpc_efficiency_64"] = round(
                statistics.median(rpcs_64) / figures["raw_concurrent_calls_per_s_64"], 3)
            figures["rpc_calls_per_decision"] = round(statistics.median(rpcs_64) / statistics.median(decisions_64), 2)
            figures["arena_memory_per_session_kib"] = round((peak_64 - idle) / 64, 1)
        figures["arena_rss_idle_kib"] = idle
        figures["arena_rss_inflight_64_kib"] = peak_64
        figures["inflight_faults"] = faults
    return figures
