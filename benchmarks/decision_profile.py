"""Where the arena's time per decision goes: variants of the call path side by side, and a profile.

Run: .venv/bin/python -m benchmarks.decision_profile [--calls 300] [--rounds 5] [--tcp] [--profile]
     .venv/bin/python -m benchmarks.decision_profile --inflight 64 [--rounds 3] [--profile]
     .venv/bin/python -m benchmarks.decision_profile --notices 200

Every variant calls the same call_bot process with the same TurnRequest, in alternating rounds
(the median round is kept), so the ratios compare like with like on a noisy machine. Variants
that change the arena's behaviour are built here from its public parts; nothing in `arena/` is
patched. `--profile` also runs the arena's decision path under pyinstrument (`pip install
pyinstrument`; not a project dependency) and prints the call tree. `--inflight N` compares N
sessions in flight as the arena runs them with raw concurrent calls, and reports the CPU time of
the arena's threads. `--notices` counts the RPCs a session makes per decision, next to what other
ways of telling the notices would make.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import grpc
import trio

from arena.engine import GEORGIAN, Acted, Entered, Event, SessionState, turn_view
from arena.match import play_session
from arena.transport import CHANNEL_OPTIONS, BotConnection, NoticeBoard, RawClient, verify_reply

from .common import DEADLINE, decision_state, open_bots, open_tcp_bot, python_bot
from .inflight import KeepSpinning, inflight_specs, raw_concurrent, rpc_counts, sessions_in_flight

# Act's path in protos/seka/v1/seka.proto: the grpc.aio bridge below calls it by name, since the
# benchmarks import no generated code.
_ACT_PATH = "/seka.v1.SekaBot/Act"


class AioThread:
    """One asyncio thread driving grpc.aio channels for trio: a bridge with one completion thread.

    trio hands each call over with `run_coroutine_threadsafe`; the done callback wakes the trio
    task through its token, as `call_unary` does. (grpc.aio returns None for a reply it cannot
    parse, with status OK: a real bridge must treat None as malformed.)
    """

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="aio-bridge", daemon=True)
        self._thread.start()
        self._channels: list[Any] = []

    def act(self, address: str, *, reply_type: Any) -> Any:
        """Act on a grpc.aio channel with the arena's options, its replies parsed as `reply_type`."""
        async def make() -> Any:
            channel = grpc.aio.insecure_channel(address, options=CHANNEL_OPTIONS)
            self._channels.append(channel)
            return channel.unary_unary(_ACT_PATH, request_serializer=lambda request: request.SerializeToString(),
                                       response_deserializer=reply_type.FromString)
        return asyncio.run_coroutine_threadsafe(make(), self.loop).result()

    async def call(self, method: Any, request: Any, *, timeout: float) -> Any:
        async def unary() -> Any:
            return await method(request, timeout=timeout)

        token = trio.lowlevel.current_trio_token()
        task = trio.lowlevel.current_task()
        future = asyncio.run_coroutine_threadsafe(unary(), self.loop)
        future.add_done_callback(lambda _: token.run_sync_soon(trio.lowlevel.reschedule, task))
        cancelled: list[Any] = []

        def abort(raise_cancel: Any) -> trio.lowlevel.Abort:
            cancelled.append(raise_cancel)
            future.cancel()
            return trio.lowlevel.Abort.FAILED

        await trio.lowlevel.wait_task_rescheduled(abort)
        if cancelled:
            cancelled[0]()
        return future.result()

    def close(self) -> None:
        async def close_all() -> None:
            for channel in self._channels:
                await channel.close()
        asyncio.run_coroutine_threadsafe(close_all(), self.loop).result()
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join()


async def to_thread_act(client: RawClient, request: Any, *, timeout: float) -> Any:
    """The other bridge from the notes: the blocking call in a trio worker thread."""
    return await trio.to_thread.run_sync(lambda: client.act(request, timeout=timeout))


async def bridged_act(client: RawClient, request: Any, *, timeout: float) -> Any:
    """The arena's bridge (`call_unary`) alone."""
    return await client.act_bridged(request, timeout=timeout)


