"""A bot that plays a uniformly random legal action: a baseline and a fuzzer for the arena.

Each turn it gives each of the actions allowed an equal chance: fold, bet, show, and in other
profiles dark bet, look, support, raise, open, call, multiway open; an amount (a bet's, a dark
bet's, a raise's new stake) is drawn uniformly from the whole numbers between the bounds (plus the
lower bound itself when that is a fraction). It answers with that distribution (`turn.mix`), so the
arena draws the action and records the probabilities; a turn where it may look is drawn by the bot
itself (a look cannot be mixed). It accepts a svara offer with probability one half.

Seed it for reproducible play with `--seed S` or the environment variable SEKA_BOT_SEED;
unseeded it draws from the system's entropy.

    SEKA_BOT_ADDRESS=unix:/tmp/random.sock python sample_bots/random_bot.py --seed 7
"""

from __future__ import annotations

import argparse
import math
import os
import random
from collections.abc import Callable

from arena.sdk import (
    Action,
    Amount,
    Bet,
    Bot,
    Call,
    DarkBet,
    Fold,
    Hello,
    Look,
    Mix,
    MultiwayOpen,
    Open,
    Raise,
    Show,
    Support,
    SvaraOffer,
    Turn,
    run,
)


def random_amount(rng: random.Random, low: Amount, high: Amount) -> Amount:
    """A bet drawn uniformly from every whole number in [low, high], and low itself.

    The amount is computed from one draw of an index, never from a list of every amount, so a
    table with a huge `max_bet` costs nothing; `rng.randrange(n)` consumes the generator exactly
    as `rng.choice` of an n-item list does, so a seeded bot plays the same bets as before.
    """
    first, last = math.ceil(low), math.floor(high)
    fractional_low = low != first  # a fractional lower bound is one more choice, the first
    count = max(last - first + 1, 0) + fractional_low
    index = rng.randrange(count)
    if fractional_low:
        return low if index == 0 else first + index - 1
    return first + index


class RandomBot(Bot):
    name = "random"
    version = "1.0"

    def __init__(self, seed: str | None = None) -> None:
        self.seed = seed
        self.rng = random.Random(seed)

    def on_hello(self, hello: Hello) -> None:
        # Every session starts from the seed: a process serving several sessions in turn
        # (`bot_processes: reuse`) plays each as a fresh one would.
        self.rng = random.Random(self.seed)

    def act(self, turn: Turn) -> Action | Mix:
        legal = turn.legal
        # In the order of a georgian turn first (fold, bet, show), so a seeded bot plays as before.
        choices: list[Callable[[], Action]] = [Fold]
        if legal.can_bet:
            choices.append(lambda: Bet(random_amount(self.rng, legal.min_bet, legal.max_bet)))
        if legal.can_show:
            choices.append(Show)
        if legal.dark_min is not None and legal.dark_max is not None:
            low, high = legal.dark_min, legal.dark_max
            choices.append(lambda: DarkBet(random_amount(self.rng, low, high)))
        if legal.raise_min is not None and legal.raise_max is not None:
            bottom, top = legal.raise_min, legal.raise_max
            choices.append(lambda: Raise(random_amount(self.rng, bottom, top)))
        allowed = (legal.can_look, legal.support_amount is not None, legal.open_amount is not None,
                   legal.call_amount is not None, legal.can_multiway_open)
        choices += [action for action, ok in zip((Look, Support, Open, Call, MultiwayOpen), allowed, strict=True)
                    if ok]
        if legal.can_look:
            return self.rng.choice(choices)()
        return turn.mix([(make(), 1 / len(choices)) for make in choices])

    def svara(self, offer: SvaraOffer) -> bool:
        return self.rng.random() < 0.5


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", default=os.environ.get("SEKA_BOT_SEED"), help="seed for reproducible play")
    parser.add_argument("--address", help="where to listen (default: $SEKA_BOT_ADDRESS)")
    args = parser.parse_args()
    run(RandomBot(args.seed), address=args.address)


if __name__ == "__main__":
    main()
