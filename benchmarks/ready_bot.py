"""A sample bot that says when it became ready: for splitting launch-to-ready into the bot's part and the arena's.

    python -m benchmarks.ready_bot sample_bots/call_bot.py [ARGS...]

runs the script as its own `__main__`, but prints on stdout `seka-ready <ns>` the moment its
`BotServer.start` returns (its health service then reports SERVING), and `seka-answered <ns>` each
time its health service answers SERVING, <ns> being `time.monotonic_ns()`: the clock the arena
stamps its launch and readiness with, the same in every process of the machine.
"""

from __future__ import annotations

import os
import runpy
import sys
import time
from typing import Any

from grpc_health.v1 import health, health_pb2

import arena.sdk

READY = "seka-ready"
ANSWERED = "seka-answered"
"""The words that start the lines."""


def _say(word: str) -> None:
    # One write per line: health checks are answered on several threads at once.
    os.write(sys.stdout.fileno(), f"{word} {time.monotonic_ns()}\n".encode())


def main() -> None:
    start = arena.sdk.BotServer.start

    def start_and_tell(server: arena.sdk.BotServer) -> None:
        start(server)
        _say(READY)

    check = health.HealthServicer.Check

    def check_and_tell(servicer: health.HealthServicer, request: Any, context: Any) -> Any:
        reply = check(servicer, request, context)
        if reply.status == health_pb2.HealthCheckResponse.SERVING:
            _say(ANSWERED)
        return reply

    # The changes to the bot (a wrapper in place of a method: mypy cannot follow it).
    arena.sdk.BotServer.start = start_and_tell  # type: ignore[method-assign, assignment]
    health.HealthServicer.Check = check_and_tell  # type: ignore[method-assign, assignment]
    script, *sys.argv[1:] = sys.argv[1:]
    sys.argv[0] = script
    runpy.run_path(script, run_name="__main__")


if __name__ == "__main__":
    main()
