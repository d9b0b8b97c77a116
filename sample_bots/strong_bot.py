"""A bot that estimates its chance to win and bets by pot odds.

Each turn it works out its equity: the share of the pot its hand is worth against the players
still in, counting a tie for the best hand (a svara) as a share among the tied. Against one
opponent it enumerates every hand the unseen cards can make (5,456 from the 33 unseen of 36);
against more it samples deals of the unseen cards. Hands are valued by the session's profile and
options (its deck, wild cards and two- or three-card hands), as the greeting names them.
Opponents' hands are weighted by how they bet in this deal: each payment after their first, and
each raise, makes strong hands likelier, by how much depending on
the hands that opponent has revealed at showdowns so far (a player who only shows strong hands
is believed; a calling station that shows anything is not).

Then, with P the pot and c the least payment now:

- equity of 80 % or more: raise to the maximum bet, at most twice a deal;
- heads-up with a previous bet: show when equity * (P + c) > c (showing pays), else fold;
- nobody has paid yet in the deal: pay the opening stake (cheap, and it may win the antes);
- otherwise pay the least allowed when equity * (P + c) >= 1.5 * c (a margin for the betting
  still to come), else fold.

A svara offer is accepted when the bot's fair share of the pot after its entry, split evenly
among everyone playing the replay, is at least the price. With everybody re-dealt at random that
is exactly break-even, so this bot accepts every offer: it expects to outplay the field.

Decisions are deterministic given the turn and the showdowns seen (the sampler is seeded from
the session, pot, replay and action count), and take a few milliseconds.

    SEKA_BOT_ADDRESS=unix:/tmp/strong.sock python sample_bots/strong_bot.py
"""

from __future__ import annotations

import random
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from fractions import Fraction
from functools import cache
from itertools import combinations

from arena.engine import GEORGIAN_EVALUATOR, Card
from arena.sdk import Action, Amount, Bot, Fold, HandEvaluator, Hello, Showdown, SvaraOffer, Turn, run

_SAMPLES = 1500  # deals sampled against two or more opponents
_RAISE_EQUITY = 0.8
_MAX_RAISES = 2
_CALL_MARGIN = 1.5
_PRIOR_PERCENTILE = 0.8  # what the bot assumes an opponent shows before it has seen any hand
_PRIOR_WEIGHT = 2.0


@cache
def percentiles(evaluator: HandEvaluator) -> dict[int, float]:
    """For each hand strength, the share of all hands of the deck it beats (ties counted as half)."""
    strengths = sorted(evaluator.value(hand).strength for hand in combinations(evaluator.deck, evaluator.hand_size))
    total = len(strengths)
    return {strength: (bisect_left(strengths, strength) + bisect_right(strengths, strength)) / 2 / total
            for strength in set(strengths)}


def _betting(turn: Turn, opening_stake: Amount) -> dict[int, tuple[int, int]]:
    """Per seat, (payments after its first, raises) in this deal, capped so weights stay sane."""
    seen: dict[int, tuple[int, int]] = {}
    previous: Amount | None = None
    for action in turn.actions:
        if action.kind != "bet":
            continue
        raised = action.amount > (opening_stake if previous is None else previous)
        payments, raises = seen.get(action.seat, (0, 0))
        seen[action.seat] = (payments + 1, raises + raised)
        previous = action.amount
    return {seat: (min(max(payments - 1, 0), 4), min(raises, 3)) for seat, (payments, raises) in seen.items()}


def _weight(percentile: float, betting: tuple[int, int], sharpness: float) -> float:
    # How likely an opponent with this hand was to bet as it did: each payment after its first
    # and each raise (counted twice) favours strong hands, the more so the sharper the opponent.
    payments, raises = betting
    return (0.05 + percentile) ** (sharpness * (payments + 2 * raises))


