"""A bot that tells, in its HelloReply's version, what its process has seen: for the tests of warm processes.

The version is `TOKEN|SERVED|FILES|OVERLAP`, all of this process:

    TOKEN    drawn once when the process starts: sessions with the same token shared a process
    SERVED   the session ids it was greeted with before this one, comma-separated
    FILES    the marks it finds in $WARM_PROBE_MARKS (it leaves one per session there, named by the
             session id); /tmp/warm-probe in the sandbox: then only its own, earlier sessions' marks
    OVERLAP  "overlap" if this Hello came while an earlier session had not ended, else "-"

Options: `--slow-first MS` sleeps MS before its first answer of each session (to draw on the
time bank); `--illegal-in N` answers an illegal bet at every turn of its process's N-th session;
It pays the minimum at every turn otherwise.
"""

from __future__ import annotations

import argparse
import os
import secrets
import time
from pathlib import Path

from arena.sdk import Action, Bet, Bot, Hello, SessionEnd, Turn, run

MARKS = Path(os.environ.get("WARM_PROBE_MARKS", "/tmp/warm-probe"))


class WarmProbe(Bot):
    name = "warm-probe"

    def __init__(self, *, slow_first_ms: int, illegal_in: int) -> None:
        self.token = secrets.token_hex(6)
        self.served: list[str] = []
        self.open = False
        self.slow_first = slow_first_ms / 1000
        self.illegal_in = illegal_in
        self.answered = False

    def on_hello(self, hello: Hello) -> None:
        files = sorted(path.name for path in MARKS.iterdir()) if MARKS.is_dir() else []
        overlap = "overlap" if self.open else "-"
        self.version = "|".join([self.token, ",".join(self.served), ",".join(files), overlap])
        self.served.append(hello.session_id)
        MARKS.mkdir(parents=True, exist_ok=True)
        (MARKS / hello.session_id).touch()
        self.open = True
        self.answered = False

    def on_session_end(self, end: SessionEnd) -> None:
        self.open = False

    def act(self, turn: Turn) -> Action:
        if not self.answered:
            self.answered = True
            time.sleep(self.slow_first)
        if len(self.served) == self.illegal_in:
            return Bet(turn.max_bet + 1)
        return Bet(turn.min_bet)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--slow-first", type=int, default=0)
    parser.add_argument("--illegal-in", type=int, default=0)
    args, _ = parser.parse_known_args()
    run(WarmProbe(slow_first_ms=args.slow_first, illegal_in=args.illegal_in))


if __name__ == "__main__":
    main()
