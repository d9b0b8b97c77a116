"""A bot built on the Python SDK that misbehaves on purpose, one way per `--mode`.

It calls like `sample_bots/call_bot.py` (pays the least allowed amount, accepts every svara)
except where its mode says otherwise:

    hang               sleeps forever in every Act and Svara
    crash              exits with os._exit(7) during its `--at`-th Act (default 3)
    illegal-high       bets max_bet + 1
    illegal-low        bets below min_bet (0 when min_bet is 1)
    illegal-show       shows, which needs exactly two players in the deal and a previous bet
    slow               sleeps before calling: `--seconds 0.3` in every Act, or `--seconds 0.35,0.15`
                       for 0.35 s in the first Act and 0.15 s in every later one
    burn               keeps a CPU busy (a loop, no sleeping) for `--seconds` in every Act
    allocate           holds `--bytes` of memory, every page written, from before it serves
    flood              writes `--bytes` to stdout before serving, then plays
    ignore-term        serves with SIGTERM and SIGINT ignored (so only SIGKILL stops it)
    grandchild         forks a child that sleeps for a long time, then plays; the child stays in
                       the bot's process group and writes its pid to `--pid-file`
    escape             like grandchild, but the child calls setsid() (leaves the group) and keeps
                       the bot's stdout and stderr open

Every mode writes the bot's own pid to `--pid-file` (when given) before it serves; a hanging
bot also creates the file with the suffix `.hung` when its first Act arrives. `--pid-file
stderr` writes each of these as a line `MARK <suffix> <text>` to stderr instead, which the arena
keeps in the bot's log: a sandboxed bot can write no file the host sees once it listens (its
pids are then those of its own pid namespace). `--tag=WORD` is ignored: it lets a test find the
bot's processes, and its children's, by their command line.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
import time
from pathlib import Path

from arena.sdk import Action, Bet, Bot, Show, SvaraOffer, Turn, run, serve


class FaultyBot(Bot):
    name = "faulty"

    def __init__(self, mode: str, *, at: int, seconds: list[float], pid_file: str | None) -> None:
        self.mode = mode
        self.pid_file = pid_file
        self.at = at
        self.seconds = seconds
        self.turns = 0

    def act(self, turn: Turn) -> Action:
        self.turns += 1
        if self.mode == "hang":
            mark(self.pid_file, ".hung", str(turn.pot_number))
            threading.Event().wait()
        if self.mode == "crash" and self.turns >= self.at:
            print(f"crashing at turn {self.turns}", file=sys.stderr, flush=True)
            os._exit(7)
        if self.mode == "illegal-high":
            return Bet(turn.max_bet + 1)
        if self.mode == "illegal-low":
            return Bet(turn.min_bet - 1)
        if self.mode == "illegal-show":
            return Show()
        if self.mode == "slow":
            time.sleep(self.seconds[min(self.turns, len(self.seconds)) - 1])
        if self.mode == "burn":
            until = time.thread_time() + self.seconds[min(self.turns, len(self.seconds)) - 1]
            while time.thread_time() < until:  # CPU time, so a bot kept from the CPU burns as long
                pass
        return Bet(turn.min_bet)

    def svara(self, offer: SvaraOffer) -> bool:
        if self.mode == "hang":
            threading.Event().wait()
        return True


def mark(pid_file: str | None, suffix: str, text: str) -> None:
    """Leave a marker for the test: the pid file with `suffix`, or a line on stderr."""
    if pid_file == "stderr":
        os.write(2, f"MARK {suffix} {text}\n".encode())
    elif pid_file is not None:
        Path(pid_file).with_suffix(suffix).write_text(text)


def _fork_sleeper(pid_file: str | None, *, escape: bool) -> None:
    child = os.fork()
    if child == 0:
        if escape:
            os.setsid()
        mark(pid_file, ".child", str(os.getpid()))
        time.sleep(60)
        os._exit(0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", required=True)
    parser.add_argument("--at", type=int, default=3)
    parser.add_argument("--seconds", type=lambda text: [float(part) for part in text.split(",")], default=[0.3])
    parser.add_argument("--bytes", type=int, default=50_000_000)
    parser.add_argument("--pid-file")
    parser.add_argument("--tag")
    args = parser.parse_args()
    bot = FaultyBot(args.mode, at=args.at, seconds=args.seconds, pid_file=args.pid_file)
    if args.mode == "flood":
        chunk = b"x" * 65536
        left = args.bytes
        while left > 0:
            left -= os.write(1, chunk[:left])
    held = bytes(range(256)) * (args.bytes // 256) if args.mode == "allocate" else b""  # every page touched
    if args.mode in ("grandchild", "escape"):
        _fork_sleeper(args.pid_file, escape=args.mode == "escape")
    if args.mode == "ignore-term":
        server = serve(bot, os.environ["SEKA_BOT_ADDRESS"])
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        mark(args.pid_file, ".pid", str(os.getpid()))
        server.wait()
        return
    mark(args.pid_file, ".pid", str(os.getpid()))
    run(bot, argv=[])
    del held
    # A handler still hanging would keep the interpreter from exiting; SIGTERM-ignoring bots
    # have their own mode, so once the SDK has stopped serving, leave at once.
    os._exit(0)


if __name__ == "__main__":
    main()
