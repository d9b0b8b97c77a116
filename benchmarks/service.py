"""The service under load: the leaderboard's latency over a ladder of 10^5 sessions, and the ladder's pace
while the web is browsed.

One data folder is seeded through the store's own bulk API (`record_finished_blocks`): three sample
bots that play, and thirteen retired bots (disqualified), with 10^5 finished heads-up ladder sessions
among all sixteen. Then a real `seka-arena serve` on 127.0.0.1:

1. with the ladder off, once the board's first fit is in: 8 clients each GET the leaderboard page
   and its JSON in turn, back to back; `leaderboard_p99_ms` is the 99th percentile of their latencies;
2. with the ladder on (the same folder, a second serve): windows with no client and windows with 32
   clients browsing back to back (the leaderboard, the bots, a bot's page, the ladder, the
   tournaments) alternate; the ladder's sessions per minute come from its finished count, and
   `ladder_rate_under_load_ratio` is the median over the rounds (an idle window, then a browsed
   one) of browsed ÷ idle. The clients run in a process of their own at `nice -n 19`: browsers
   are on other machines, and on the service's own cores they would take CPU no visitor takes.

Clients connect to loopback only, are bounded in number and each window in time.
"""

from __future__ import annotations

import io
import json
import math
import os
import random
import re
import signal
import statistics
import subprocess
import sys
import tarfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from fractions import Fraction
from pathlib import Path
from typing import Any

import trio

from arena.engine import GEORGIAN
from arena.isolation import Isolation
from arena.service import Author, FinishedSession, ServiceConfig, open_service

from .common import REPO, SAMPLE_BOTS, Sizes

PLAYERS = ("call", "threshold", "strong")
_RETIRED = 13
_SESSIONS = 100_000
_CHUNK = 5_000
_BOARD_CLIENTS = 8
_BROWSERS = 32
_PAGES = ("/", "/api/leaderboard", "/bots", "/bots/call", "/api/ladder", "/tournaments")
_REQUEST_SECONDS = 30.0
_LISTENING = re.compile(rb"listening on (http://\S+) ")
_CONTENT_LENGTH = re.compile(rb"(?im)^content-length:\s*(\d+)")


