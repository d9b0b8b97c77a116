"""A cheat: it finds a weak tournament secret through the session id it is told, then every deal.

When a tournament told its bots HMAC(secret, session id), a bot could try likely secrets (small
numbers, a few words) and internal ids (`s0001`...) until one gives the id it was told: then the
secret gives every block's deal seed (`block_seed`, public), and the one that deals the bot its
own cards names every hand at the table. The participants' names are public (argv: `--names
a,b`). Plays like `seed_guesser.py` once it knows the hands. Each turn it reports `HOSTILE guess
{"pot", "replay", "seed", "known"}` (seed null: none found; known: the opponents' predicted hands).
"""

from __future__ import annotations

import itertools
import sys

from _hostile import CallingBot, report

from arena.engine import DECK_36, deck_order
from arena.match import public_session_id
from arena.sdk import Action, Bet, Fold, Show, Turn, hand_value, run
from arena.tournament import block_seed

SECRETS = [str(number) for number in range(1000)] + ["secret", "seed", "demo", "test", "tournament"]
SESSIONS = 16
BLOCKS = 8


def _order(seed: str, turn: Turn) -> list[str]:
    return [str(card) for card in deck_order(seed, turn.pot_number, turn.replay, DECK_36)]


class SecretSearcher(CallingBot):
    name = "secret-searcher"
    searched = False
    seed: str | None = None

    def __init__(self, names: list[str]) -> None:
        self.names = names

    def _search(self, turn: Turn) -> str | None:
        ids = [f"s{number:04d}" for number in range(1, SESSIONS + 1)]
        secret = next((candidate for candidate in SECRETS
                       if any(public_session_id(candidate, internal) == turn.session_id for internal in ids)), None)
        if secret is None:
            return None
        mine = sorted(turn.cards)
        for table in itertools.permutations(self.names):
            for block in range(1, BLOCKS + 1):
                seed = block_seed(secret, table, block)
                if sorted(_order(seed, turn)[3 * turn.seat: 3 * turn.seat + 3]) == mine:
                    return seed
        return None

    def act(self, turn: Turn) -> Action:
        if not self.searched:
            self.searched = True
            self.seed = self._search(turn)
        hands: dict[int, tuple[str, ...]] | None = None
        if self.seed is not None:
            order = _order(self.seed, turn)
            hands = {seat: tuple(order[3 * seat: 3 * seat + 3]) for seat in turn.opponents}
        report("guess", pot=turn.pot_number, replay=turn.replay, seed=self.seed,
               known={str(seat): list(cards) for seat, cards in (hands or {}).items()})
        if hands is None:  # an honest bot's play: call, and see the cards as soon as it may
            return Show() if turn.can_show else Bet(turn.min_bet)
        if all(hand_value(turn.cards) > hand_value(cards) for cards in hands.values()):
            return Show() if turn.can_show else Bet(turn.max_bet)
        return Fold()


if __name__ == "__main__":
    names = sys.argv[sys.argv.index("--names") + 1].split(",") if "--names" in sys.argv else []
    run(SecretSearcher(names))
