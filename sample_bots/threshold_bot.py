"""A bot that plays by its hand's strength alone, with two thresholds.

- strong (a total of 28 or more, or any seka): show, open or call when it may; otherwise raise to
  the most allowed.
- medium (a total of 21 to 27, two aces counting 22): call (pay the least allowed, or support);
  after the deal has run for 10 actions, show, open or call to end it when it may.
- weak (below 21): fold, except that it pays the opening stake when nobody has paid yet.

With two-card hands (`classic` with `cards: 2`, at most 22) the thresholds are 21 and 17. Dealt in
dark, it looks. It declines svara offers. The thresholds can be set with `--strong N` and `--medium N`.

    SEKA_BOT_ADDRESS=unix:/tmp/threshold.sock python sample_bots/threshold_bot.py
"""

from __future__ import annotations

import argparse

from arena.sdk import Action, Bot, Fold, Hello, Turn, run

STRONG = 28
MEDIUM = 21
_SHOW_AFTER = 10  # actions: two medium hands calling each other would otherwise run to the cap
_TWO_CARDS = (21, 17)  # strong, medium for two-card hands


class ThresholdBot(Bot):
    name = "threshold"
    version = "1.0"

    def __init__(self, *, strong: int = STRONG, medium: int = MEDIUM) -> None:
        self.chosen = (strong, medium)
        self.strong = strong
        self.medium = medium

    def on_hello(self, hello: Hello) -> None:
        # Each session afresh (a process may serve several in turn): two-card hands score lower.
        two_cards = hello.table.hand_size == 2 and self.chosen == (STRONG, MEDIUM)
        self.strong, self.medium = _TWO_CARDS if two_cards else self.chosen

    def act(self, turn: Turn) -> Action:
        if turn.cards_unseen:
            return turn.stay_in()  # looks
        strength = turn.hand_value().strength  # a total, or above every total for a seka
        if strength >= self.strong:
            return turn.compare() or turn.raise_most()
        if strength >= self.medium:
            ending = turn.compare() if turn.actions_count >= _SHOW_AFTER else None
            return ending or turn.stay_in()
        if turn.previous_bet is None:
            return turn.stay_in()
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
