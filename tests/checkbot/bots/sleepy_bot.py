"""Broken on purpose: answers every turn two seconds late."""

import time

from arena.sdk import Bet, Bot, run


class SleepyBot(Bot):
    name = "sleepy"

    def act(self, turn):
        time.sleep(2)
        return Bet(turn.min_bet)


if __name__ == "__main__":
    run(SleepyBot())
