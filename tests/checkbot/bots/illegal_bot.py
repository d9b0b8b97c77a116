"""Broken on purpose: always bets one chip over the maximum."""

from arena.sdk import Bet, Bot, run


class IllegalBot(Bot):
    name = "illegal"

    def act(self, turn):
        return Bet(turn.max_bet + 1)


if __name__ == "__main__":
    run(IllegalBot())