_ARENA = "arena path (act + verify_reply)"
_ARENA_TWICE = "arena path + its own work again beside each call"


async def measure(connection: BotConnection, *, calls: int, rounds: int, profile: bool,
                  profile_all: bool = False) -> dict[str, tuple[float, float]]:
    """Median µs and CPU µs per call of every variant (and one derived from two of them)."""
    state = decision_state()
    session_id = "bench-decision"
    payload = RawClient.prebuilt_turn(turn_view(state), session_id=session_id)
    default = RawClient(connection.address, options=())
    arena_options = RawClient(connection.address)
    spinning = RawClient(connection.address)
    keep = KeepSpinning(spinning.channel)
    reply = arena_options.act(payload, timeout=DEADLINE)
    aio = AioThread()
    aio_act = aio.act(connection.address, reply_type=type(reply))

    def sync(client: RawClient) -> Callable[[], Awaitable[None]]:
        async def run() -> None:
            for _ in range(calls):
                client.act(payload, timeout=DEADLINE)
        return run

    def bridged(client: RawClient, bridge: Callable[..., Awaitable[Any]]) -> Callable[[], Awaitable[None]]:
        async def run() -> None:
            for _ in range(calls):
                await bridge(client, payload, timeout=DEADLINE)
        return run

    async def aio_bridged() -> None:
        for _ in range(calls):
            await aio.call(aio_act, payload, timeout=DEADLINE)

    async def arena_path() -> None:
        for _ in range(calls):
            verify_reply(state, await connection.act(turn_view(state), session_id=session_id))

    async def arena_work_twice() -> None:
        # The arena's own work (build a request, check a reply) once more between calls: against
        # the arena path, what that work costs among the calls (colder caches than in the suite's
        # tight `request_build_us` loop), and so what `act` costs without it.
        for _ in range(calls):
            RawClient.prebuilt_turn(turn_view(state), session_id=session_id)
            verify_reply(state, RawClient.action(reply))
            verify_reply(state, await connection.act(turn_view(state), session_id=session_id))

    def threads_spinning() -> int:
        # grpcio starts its spin threads as cygrpc.ForkManagedThread, which names them "Thread-N (_run)".
        return sum(1 for thread in threading.enumerate() if thread.name.endswith("(_run)"))

    variants: dict[str, Callable[[], Awaitable[None]]] = {
        "raw sync, default channel": sync(default),
        "raw sync, arena channel options": sync(arena_options),
        "bridge (future + callback), default channel": bridged(default, bridged_act),
        "bridge, arena channel options": bridged(arena_options, bridged_act),
        "bridge, arena options + Watch held open": bridged(spinning, bridged_act),
        "to_thread bridge, arena options": bridged(arena_options, to_thread_act),
        "aio-thread bridge, arena options": aio_bridged,
        _ARENA: arena_path,
        _ARENA_TWICE: arena_work_twice,
    }
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in variants}
    try:
        for run in variants.values():  # warm up
            await run()
        names = list(variants)
        for number in range(rounds):
            # Each round starts one variant further on, so no variant always follows the same one.
            for name in names[number % len(names):] + names[:number % len(names)]:
                run = variants[name]
                wall, cpu = time.perf_counter(), time.process_time()
                await run()
                samples[name].append(((time.perf_counter() - wall) / calls * 1e6,
                                      (time.process_time() - cpu) / calls * 1e6))
        print(f"grpcio spin threads alive with two Watch streams open: {threads_spinning()}")
        if profile:
            from pyinstrument import Profiler

            profiler = Profiler(interval=0.0002, async_mode="disabled")
            with profiler:
                for _ in range(3):
                    await arena_path()
            print(f"==== profile: arena path, as the arena runs it ({3 * calls} decisions)")
            print(profiler.output_text(unicode=True, color=False, show_all=profile_all))
    finally:
        keep.close()
        aio.close()
        for client in (default, arena_options, spinning):
            client.close()
    medians = {name: (statistics.median(wall for wall, _ in values), statistics.median(cpu for _, cpu in values))
               for name, values in samples.items()}
    (arena_wall, arena_cpu), (twice_wall, twice_cpu) = medians[_ARENA], medians[_ARENA_TWICE]
    medians["BotConnection.act alone (derived: 2 × arena path − the row above)"] = (
        2 * arena_wall - twice_wall, 2 * arena_cpu - twice_cpu)
    return medians


