"""A bot's start, from launch to SERVING, against `python -c "import grpc"` run to completion."""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import trio

from arena.transport import BotSpec, open_bot

from .common import JS_BOT, LIMIT, REPO, Sizes, python_bot


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


async def measure(sizes: Sizes, workdir: Path) -> dict[str, Any]:
    """The suite's `start` section: the Python call bot, and the Node.js bot when it is installed."""
    python_spec = python_bot("start-call", "call_bot.py")
    js_spec = None
    if (JS_BOT / "node_modules").is_dir() and shutil.which("node"):
        js_spec = BotSpec(name="start-js", command=("node", str(JS_BOT / "index.js")), cwd=str(REPO), limit=LIMIT)
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
