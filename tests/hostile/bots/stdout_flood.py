"""Hostile bot: a background thread writes to stdout as fast as it can, up to 2 GiB, while it plays.

Reports `HOSTILE stdout-flood {"bytes": N}` on stderr when it has written everything (or its
stdout was closed).
"""

from __future__ import annotations

import os
import threading

from _hostile import CallingBot, report

from arena.sdk import run

_MOST = 2 << 30
_CHUNK = b"x" * (1 << 20)


def flood() -> None:
    written = 0
    try:
        while written < _MOST:
            written += os.write(1, _CHUNK)
    except OSError:
        pass
    report("stdout-flood", bytes=written)


class StdoutFlood(CallingBot):
    name = "stdout-flood"


if __name__ == "__main__":
    threading.Thread(target=flood, daemon=True).start()
    run(StdoutFlood())
