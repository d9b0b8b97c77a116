"""Broken on purpose: the process dies when it is offered a svara."""

import os
import sys

from arena.sdk import Bet, Bot, run


class SvaraCrashBot(Bot):
    name = "svara-crash"

    def act(self, turn):
        return Bet(turn.min_bet)

    def svara(self, offer):
        print(f"cannot handle a svara at {offer.price}", file=sys.stderr, flush=True)
        os._exit(7)


if __name__ == "__main__":
    run(SvaraCrashBot())
