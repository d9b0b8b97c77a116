"""Hostile bot: a background thread spins from the start, and its first turn spins too, for 120 s.

Both are pure-Python loops; the first turn times out and, unless a CPU limit stops it, the bot
keeps every core it can get busy for two minutes. Reports `HOSTILE cpu-spinner {"spinning": true}`
when its turn starts spinning.
"""

from __future__ import annotations

import threading
import time

from _hostile import CallingBot, report

from arena.sdk import Action, Turn, run

_SECONDS = 120.0


def spin(seconds: float) -> int:
    end = time.monotonic() + seconds
    count = 0
    while time.monotonic() < end:
        count += 1
    return count


class CpuSpinner(CallingBot):
    name = "cpu-spinner"

    def act(self, turn: Turn) -> Action:
        report("cpu-spinner", spinning=True)
        spin(_SECONDS)
        return super().act(turn)


if __name__ == "__main__":
    threading.Thread(target=spin, args=(_SECONDS,), daemon=True).start()
    run(CpuSpinner())
