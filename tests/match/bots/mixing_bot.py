"""Answers every betting turn with a mix (`turn.mix`), well formed or broken one way per `--mode`.

    valid       fold 1/4, the cheapest way to stay in 3/4 (a look, which cannot be mixed, plainly)
    negative    a negative probability          sum        probabilities summing to 3/4
    nan         a NaN probability               inf        an infinite probability
    duplicate   the same action twice           too-many   65 entries
    illegal     a bet over the maximum          empty      no entries at all
"""

from __future__ import annotations

import argparse
import math

from arena.sdk import Action, Bet, Bot, Fold, Look, Mix, Raise, Turn, run


class MixingBot(Bot):
    name = "mixing"

    def __init__(self, mode: str) -> None:
        self.mode = mode

    def act(self, turn: Turn) -> Action | Mix:
        stay = turn.stay_in()
        if isinstance(stay, Look):
            return stay
        other = stay if stay != Fold() else (turn.compare() or Fold())
        pairs: dict[str, list[tuple[Action, float]]] = {
            "valid": [(Fold(), 0.25), (other, 0.75)] if other != Fold() else [(Fold(), 1.0)],
            "negative": [(Fold(), -0.5), (other, 1.5)],
            "sum": [(Fold(), 0.5), (other, 0.25)],
            "nan": [(Fold(), math.nan), (other, 1.0)],
            "inf": [(Fold(), math.inf), (other, 1.0)],
            "duplicate": [(Fold(), 0.5), (Fold(), 0.5)],
            "too-many": [(Fold(), 1 / 65)] * 65,
            "illegal": [(Fold(), 0.5), (Bet(turn.max_bet + 1) if turn.legal.can_bet
                                        else Raise((turn.legal.raise_max or 0) + 100), 0.5)],
            "empty": [],
        }
        return turn.mix(pairs[self.mode])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", required=True)
    run(MixingBot(parser.parse_args().mode))


if __name__ == "__main__":
    main()
