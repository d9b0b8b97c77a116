"""Broken on purpose: plays like the call bot but ignores SIGTERM, so it has to be killed."""

import os
import signal

from arena.sdk import Bet, Bot, serve


class StubbornBot(Bot):
    name = "stubborn"

    def act(self, turn):
        return Bet(turn.min_bet)


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    server = serve(StubbornBot(), os.environ["SEKA_BOT_ADDRESS"])  # kept: a server collected stops
    server.wait()
