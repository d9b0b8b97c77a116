"""Broken on purpose for the other profiles: a bot written for plain `georgian` alone.

    --mode bet      pays min_bet every turn, whatever LegalActions allows (a dark turn has no bet,
                    nor does a stake profile): illegal there, fine on plain georgian
    --mode cards    reads its cards at every turn, even a dark one that has none: it crashes there
"""

from __future__ import annotations

import argparse

from arena.sdk import Bet, Bot, Turn, run


class GeorgianOnlyBot(Bot):
    name = "georgian-only"

    def __init__(self, mode: str) -> None:
        self.mode = mode

    def act(self, turn: Turn) -> Bet:
        if self.mode == "cards":
            first, second, third = turn.cards  # no cards before a look: ValueError
            return Bet(turn.min_bet if turn.legal.can_bet else turn.legal.dark_min or 1)
        return Bet(turn.min_bet)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", choices=["bet", "cards"], required=True)
    run(GeorgianOnlyBot(parser.parse_args().mode))