def _archive(name: str) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for path, data in (("bot.py", (SAMPLE_BOTS / f"{name}_bot.py").read_bytes()),
                           ("bot.yaml", b"command: python3 bot.py\nlanguage: python\n")):
            info = tarfile.TarInfo(path)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def seed(folder: Path, sessions: int) -> float:
    """Write the benchmark's data folder (see the module's docstring); the seconds its 10^5 sessions took."""
    config = ServiceConfig(data=folder, isolation=Isolation.NONE, rules=GEORGIAN)
    service = open_service(config)
    store = service.store
    ids = []
    for name in PLAYERS:
        version = service.registry.submit(Author(f"bench-{name}", organiser=False), name, _archive(name))
        store.finish_check(version.id, accepted=True, report="not checked: a benchmark", stderr="")
        ids.append(version.id)
    for index in range(_RETIRED):
        version = store.add_version(f"retired{index}", "bench", sha256="0" * 64, kind="tar.gz", size=1,
                                    command="python3 bot.py", language=None, description=None)
        store.finish_check(version.id, accepted=True, report="not checked: a benchmark", stderr="")
        store.disqualify(f"retired{index}", "retired: a benchmark's history")
        ids.append(version.id)
    rng = random.Random(1)
    began = time.perf_counter()
    for _ in range(0, sessions, _CHUNK):
        blocks = []
        for _ in range(_CHUNK // 2):
            a, b = rng.sample(ids, 2)
            blocks.append([FinishedSession((a, b), (x := Fraction(rng.choice((-3, -1, 1, 2, 4))), -x), (0, 0), "h"),
                           FinishedSession((b, a), (y := Fraction(rng.choice((-3, -1, 1, 2, 4))), -y), (0, 0), "h")])
        store.record_finished_blocks(blocks, seed=lambda block: f"bench{block}", reason="benchmark")
    seconds = time.perf_counter() - began
    store.close()
    return seconds


@asynccontextmanager
async def serving(folder: Path, *, ladder: bool) -> AsyncIterator[str]:
    """`seka-arena serve` over `folder` on a free port of 127.0.0.1; its URL. SIGTERM afterwards."""
    config = folder.parent / f"{folder.name}-{'ladder' if ladder else 'board'}.yaml"
    config.write_text(f"data: {folder}\nisolation: none\ntable: {{pots: 2}}\n"
                      f"ladder: {{enabled: {'true' if ladder else 'false'}, placement_blocks: 1}}\n")
    process = await trio.lowlevel.open_process(
        [sys.executable, "-m", "arena", "serve", str(config), "--bind", "127.0.0.1:0"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=folder.parent)
    assert process.stdout is not None
    try:
        output = b""
        with trio.fail_after(120):
            while (listening := _LISTENING.search(output)) is None:
                data = await process.stdout.receive_some()
                if not data:
                    raise RuntimeError(f"serve did not start:\n{output.decode(errors='replace')}")
                output += data
        url = listening.group(1).decode()

        async def drain() -> None:
            assert process.stdout is not None
            while await process.stdout.receive_some():
                pass

        async with trio.open_nursery() as nursery:
            nursery.start_soon(drain)
            yield url
            nursery.cancel_scope.cancel()
    finally:
        with trio.CancelScope(shield=True):
            if process.returncode is None:
                process.send_signal(signal.SIGTERM)
            with trio.move_on_after(30):
                await process.wait()
            if process.returncode is None:
                process.kill()
                await process.wait()


class Browser:
    """Keep-alive HTTP/1.1 GETs to the server over one connection at a time (another when the server
    closed an idle one): a few lines of trio instead of a full client, so that the clients' own CPU
    weighs as little as it can on the ladder measured beside them."""

    def __init__(self, url: str) -> None:
        self.host, _, port = url.removeprefix("http://").rstrip("/").rpartition(":")
        self.port = int(port)
        self.stream: trio.SocketStream | None = None
        self.buffer = b""

    async def get(self, path: str) -> bytes:
        """The body of `path`; RuntimeError unless the status is 200."""
        with trio.fail_after(_REQUEST_SECONDS):
            for attempt in range(2):
                if self.stream is None:
                    self.stream, self.buffer = await trio.open_tcp_stream(self.host, self.port), b""
                try:
                    return await self._get(self.stream, path)
                except (trio.BrokenResourceError, EOFError):  # closed while idle: GET again, once
                    await self.aclose()
                    if attempt:
                        raise
        raise AssertionError("unreachable")

    async def aclose(self) -> None:
        stream, self.stream = self.stream, None
        if stream is not None:
            await stream.aclose()

    async def _get(self, stream: trio.SocketStream, path: str) -> bytes:
        await stream.send_all(f"GET {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n\r\n".encode())
        while b"\r\n\r\n" not in self.buffer:
            await self._receive(stream)
        head, _, self.buffer = self.buffer.partition(b"\r\n\r\n")
        found = _CONTENT_LENGTH.search(head)
        if found is None:
            raise RuntimeError(f"GET {path}: no Content-Length in {head[:200]!r}")
        length = int(found.group(1))
        while len(self.buffer) < length:
            await self._receive(stream)
        body, self.buffer = self.buffer[:length], self.buffer[length:]
        if not head.startswith(b"HTTP/1.1 200 "):
            raise RuntimeError(f"GET {path}: {head.splitlines()[0]!r}")
        return body

    async def _receive(self, stream: trio.SocketStream) -> None:
        data = await stream.receive_some(1 << 16)
        if not data:
            raise EOFError("the server closed the connection")
        self.buffer += data


@asynccontextmanager
async def browsing(url: str, count: int) -> AsyncIterator[list[Browser]]:
    """`count` browsers of `url`, closed afterwards."""
    browsers = [Browser(url) for _ in range(count)]
    try:
        yield browsers
    finally:
        for browser in browsers:
            await browser.aclose()


async def _first_fit(browser: Browser) -> None:
    with trio.fail_after(1200):  # the first fit of 10^5 sessions on a busy machine
        while not any(row["rating"] is not None for row in json.loads(await browser.get("/api/leaderboard"))):
            await trio.sleep(1.0)


async def leaderboard_latencies(url: str, *, requests: int) -> list[float]:
    """Seconds per request of `_BOARD_CLIENTS` clients getting the leaderboard page and JSON in turn."""
    latencies: list[float] = []
    async with browsing(url, 1) as [probe]:
        await _first_fit(probe)

    async def client() -> None:
        async with browsing(url, 1) as [browser]:
            for index in range(requests):
                began = time.perf_counter()
                await browser.get("/" if index % 2 == 0 else "/api/leaderboard")
                latencies.append(time.perf_counter() - began)

    async with trio.open_nursery() as nursery:
        for _ in range(_BOARD_CLIENTS):
            nursery.start_soon(client)
    return latencies


async def _finished(browser: Browser) -> int:
    return int(json.loads(await browser.get("/api/ladder"))["finished_sessions"])


async def _browse(browser: Browser, seed: int, answered: list[int]) -> None:
    rng = random.Random(seed)
    while True:
        await browser.get(rng.choice(_PAGES))
        answered[0] += 1


async def browse_for(url: str, count: int, seconds: float) -> None:
    """`count` clients browsing `url` back to back for `seconds`: a line `ready` once connected, then one
    with the requests answered (the browsers' own process, which `ladder_rates` runs at the lowest priority)."""
    answered = [0]
    async with browsing(url, count) as browsers:
        print("ready", flush=True)
        with trio.move_on_after(seconds):
            async with trio.open_nursery() as nursery:
                for index, browser in enumerate(browsers):
                    nursery.start_soon(_browse, browser, index, answered)
    print(answered[0], flush=True)


async def ladder_rates(url: str, *, rounds: int, window: float) -> tuple[list[float], list[float], int]:
    """Sessions per minute in idle windows and in windows with `_BROWSERS` clients browsing, alternated;
    and the requests answered under load.

    The clients run in a process of their own at the lowest CPU priority (`nice -n 19`): real
    browsers are on other machines, and clients on the service's own two cores would otherwise take
    CPU from the ladder that no visitor does. The web's own work is still measured in full.
    """
    idle: list[float] = []
    loaded: list[float] = []
    answered = 0
    async with browsing(url, 1) as [probe]:
        start = await _finished(probe)
        with trio.fail_after(600):  # the ladder's first blocks: its bots started, its pace set
            while await _finished(probe) < start + 4:
                await trio.sleep(0.5)

        async def window_rate(browsed: bool) -> float:
            if not browsed:
                before, began = await _finished(probe), time.perf_counter()
                await trio.sleep(window)
                return (await _finished(probe) - before) / (time.perf_counter() - began) * 60
            nonlocal answered
            process = await trio.lowlevel.open_process(
                ["nice", "-n", "19", sys.executable, "-m", "benchmarks.service", url, str(_BROWSERS), str(window)],
                stdout=subprocess.PIPE, cwd=REPO)
            assert process.stdout is not None
            output = b""
            try:
                with trio.fail_after(120):
                    while b"ready\n" not in output:
                        data = await process.stdout.receive_some()
                        if not data:
                            raise RuntimeError(f"the browsers' process ended: {output!r}")
                        output += data
                before, began = await _finished(probe), time.perf_counter()
                while data := await process.stdout.receive_some():
                    output += data
                await process.wait()
                rate = (await _finished(probe) - before) / (time.perf_counter() - began) * 60
            finally:
                with trio.CancelScope(shield=True):
                    if process.returncode is None:
                        process.kill()
                        await process.wait()
            answered += int(output.split(b"ready\n", 1)[1].split()[0])
            return rate

        for _ in range(rounds):
            idle.append(await window_rate(False))
            loaded.append(await window_rate(True))
    return idle, loaded, answered


def _p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(0.99 * len(ordered)) - 1)]


