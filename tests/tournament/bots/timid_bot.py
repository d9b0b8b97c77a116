"""A bot that never contests a bet, so every game it plays has a known result, one way per `--mode`.

    fold   folds at every turn, even when nobody has bet
    open   pays the opening stake when nobody has bet yet in the deal, and folds to any bet

Against a bot that always calls (sample_bots/call_bot.py), `open` loses every pot and `fold` does
too; `open` against `fold` wins every pot. Neither ever reaches a showdown, so no cards decide.
"""

from __future__ import annotations

import argparse

from arena.sdk import Action, Bet, Bot, Fold, SvaraOffer, Turn, run


class TimidBot(Bot):
    name = "timid"
    version = "1.0"

    def __init__(self, mode: str) -> None:
        self.mode = mode

    def act(self, turn: Turn) -> Action:
        if self.mode == "open" and turn.previous_bet is None:
            return Bet(turn.min_bet)
        return Fold()

    def svara(self, offer: SvaraOffer) -> bool:
        return False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=["fold", "open"], required=True)
    parser.add_argument("--address", help="where to listen (default: $SEKA_BOT_ADDRESS)")
    args = parser.parse_args()
    run(TimidBot(args.mode), address=args.address)


if __name__ == "__main__":
    main()