def thread_cpu_seconds() -> dict[str, float]:
    """CPU seconds of this process's threads, summed by thread name (from /proc/self/task)."""
    ticks = os.sysconf("SC_CLK_TCK")
    totals: dict[str, float] = {}
    for task in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{task}/comm", encoding="utf-8") as comm:
                name = comm.read().strip()
            with open(f"/proc/self/task/{task}/stat", encoding="utf-8") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except FileNotFoundError:  # the thread ended meanwhile
            continue
        # Threads named after the main one ("python") are grpcio's spin threads and trio's workers.
        key = "trio (main)" if int(task) == os.getpid() else name
        totals[key] = totals.get(key, 0.0) + (int(fields[11]) + int(fields[12])) / ticks
    return totals


async def compare_inflight(inflight: int, rounds: int, window: float, *, profile: bool = False,
                           profile_all: bool = False) -> None:
    with tempfile.TemporaryDirectory(prefix="seka-profile-") as directory:
        async with open_bots(inflight_specs(8), workdir=Path(directory)) as bots:
            view = turn_view(decision_state())
            await sessions_in_flight(bots, 4, warmup=0.2, window=0.5, tag="warm")
            rows: dict[str, list[tuple[float, float, float]]] = {"raw": [], "arena": []}
            threads: dict[str, float] = {}
            for number in range(rounds):
                calls, cpu = await trio.to_thread.run_sync(
                    raw_concurrent, [bot.address for bot in bots], inflight, window, view)
                rows["raw"].append((calls, calls, cpu))
                before = thread_cpu_seconds()
                run = await sessions_in_flight(bots, inflight, warmup=1.0, window=window, tag=f"arena-{number}")
                after = thread_cpu_seconds()
                threads = {key: round(after[key] - before.get(key, 0.0), 2) for key in after}
                rows["arena"].append((run.decisions_per_s, run.rpcs_per_s, run.cpu_us_per_rpc))
            if profile:
                from pyinstrument import Profiler

                profiler = Profiler(interval=0.001, async_mode="disabled")
                with profiler:
                    await sessions_in_flight(bots, inflight, warmup=1.0, window=window, tag="profile")
                print(f"==== profile: {inflight} sessions in flight as the arena runs them (trio thread)")
                print(profiler.output_text(unicode=True, color=False, show_all=profile_all))
    raw = statistics.median(row[0] for row in rows["raw"])
    print(f"{inflight} in flight, 8 bot processes, median of {rounds} rounds of {window:g}s")
    print(f"{'':16} {'decisions/s':>12} {'RPCs/s':>8} {'CPU µs/RPC':>11} {'decisions ÷ raw':>16} {'RPCs ÷ raw':>11}")
    for name, values in rows.items():
        decisions = statistics.median(value[0] for value in values)
        rpcs = statistics.median(value[1] for value in values)
        cpu = statistics.median(value[2] for value in values)
        print(f"{name:16} {decisions:12.0f} {rpcs:8.0f} {cpu:11.1f} {decisions / raw:16.3f} {rpcs / raw:11.3f}")
    print(f"CPU seconds by thread over the last arena round (window + warm-up; threads that ended meanwhile, "
          f"such as short-lived spin threads, are missing): {threads}")


