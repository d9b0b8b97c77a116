"""A cheat: it finds a seed a person typed (`play --seed 7`, `sprt --seed 7`) from its own cards.

The shuffle is public and seat s gets positions 3s..3s+2 of a deal's order, so a bot that holds
three cards can try the seeds people type (small numbers, a few words; for `sprt`, its pairs'
`<seed>-pair-<n>`) until one deals it exactly those cards: then it knows every hand at the table,
and plays like `seed_guesser.py` (the maximum with the best hand, a fold otherwise). It searches
at its first turn and keeps the seeds that deal it each new hand it sees (a wrong seed deals
it the same three cards once in ~7,000 tries, twice almost never).
Each turn it reports `HOSTILE guess {"pot", "replay", "seed", "known"}` (seed null: none found;
known: the opponents' hands it predicts, by seat).
"""

from __future__ import annotations

from _hostile import CallingBot, report

from arena.engine import DECK_36, deck_order
from arena.sdk import Action, Bet, Fold, Show, Turn, hand_value, run

TYPED = [str(number) for number in range(1000)] + ["seed", "demo", "test", "secret", "sprt", "play"]
PAIRS = 8


def _candidates() -> list[str]:
    return TYPED + [f"{text}-pair-{pair}" for pair in range(1, PAIRS + 1) for text in TYPED[:100]]


def _order(seed: str, turn: Turn) -> list[str]:
    return [str(card) for card in deck_order(seed, turn.pot_number, turn.replay, DECK_36)]


class TypedSeedFinder(CallingBot):
    name = "typed-seed-finder"
    candidates: list[str] | None = None
    seen: set[tuple[int, int]] = set()

    def act(self, turn: Turn) -> Action:
        deal = (turn.pot_number, turn.replay)
        if deal not in self.seen:  # each new deal rules out the seeds that would not deal it these cards
            self.seen = self.seen | {deal}
            mine = sorted(turn.cards)
            known = _candidates() if self.candidates is None else self.candidates
            self.candidates = [candidate for candidate in known
                               if sorted(_order(candidate, turn)[3 * turn.seat: 3 * turn.seat + 3]) == mine]
        seed = self.candidates[0] if self.candidates else None
        hands: dict[int, tuple[str, ...]] | None = None
        if seed is not None:
            order = _order(seed, turn)
            hands = {seat: tuple(order[3 * seat: 3 * seat + 3]) for seat in turn.opponents}
        report("guess", pot=turn.pot_number, replay=turn.replay, seed=seed,
               known={str(seat): list(cards) for seat, cards in (hands or {}).items()})
        if hands is None:  # an honest bot's play: call, and see the cards as soon as it may
            return Show() if turn.can_show else Bet(turn.min_bet)
        if all(hand_value(turn.cards) > hand_value(cards) for cards in hands.values()):
            return Show() if turn.can_show else Bet(turn.max_bet)
        return Fold()


if __name__ == "__main__":
    run(TypedSeedFinder())
