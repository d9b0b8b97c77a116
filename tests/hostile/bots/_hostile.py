"""What the hostile test bots share: a calling base bot and a report line on stderr.

Not a bot. Each hostile bot plays like `sample_bots/call_bot.py` except for its one attack, which
it bounds itself (a count, a size, a time), so that a failure to contain it fails a test instead
of taking the machine down. Reports go to stderr, one line each, `HOSTILE <what> <json>`: the
arena keeps stderr in the bot's log, which the tests read.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from arena.sdk import Action, Bet, Bot, SvaraOffer, Turn


def report(what: str, **details: Any) -> None:
    """Write one `HOSTILE what {json}` line to stderr, unbuffered (the bot may be killed next)."""
    line = f"HOSTILE {what} {json.dumps(details, sort_keys=True)}\n".encode()
    try:
        os.write(2, line)
    except OSError:
        pass


class CallingBot(Bot):
    """Pays the least allowed amount and accepts every svara, like the call bot."""

    name = "hostile"

    def act(self, turn: Turn) -> Action:
        return Bet(turn.min_bet)

    def svara(self, offer: SvaraOffer) -> bool:
        return True


def flood(fd: int, chunk: bytes, most: int, what: str) -> None:
    """Write `chunk` to `fd` over and over, up to `most` bytes or until it is closed; report `what`."""
    written = 0
    try:
        while written < most:
            written += os.write(fd, chunk)
    except OSError:
        pass
    report(what, bytes=written)


def arg(index: int, default: str) -> str:
    """Positional command-line argument `index` (1-based), or `default`."""
    return sys.argv[index] if len(sys.argv) > index else default
