"""The cost of one arena decision against a raw grpcio call to the same bot, on a unix socket and TCP."""

from __future__ import annotations

import statistics
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from arena.engine import turn_view
from arena.transport import BotConnection, RawClient, verify_reply

from .common import DEADLINE, Sizes, decision_state, open_bots, open_tcp_bot, python_bot


async def _decision_rounds(connection: BotConnection, sizes: Sizes) -> dict[str, float]:
    """Raw blocking calls, bridge-only calls and whole arena decisions, in alternating rounds."""
    state = decision_state()
    session_id = "bench-decision"
    payload = RawClient.prebuilt_turn(turn_view(state), session_id=session_id)
    raw = RawClient(connection.address, options=())  # a default channel, as a plain grpcio client opens: the floor
    calls = sizes.decision_calls

    async def raw_round() -> tuple[float, float]:
        # Blocks the trio thread on purpose: nothing else runs meanwhile, and this is the floor.
        wall, cpu = time.perf_counter(), time.process_time()
        for _ in range(calls):
            raw.act(payload, timeout=DEADLINE)
        return time.perf_counter() - wall, time.process_time() - cpu

    async def bridge_round() -> tuple[float, float]:
        wall, cpu = time.perf_counter(), time.process_time()
        for _ in range(calls):
            await raw.act_bridged(payload, timeout=DEADLINE)
        return time.perf_counter() - wall, time.process_time() - cpu

    async def arena_round() -> tuple[float, float]:
        wall, cpu = time.perf_counter(), time.process_time()
        for _ in range(calls):
            # The whole per-decision path of arena.match, minus applying the action (so the state,
            # and with it the payload, stays the same from call to call).
            verify_reply(state, await connection.act(turn_view(state), session_id=session_id))
        return time.perf_counter() - wall, time.process_time() - cpu

    def local_round() -> tuple[float, float]:
        # The arena's own work per decision, with no call: build the request, check a reply.
        reply = raw.act(payload, timeout=DEADLINE)
        start = time.perf_counter()
        for _ in range(calls):
            RawClient.prebuilt_turn(turn_view(state), session_id=session_id)
        built = time.perf_counter()
        for _ in range(calls):
            verify_reply(state, RawClient.action(reply))
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
        raw.close()


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


async def measure(sizes: Sizes, workdir: Path) -> dict[str, Any]:
    """The suite's `decisions` section: one call bot on a unix socket, then one on loopback TCP."""
    async with open_bots([python_bot("call-unix", "call_bot.py")], workdir=workdir) as (bot,):
        unix = await _decision_rounds(bot, sizes)
    async with open_tcp_bot("call-tcp", "call_bot.py", workdir=workdir) as bot:
        tcp = await _decision_rounds(bot, sizes)
    figures = _decision_figures(unix, "unix") | _decision_figures(tcp, "tcp")
    figures["decision_overhead_ratio"] = figures["decision_overhead_ratio_unix"]
    figures["request_build_us"] = round(statistics.median([unix["build"], tcp["build"]]), 1)
    figures["reply_check_us"] = round(statistics.median([unix["check"], tcp["check"]]), 1)
    return figures
