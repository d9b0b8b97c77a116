"""Where the arena's Python time goes with sessions in flight: py-spy samples of the GIL, by part.

Run: .venv/bin/pip install py-spy      (a sampling profiler; not a project dependency)
     .venv/bin/python -m benchmarks.gil_profile [--inflight 64] [--seconds 8] [--rate 200]

Eight long-lived bots play `--inflight` sessions at a time, as the suite's `inflight` section measures them.
After a second of warm-up, py-spy samples this process for `--seconds`, keeping only the samples
where a thread holds the GIL (`--gil`), while the sessions' RPCs are counted over the same window.
Every sample of the trio thread is put in the part of the arena (or library) of the innermost
frame that belongs to one of the parts below, so a figure reads "of the trio thread's time with
the GIL, this share was grpcio's Python layer", and per RPC in microseconds. The CPU the process
spends without the GIL (grpcio's C core, its I/O threads) is the difference between
`cpu_us_per_rpc` and the GIL time.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import trio

from .common import open_bots
from .inflight import InflightRun, inflight_specs, sessions_in_flight

_PARTS = (  # (part, where its frames live), innermost match wins
    ("request and notice conversion", ("arena/transport/_convert.py", "arena/transport/_notices.py",
                                       "arena/protocol.py")),
    ("engine", ("arena/engine/",)),
    ("grpcio Python layer", ("grpc/",)),
    ("call bridge and BotConnection", ("arena/transport/_bridge.py", "arena/transport/_bot.py",
                                       "arena/transport/_faults.py")),
    ("session loop", ("arena/match/",)),
    ("trio (scheduler, cancel scopes, nurseries)", ("trio/",)),
)
_OTHER = "other (benchmark, standard library)"


def part_of(stack: list[str]) -> str:
    """The part of the innermost frame of `stack` (outermost first) that belongs to one."""
    for frame in reversed(stack):
        for part, places in _PARTS:
            if any(place in frame for place in places):
                return part
    return _OTHER


def summarise(raw: Path, *, rate: float, run: InflightRun, seconds: float) -> dict[str, Any]:
    """py-spy's raw (collapsed) samples → GIL shares by thread and, for the trio thread, by part."""
    threads: Counter[str] = Counter()
    parts: Counter[str] = Counter()
    for line in raw.read_text().splitlines():
        stack_text, _, count_text = line.rpartition(" ")
        stack = stack_text.split(";")
        count = int(count_text)
        is_main = "MainThread" in stack[0]
        threads["trio thread" if is_main else "other threads"] += count
        if is_main:
            parts[part_of(stack[1:])] += count
    rpcs = run.rpcs_per_s * seconds
    main = threads["trio thread"]
    return {
        "inflight_sessions_per_s": round(run.sessions_per_s, 1),
        "rpcs_per_s": round(run.rpcs_per_s),
        "cpu_us_per_rpc": round(run.cpu_us_per_rpc, 1),
        "gil_share_of_wall": {thread: round(count / (rate * seconds), 3) for thread, count in threads.items()},
        "trio_thread_gil_us_per_rpc": round(main / rate / max(rpcs, 1) * 1e6, 1),
        "trio_thread_parts": {part: {"share": round(count / max(main, 1), 3),
                                     "us_per_rpc": round(count / rate / max(rpcs, 1) * 1e6, 1)}
                              for part, count in parts.most_common()},
    }


async def profile(py_spy: str, *, inflight: int, seconds: float, rate: float) -> dict[str, Any]:
    warmup = 1.0
    with tempfile.TemporaryDirectory(prefix="seka-gil-") as folder:
        raw = Path(folder) / "samples.txt"
        run: list[InflightRun] = []

        async def sample() -> None:
            await trio.sleep(warmup)
            await trio.run_process([py_spy, "record", "--pid", str(os.getpid()), "--gil", "--threads", "--nonblocking",
                                    "--rate", str(rate), "--duration", str(round(seconds)), "--format", "raw",
                                    "--output", str(raw)], capture_stdout=True, capture_stderr=True)

        async with open_bots(inflight_specs(8), workdir=Path(folder)) as bots:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(sample)
                run.append(await sessions_in_flight(bots, inflight, warmup=warmup, window=seconds, tag="gil"))
        return summarise(raw, rate=rate, run=run[0], seconds=seconds)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.gil_profile", description=__doc__.split("\n")[0])
    parser.add_argument("--inflight", type=int, default=64, help="sessions in flight")
    parser.add_argument("--seconds", type=int, default=8, help="seconds sampled (whole seconds: py-spy's unit)")
    parser.add_argument("--rate", type=int, default=200, help="samples per second")
    args = parser.parse_args(argv)
    py_spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    if not Path(py_spy).exists():
        parser.error("py-spy is not installed: .venv/bin/pip install py-spy")
    figures = trio.run(lambda: profile(py_spy, inflight=args.inflight, seconds=args.seconds, rate=args.rate))
    print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