async def measure(sizes: Sizes, workdir: Path) -> dict[str, Any]:
    folder = workdir / "service"
    seed_seconds = await trio.to_thread.run_sync(seed, folder, _SESSIONS)
    async with serving(folder, ladder=False) as url:
        latencies = await leaderboard_latencies(url, requests=sizes.service_requests)
    async with serving(folder, ladder=True) as url:
        idle, loaded, answered = await ladder_rates(url, rounds=sizes.service_rounds, window=sizes.service_window)
    idle_rate, loaded_rate = statistics.median(idle), statistics.median(loaded)
    # Each round is an idle window and the browsed one after it: the median round's ratio is kept, so a
    # burst of load from elsewhere that spans a round hits both of its sides.
    ratios = [browsed / quiet for quiet, browsed in zip(idle, loaded, strict=True) if quiet]
    return {
        "service_seed_seconds": round(seed_seconds, 2),
        "service_sessions_seeded": _SESSIONS,
        "leaderboard_p50_ms": round(statistics.median(latencies) * 1000, 1),
        "leaderboard_p99_ms": round(_p99(latencies) * 1000, 1),
        "leaderboard_requests": len(latencies),
        "ladder_sessions_per_min_idle": round(idle_rate, 1),
        "ladder_sessions_per_min_browsed": round(loaded_rate, 1),
        "ladder_rate_under_load_ratio": round(statistics.median(ratios), 3) if ratios else None,
        "ladder_rate_windows": {"idle": [round(rate, 1) for rate in idle],
                                "browsed": [round(rate, 1) for rate in loaded],
                                "ratios": [round(ratio, 3) for ratio in ratios], "seconds": sizes.service_window},
        "browsing_requests_per_s": round(answered / (sizes.service_rounds * sizes.service_window), 1),
        "service_loadavg": os.getloadavg()[0],
    }


if __name__ == "__main__":  # python -m benchmarks.service URL COUNT SECONDS: `browse_for`, run by `ladder_rates`
    trio.run(browse_for, sys.argv[1], int(sys.argv[2]), float(sys.argv[3]))
