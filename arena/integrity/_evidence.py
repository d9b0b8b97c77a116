"""What one session shows of each pair of its bots: decisions at a known hindsight equity, and chip flows.

Theory of operation: the arena knows every hand, so a decision's hindsight equity is exact: at the
moment a seat acts, its hand is the best of the hands still in the deal (it would win if they were
compared now), or it is not. Chips move between
two bots in a pot when one loses what the other wins; a loser's chips are shared among the pot's
winners in proportion to their gains. Nothing here reads a clock, a file or a random number.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from ..engine import Acted, Amount, Dealt, HandEvaluator, PotSplit, PotWon, SessionStarted


@dataclass(frozen=True)
class Decision:
    """One seat's own betting decision (the arena's fold for a fault is none)."""

    index: int
    """The decision's event index in the session's history (its line is index + 1)."""
    seat: int
    folded: bool
    winning: bool
    """The seat's hand was the best (or tied best) of the hands still in the deal."""
    strength: int
    """The seat's hand's strength (the profile's `HandValue.strength`)."""
    in_deal: tuple[int, ...]
    """Seats still in the deal, the acting one included."""
    facing: bool
    """Another seat had paid in this deal before the decision (an honest bot's fold hangs on it)."""
    price: Fraction
    """The last payment in the deal before the decision (what staying in is likely to cost)."""
    raised: bool = False
    """The seat paid more than staying in cost (a raise, or a bet above the last payment or the opening stake)."""
    deal: int = 0
    """The event index of the deal's cards (its `Dealt` event): which of the session's deals it is in."""


@dataclass(frozen=True)
class Pot:
    """One resolved pot of a deal: who held what and who paid whom."""

    index: int
    """The event index of the pot's result."""
    pot: int
    hands: dict[int, tuple[str, ...]]
    """The cards each seat was dealt for this pot's first deal (a svara's replays aside), as text."""
    strengths: dict[int, int]
    """The strength of each seat's first-deal hand."""
    stronger: dict[tuple[int, int], bool]
    """For seats a != b both dealt in: whether a's hand beats b's."""
    flow: dict[tuple[int, int], float]
    """Chips seat a lost to seat b in this pot (a pair missing: none)."""


@dataclass(frozen=True)
class SessionEvidence:
    """A session's decisions and pots, by seat; `bots` names the seats."""

    session: str
    block: str
    bots: tuple[str, ...]
    decisions: tuple[Decision, ...]
    pots: tuple[Pot, ...]


def session_evidence(events: Sequence[object], evaluator: HandEvaluator, *, session: str,
                     block: str) -> SessionEvidence:
    """Walk a whole session's engine events and keep what the collusion measures read."""
    start = events[0]
    assert isinstance(start, SessionStarted)
    bots = tuple(start.bots)
    opening = Fraction(start.opening_stake)
    decisions: list[Decision] = []
    pots: list[Pot] = []
    values: dict[int, int] = {}
    in_deal: list[int] = []
    deal = 0
    paid: set[int] = set()
    price = Fraction(0)
    first_hands: dict[int, tuple[str, ...]] = {}
    first_values: dict[int, int] = {}
    before: tuple[Amount, ...] = tuple(0 for _ in bots)
    for index, event in enumerate(events):
        if isinstance(event, Dealt):
            values = {seat: evaluator.value(hand).strength for seat, hand in event.hands.items()}
            deal = index
            in_deal = sorted(event.hands)
            paid = set()
            price = Fraction(0)
            if event.replay == 0:
                first_hands = {seat: tuple(str(card) for card in hand) for seat, hand in event.hands.items()}
                first_values = dict(values)
        elif isinstance(event, Acted):
            if event.fault is None and event.seat in values:
                best = max(values[seat] for seat in in_deal)
                raised = event.kind == "raise" or (event.kind == "bet" and event.amount > (price or opening))
                decisions.append(Decision(index, event.seat, event.kind == "fold", values[event.seat] == best,
                                          values[event.seat], tuple(in_deal), bool(paid - {event.seat}), price,
                                          raised, deal))
            if event.amount:
                paid.add(event.seat)
                price = Fraction(event.amount)
            if event.kind == "fold" and event.seat in in_deal:
                in_deal.remove(event.seat)
        elif isinstance(event, PotWon | PotSplit):
            after = tuple(event.balances)
            deltas = [Fraction(a) - Fraction(b) for a, b in zip(after, before, strict=True)]
            gained = sum(d for d in deltas if d > 0)
            flow = {(a, b): float(-deltas[a] * deltas[b] / gained) for a in range(len(bots))
                    for b in range(len(bots)) if deltas[a] < 0 < deltas[b]}
            stronger = {(a, b): first_values[a] > first_values[b]
                        for a in first_values for b in first_values if a != b}
            pots.append(Pot(index, event.pot, first_hands, dict(first_values), stronger, flow))
            before = after
    return SessionEvidence(session, block, bots, tuple(decisions), tuple(pots))
