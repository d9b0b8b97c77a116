"""Hostile bot: a background thread writes to stdout as fast as it can, up to 2 GiB, while it plays.

Reports `HOSTILE stdout-flood {"bytes": N}` on stderr when it has written everything (or its
stdout was closed).
"""

from __future__ import annotations

import threading

from _hostile import CallingBot, flood

from arena.sdk import run

_MOST = 2 << 30
_CHUNK = b"x" * (1 << 20)


class StdoutFlood(CallingBot):
    name = "stdout-flood"


if __name__ == "__main__":
    threading.Thread(target=flood, args=(1, _CHUNK, _MOST, "stdout-flood"), daemon=True).start()
    run(StdoutFlood())
