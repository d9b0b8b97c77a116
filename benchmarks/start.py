"""A bot's start, from launch to SERVING, against `python -c "import grpc"` run to completion, and
launch-to-ready split into the bot's own start and the arena's share.

The split uses `benchmarks.ready_bot`, which runs the call bot unchanged but stamps (on the clock
the arena uses) when its server started and each time its health service answered SERVING. The
bot is reachable once its server has started, its socket exists and accepts connections (the
arena's last refused connection bounds that); it is ready when its health service first answers
SERVING to both names. The arena's share is its own work and waiting:
setting the launch up until the process is started, any time from the bot being reachable until
the arena's first health check (polling, reconnect backoff), and the time from the bot's last
SERVING answer until the arena has it. The rest (process start, imports, listening, serving its
first request) is the bot's own.
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import trio

from arena.transport import BotConnection, BotSpec, open_bot

from .common import JS_BOT, LIMIT, REPO, SAMPLE_BOTS, Sizes, python_bot
from .ready_bot import ANSWERED, READY


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


def ready_split_ms(connection: BotConnection, stdout: str) -> tuple[float, float]:
    """(the bot's own, the arena's share) of a `ready_bot` launch-to-ready, in ms (see the module docstring)."""
    process = connection.process
    assert process is not None and process.socket_seen is not None
    assert connection.ready_at is not None and connection.checked_at is not None
    stamps: dict[str, list[float]] = {READY: [], ANSWERED: []}
    for line in stdout.splitlines():
        word, _, value = line.partition(" ")
        if word in stamps:
            stamps[word].append(int(value) / 1e9)
    # After the bot's server started, its socket appeared, and a connection was last refused.
    reachable = max(stamps[READY][0], process.socket_seen, process.refused_at or 0.0)
    answered = max(stamp for stamp in stamps[ANSWERED] if stamp <= connection.ready_at)
    arena = ((process.spawned_at - process.launched_at) + max(0.0, connection.checked_at - reachable)
             + (connection.ready_at - answered))
    total = connection.ready_at - process.launched_at
    return (total - arena) * 1000, arena * 1000


async def _split_once(spec: BotSpec, workdir: Path) -> tuple[float, float]:
    async with open_bot(spec, log_dir=workdir / "ready-logs", socket_dir=workdir) as connection:
        if connection.dead is not None:
            raise RuntimeError(f"{spec.name}: {connection.dead}")
    return ready_split_ms(connection, (workdir / "ready-logs" / f"{spec.name}.stdout.log").read_text())


async def measure(sizes: Sizes, workdir: Path) -> dict[str, Any]:
    """The suite's `start` section: the Python call bot, and the Node.js bot when it is installed."""
    python_spec = python_bot("start-call", "call_bot.py")
    js_spec = None
    if (JS_BOT / "node_modules").is_dir() and shutil.which("node"):
        js_spec = BotSpec(name="start-js", command=("node", str(JS_BOT / "index.js")), cwd=str(REPO), limit=LIMIT)
    ready_spec = BotSpec(name="ready-call", command=(sys.executable, "-m", "benchmarks.ready_bot",
                                                     str(SAMPLE_BOTS / "call_bot.py")), cwd=str(REPO), limit=LIMIT)
    imports, pythons, scripts, splits = [], [], [], []
    for _ in range(sizes.start_repeats):  # alternated, like the decision rounds
        imports.append(await trio.to_thread.run_sync(_python_import_grpc_ms))
        pythons.append(await _start_to_ready_ms(python_spec, workdir))
        if js_spec is not None:
            scripts.append(await _start_to_ready_ms(js_spec, workdir))
        splits.append(await _split_once(ready_spec, workdir))
    figures: dict[str, Any] = {
        "bot_start_to_ready_ms": round(statistics.median(pythons), 1),
        "bot_start_to_ready_ms_js": round(statistics.median(scripts), 1) if scripts else None,
        "python_import_grpc_ms": round(statistics.median(imports), 1),
    }
    figures["ready_bot_ms"] = round(statistics.median(bot for bot, _ in splits), 1)
    figures["ready_arena_ms"] = round(statistics.median(arena for _, arena in splits), 2)
    figures["ready_arena_ms_max"] = round(max(arena for _, arena in splits), 2)
    figures["bot_start_vs_import_grpc_ratio"] = round(figures["bot_start_to_ready_ms"] /
                                                      figures["python_import_grpc_ms"], 2)
    return figures
