"""Hostile bot: ignores every signal it can (all but SIGKILL and SIGSTOP), and so does its child.

The child it forks at start leaves the session (setsid) and sleeps for 30 seconds; the bot plays
like the call bot. Only SIGKILL, to it and to everything it started, ends it.
"""

from __future__ import annotations

import os
import signal
import threading
import time

from _hostile import CallingBot, report

from arena.sdk import serve


def ignore_everything() -> list[str]:
    ignored = []
    for sig in signal.Signals:
        if sig in (signal.SIGKILL, signal.SIGSTOP):
            continue
        try:
            signal.signal(sig, signal.SIG_IGN)
            ignored.append(sig.name)
        except (OSError, ValueError):
            pass
    return ignored


class SignalImmune(CallingBot):
    name = "signal-immune"


if __name__ == "__main__":
    ignored = ignore_everything()
    if os.fork() == 0:
        os.setsid()
        time.sleep(30)
        os._exit(0)
    report("signal-immune", ignored=len(ignored))
    server = serve(SignalImmune(), os.environ["SEKA_BOT_ADDRESS"])
    threading.Event().wait(60)  # no handler stops it: only SIGKILL (or this bound)
    os._exit(0)
