"""A bot that plays by its hand's strength alone, with two thresholds.

- strong (a total of 28 or more, or any seka): raise to the maximum bet; heads-up, show.
- medium (a total of 21 to 27, two aces counting 22): call (pay the least allowed); heads-up
  after the deal has run for 10 actions, show to end it.
- weak (below 21): fold, except that it pays the opening stake when nobody has paid yet.

It declines svara offers. The thresholds can be set with `--strong N` and `--medium N`.

    SEKA_BOT_ADDRESS=unix:/tmp/threshold.sock python sample_bots/threshold_bot.py
"""

from __future__ import annotations

import argparse

from arena.sdk import Action, Bet, Bot, Fold, Show, Turn, run

STRONG = 28
MEDIUM = 21
_SHOW_AFTER = 10  # actions: two medium hands calling each other would otherwise run to the cap


class ThresholdBot(Bot):
    name = "threshold"
    version = "1.0"

    def __init__(self, *, strong: int = STRONG, medium: int = MEDIUM) -> None:
        self.strong = strong
        self.medium = medium

    def act(self, turn: Turn) -> Action:
        strength = turn.hand_value().strength  # a total, or above every total for a seka
        if strength >= self.strong:
            return Show() if turn.can_show else Bet(turn.max_bet)
        if strength >= self.medium:
            if turn.can_show and turn.actions_count >= _SHOW_AFTER:
                return Show()
            return Bet(turn.min_bet)
        if turn.previous_bet is None:
            return Bet(turn.min_bet)
        return Fold()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--strong", type=int, default=STRONG, help=f"raise from this strength (default {STRONG})")
    parser.add_argument("--medium", type=int, default=MEDIUM, help=f"call from this strength (default {MEDIUM})")
    parser.add_argument("--address", help="where to listen (default: $SEKA_BOT_ADDRESS)")
    args = parser.parse_args()
    run(ThresholdBot(strong=args.strong, medium=args.medium), address=args.address)


if __name__ == "__main__":
    main()
