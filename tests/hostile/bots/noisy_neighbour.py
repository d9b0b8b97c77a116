"""Hostile bot: answers at once, but keeps the machine busy to make its opponent time out.

`--spin N` forks N processes (before serving: forking a gRPC process is unsafe) that spin for as
long as the bot lives, at most 120 s; `--stderr` floods stderr from a thread, up to 16 GiB, so
that reading it costs the arena CPU outside the bot's control group. Reports
`HOSTILE noisy {"spinners": N}` at start and `HOSTILE stderr-flood {"bytes": B}` when its flood ends.
"""

from __future__ import annotations

import argparse
import os
import threading
import time

from _hostile import CallingBot, flood, report

from arena.sdk import run

_SECONDS = 120.0
_MOST = 16 << 30
_CHUNK = b"e" * (1 << 16)


def spin(parent: int) -> None:
    end = time.monotonic() + _SECONDS
    while time.monotonic() < end:
        for _ in range(100_000):
            pass
        if os.getppid() != parent:  # the bot is gone
            break


class NoisyNeighbour(CallingBot):
    name = "noisy-neighbour"


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--spin", type=int, default=0)
    parser.add_argument("--stderr", action="store_true")
    options = parser.parse_args()
    report("noisy", spinners=options.spin)
    for _ in range(options.spin):
        if os.fork() == 0:
            try:
                spin(os.getppid())
            finally:
                os._exit(0)
    if options.stderr:
        threading.Thread(target=flood, args=(2, _CHUNK, _MOST, "stderr-flood"), daemon=True).start()
    run(NoisyNeighbour())
