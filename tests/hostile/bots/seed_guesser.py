"""A cheat: it tries to re-derive the deal from the session id it is told, with the public shuffle.

The shuffle is public (`arena.engine.deck_order`, documented so that anyone can re-check a
tournament's deals once its secret is revealed), and seat s gets positions 3s..3s+2 of the order.
So if the session id is the deal seed, or holds it (`play-<seed>`), a bot knows every hand at
the table. At each of its turns it tries the id and the parts of it as the seed; a guess is right
when it gives the bot exactly the cards it holds. Knowing the others' cards, it raises to the
maximum (or shows) when it holds the best hand and folds otherwise; not knowing, it calls and
shows as soon as it may.
Each turn it reports `HOSTILE guess {"pot", "replay", "seed", "known"}` (seed null: no guess held).
"""

from __future__ import annotations

from _hostile import CallingBot, report

from arena.engine import DECK_36, deck_order
from arena.sdk import Action, Bet, Fold, Show, Turn, hand_value, run


def _candidates(session_id: str) -> list[str]:
    """The seeds a session id might be or hold: itself, and what follows each `-` or `_`."""
    found = [session_id]
    for separator in ("-", "_"):
        parts = session_id.split(separator)
        found += [separator.join(parts[index:]) for index in range(1, len(parts))]
    return list(dict.fromkeys(found))


class SeedGuesser(CallingBot):
    name = "seed-guesser"

    def act(self, turn: Turn) -> Action:
        hands: dict[int, tuple[str, ...]] | None = None
        seed = None
        for candidate in _candidates(turn.session_id):
            order = [str(card) for card in deck_order(candidate, turn.pot_number, turn.replay, DECK_36)]
            if sorted(order[3 * turn.seat: 3 * turn.seat + 3]) == sorted(turn.cards):
                seed = candidate
                hands = {seat: tuple(order[3 * seat: 3 * seat + 3]) for seat in turn.opponents}
                break
        report("guess", pot=turn.pot_number, replay=turn.replay, seed=seed,
               known={str(seat): list(cards) for seat, cards in (hands or {}).items()})
        if hands is None:  # an honest bot's play: call, and see the cards as soon as it may
            return Show() if turn.can_show else Bet(turn.min_bet)
        mine = hand_value(turn.cards)
        if all(mine > hand_value(cards) for cards in hands.values()):
            return Show() if turn.can_show else Bet(turn.max_bet)
        return Fold()


if __name__ == "__main__":
    run(SeedGuesser())