async def count_notices(sessions: int) -> None:
    """RPCs per decision as the arena sends them, next to what other ways of telling notices would make."""
    decisions = notices = batches = quiet = 0
    # Only how many notices each batch makes counts here, not what they say: any state of two seats
    # serves for the balances and pot they would carry.
    board = NoticeBoard(2, session_id="n")
    stand_in = SessionState(GEORGIAN, bots=["a", "b"], seed="n", session="n")
    with tempfile.TemporaryDirectory(prefix="seka-profile-") as directory:
        specs = [python_bot("threshold", "threshold_bot.py"), python_bot("minimal", "minimal_bot.py")]
        async with open_bots(specs, workdir=Path(directory)) as bots:
            before = rpc_counts(bots)
            for number in range(sessions):
                seating = bots if number % 2 == 0 else bots[::-1]
                result = await play_session(GEORGIAN, seating, seed=f"notices-{number}", session_id=f"n{number}")
                # A batch is what one decision (or the start) brings: the events up to the next decision.
                batch: list[Event] = []
                for event in [*result.events, None]:
                    if event is None or isinstance(event, (Acted, Entered)):
                        board.post(stand_in, batch, [0, 1])
                        told = len(board.take(0)) + len(board.take(1))
                        notices += told
                        batches += 1
                        quiet += told == 0
                        batch = []
                        if event is not None:
                            decisions += 1
                    if event is not None:
                        batch.append(event)
            after = rpc_counts(bots)
    counted = {key: after[key] - before[key] for key in after}
    hellos = 2 * sessions
    noisy = batches - quiet
    print(f"{sessions} sessions of threshold vs minimal: per session {decisions / sessions:.1f} decisions, "
          f"{notices / sessions:.1f} notices, {hellos / sessions:.0f} Hellos; {quiet} of {batches} batches bring "
          "no notice")
    print(f"RPCs per decision as the arena sends them (counted):      {counted['rpcs'] / counted['decisions']:.2f}")
    print(f"one Notify per notice (the protocol before `notices`):   {(decisions + notices + hellos) / decisions:.2f}")
    per_batch = (decisions + 2 * noisy + hellos) / decisions
    per_session = (decisions + 2 * sessions + hellos) / decisions
    print(f"one Notify per bot per batch with notices:               {per_batch:.2f}")
    print(f"notices inside requests, one final Notify per bot:       {per_session:.2f}")
    print(f"notices inside requests, the session end in next Hello:  {(decisions + hellos) / decisions:.2f}")


async def main_async(args: argparse.Namespace) -> None:
    if args.inflight:
        await compare_inflight(args.inflight, args.rounds, args.window, profile=args.profile,
                               profile_all=args.profile_all)
        return
    if args.notices:
        await count_notices(args.notices)
        return
    with tempfile.TemporaryDirectory(prefix="seka-profile-") as directory:
        workdir = Path(directory)
        async with AsyncExitStack() as stack:
            if args.tcp:
                bot = await stack.enter_async_context(open_tcp_bot("call-tcp", "call_bot.py", workdir=workdir))
            else:
                (bot,) = await stack.enter_async_context(open_bots([python_bot("call-unix", "call_bot.py")],
                                                                   workdir=workdir))
            results = await measure(bot, calls=args.calls, rounds=args.rounds, profile=args.profile,
                                    profile_all=args.profile_all)
    floor = results["raw sync, default channel"][0]
    print(f"{'variant':64} {'µs/call':>9} {'÷ raw':>7} {'CPU µs':>8}")
    for name, (wall, cpu) in results.items():
        print(f"{name:64} {wall:9.1f} {wall / floor:7.2f} {cpu:8.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300, help="calls per round and variant")
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds; the median is kept")
    parser.add_argument("--tcp", action="store_true", help="a bot on loopback TCP instead of a unix socket")
    parser.add_argument("--profile", action="store_true", help="profile the arena path with pyinstrument")
    parser.add_argument("--inflight", type=int, metavar="N", help="compare N sessions in flight with raw calls")
    parser.add_argument("--notices", type=int, metavar="SESSIONS", help="count RPCs per decision over SESSIONS")
    parser.add_argument("--window", type=float, default=4.0, help="seconds per in-flight round")
    parser.add_argument("--profile-all", action="store_true", help="show library frames in the profile too")
    trio.run(main_async, parser.parse_args())


if __name__ == "__main__":
    main()