def equity(cards: Sequence[str], opponents: Sequence[tuple[tuple[int, int], float]], rng: random.Random,
           samples: int = _SAMPLES, evaluator: HandEvaluator = GEORGIAN_EVALUATOR) -> float:
    """The expected share of the pot for `cards` against opponents given as (betting, sharpness)."""
    value, size, percentile = evaluator.value, evaluator.hand_size, percentiles(evaluator)
    mine = [Card.parse(card) for card in cards]
    my_strength = value(mine).strength
    unseen = [card for card in evaluator.deck if card not in mine]
    if not opponents:
        return 1.0
    if len(opponents) == 1:
        betting, sharpness = opponents[0]
        won = weight_sum = 0.0
        for hand in combinations(unseen, size):
            strength = value(hand).strength
            weight = _weight(percentile[strength], betting, sharpness)
            weight_sum += weight
            if my_strength > strength:
                won += weight
            elif my_strength == strength:
                won += weight / 2
        return won / weight_sum
    won = weight_sum = 0.0
    for _ in range(samples):
        drawn = rng.sample(unseen, size * len(opponents))
        weight = 1.0
        best = tied = 0
        for index, (betting, sharpness) in enumerate(opponents):
            strength = value(drawn[size * index : size * index + size]).strength
            weight *= _weight(percentile[strength], betting, sharpness)
            if strength > best:
                best, tied = strength, 1
            elif strength == best:
                tied += 1
        weight_sum += weight
        if my_strength > best:
            won += weight
        elif my_strength == best:
            won += weight / (tied + 1)
    return won / weight_sum


class StrongBot(Bot):
    name = "strong"
    version = "1.0"

    def __init__(self) -> None:
        self.opening_stake: Amount = 1
        self.evaluator: HandEvaluator = GEORGIAN_EVALUATOR
        """The session's hand values."""
        self.shown: dict[tuple[str, int], list[float]] = {}
        """Percentiles of the hands each opponent revealed, by (session, seat)."""

    def on_hello(self, hello: Hello) -> None:
        self.opening_stake = hello.table.opening_stake
        self.evaluator = hello.hand_evaluator()
        self.shown.clear()  # a session's showdowns tell nothing of the next session's opponents

    def on_showdown(self, showdown: Showdown) -> None:
        table = percentiles(self.evaluator)
        for hand in showdown.hands:
            percentile = table[self.evaluator.value([Card.parse(card) for card in hand.cards]).strength]
            self.shown.setdefault((showdown.session_id, hand.seat), []).append(percentile)

    def sharpness(self, session_id: str, seat: int) -> float:
        """How much an opponent's betting says about its hand, learnt from the hands it showed.

        A player who only ever shows strong hands bets only with them (sharpness up to 1.5); one
        who shows hands of every kind, like a calling station, tells nothing by betting (0).
        Before any showdown the bot assumes a fairly tight player.
        """
        shown = self.shown.get((session_id, seat), [])
        typical = (sum(shown) + _PRIOR_PERCENTILE * _PRIOR_WEIGHT) / (len(shown) + _PRIOR_WEIGHT)
        return min(max((typical - 0.5) / 0.3, 0.0), 1.5)

    def act(self, turn: Turn) -> Action:
        if turn.cards_unseen:
            return turn.stay_in()  # dark play: look, since the equity needs the cards
        betting = _betting(turn, self.opening_stake)
        rng = random.Random(f"{turn.session_id}/{turn.pot_number}/{turn.replay}/{turn.actions_count}")
        opponents = [(betting.get(seat, (0, 0)), self.sharpness(turn.session_id, seat)) for seat in turn.opponents]
        chance = equity(turn.cards, opponents, rng, evaluator=self.evaluator)
        legal = turn.legal
        # The least payment that stays in: a bet of min_bet, or (stake profiles) a support.
        pot, cost = Fraction(turn.pot), Fraction(legal.min_bet if legal.can_bet else legal.support_amount or 0)
        my_raises = betting.get(turn.seat, (0, 0))[1]
        can_raise = legal.min_bet < legal.max_bet if legal.can_bet else legal.raise_max is not None
        if chance >= _RAISE_EQUITY and my_raises < _MAX_RAISES and can_raise:
            return turn.raise_most()
        ending = turn.compare()  # a show, or an open or a call in the stake profiles
        if ending is not None:
            price = Fraction(legal.show_amount or legal.open_amount or legal.call_amount or 0)
            return ending if chance * (pot + price) > price else Fold()
        if turn.previous_bet is None or chance * (pot + cost) >= _CALL_MARGIN * cost:
            return turn.stay_in()  # opening is cheap and may win the antes outright
        return Fold()

    def svara(self, offer: SvaraOffer) -> bool:
        entrants = len(offer.entrants) + 1  # the earlier entrants and this bot
        pot_after = offer.frozen_pot + offer.price * entrants
        return pot_after / (len(offer.tied) + entrants) >= offer.price


if __name__ == "__main__":
    run(StrongBot())
