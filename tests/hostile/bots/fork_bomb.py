"""Hostile bot: at its first turn a helper process forks as many processes as it can, at most 2000.

The helper is forked at start, before gRPC is loaded: grpcio's fork handlers retry thread
creation when a fork fails, which would hang the bomb rather than stop it. Each child leaves the
bot's process group and session (setsid) and sleeps for 30 seconds, so only a control group (or
the end of its pid namespace) can find it. The helper reports how many children it got and why
it stopped; the turn waits for that (at most 10 s), then the bot plays on like the call bot:

    HOSTILE fork-bomb {"children": 41, "stopped": "BlockingIOError: [Errno 11] Resource temporarily unavailable"}
"""

from __future__ import annotations

import json
import os
import time

_MOST = 2000


def bomb() -> None:
    children, stopped = 0, "reached the bound"
    while children < _MOST:
        try:
            pid = os.fork()
        except OSError as error:
            stopped = f"{type(error).__name__}: {error}"
            break
        if pid == 0:
            try:
                os.setsid()
                time.sleep(30)
            finally:
                os._exit(0)
        children += 1
    os.write(2, f"HOSTILE fork-bomb {json.dumps({'children': children, 'stopped': stopped})}\n".encode())


def start_helper() -> tuple[int, int]:
    """Fork the helper, waiting on a pipe: write to the first fd returned to start the bomb, and
    the second becomes readable once it has reported."""
    start_read, start_write = os.pipe()
    done_read, done_write = os.pipe()
    if os.fork() == 0:
        os.close(start_write)
        os.close(done_read)
        if os.read(start_read, 1):
            bomb()
            os.write(done_write, b"!")
        os._exit(0)
    os.close(start_read)
    os.close(done_write)
    return start_write, done_read


if __name__ == "__main__":
    import select

    trigger, done = start_helper()

    from _hostile import CallingBot

    from arena.sdk import Action, Turn, run

    class ForkBomb(CallingBot):
        name = "fork-bomb"

        def act(self, turn: Turn) -> Action:
            global trigger
            if trigger >= 0:
                os.write(trigger, b"!")
                os.close(trigger)
                trigger = -1
                select.select([done], [], [], 10.0)  # the session must not end before the report
            return super().act(turn)

    run(ForkBomb())
