"""Hand strength: ordered, hashable hand values read from a table built once per profile."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import combinations

from ._cards import DECK_36, RANKS, Card, parse_cards

_CARD_POINTS = (6, 7, 8, 9, 10, 10, 10, 10, 11)  # by rank index: 6 7 8 9 T J Q K A
_ACE = RANKS.index("A")
_SEKA_BASE = 1000  # above every total any profile can reach


@dataclass(frozen=True, order=True)
class HandValue:
    """What a three-card hand is worth; values compare by `strength` alone, so equal totals tie.

    >>> GEORGIAN_EVALUATOR.value_of_text("6c 6d 6h") > GEORGIAN_EVALUATOR.value_of_text("Ah Kh Qh")
    True
    """

    strength: int
    """Greater is stronger; equal strength is a tie (svara)."""
    label: str = field(compare=False)
    """How people say it: `"24"`, `"22"` (two aces), `"seka A"`."""

    def __str__(self) -> str:
        return self.label


def georgian_value(cards: Sequence[Card]) -> HandValue:
    """The Georgian (Tamashebi) value of three cards, computed from the rule text.

    A seka (three of a rank) beats every total, ranked A K Q J T 9 8 7 6; two aces are 22 whatever
    their suits; otherwise the greatest sum of one suit, where a lone card counts.

    >>> [georgian_value(parse_cards(h)).label for h in ("AhKh7c", "AdAs9c", "Kh9d7s", "7c7d7s")]
    ['21', '22', '10', 'seka 7']
    """
    ranks = [card.rank_index for card in cards]
    if ranks[0] == ranks[1] == ranks[2]:
        return HandValue(_SEKA_BASE + ranks[0], f"seka {RANKS[ranks[0]]}")
    if ranks.count(_ACE) == 2:
        return HandValue(22, "22")
    by_suit = [0, 0, 0, 0]
    for card in cards:
        by_suit[card.suit_index] += _CARD_POINTS[card.rank_index]
    best = max(by_suit)
    return HandValue(best, str(best))


class HandEvaluator:
    """Every hand of a deck valued once, then looked up by card numbers in any order.

    The table is a flat list indexed by `(a * 36 + b) * 36 + c`, so a lookup needs no sorting.
    """

    __slots__ = ("_table", "deck", "hand_count")

    def __init__(self, deck: Sequence[Card], value: Callable[[Sequence[Card]], HandValue]) -> None:
        self.deck: tuple[Card, ...] = tuple(deck)
        table: list[HandValue | None] = [None] * (36 * 36 * 36)
        hand_count = 0
        for hand in combinations(self.deck, 3):
            hand_value = value(hand)
            hand_count += 1
            a, b, c = hand
            for x, y, z in ((a, b, c), (a, c, b), (b, a, c), (b, c, a), (c, a, b), (c, b, a)):
                table[(x * 36 + y) * 36 + z] = hand_value
        self._table = table
        self.hand_count = hand_count
        """How many distinct hands the deck holds (7,140 for 36 cards)."""

    def value(self, cards: Sequence[Card]) -> HandValue:
        """The value of three distinct cards of this deck."""
        a, b, c = cards
        hand_value = self._table[(a * 36 + b) * 36 + c]
        if hand_value is None:
            raise ValueError(f"not three distinct cards of this deck: {' '.join(map(str, cards))}")
        return hand_value

    def value_of_text(self, text: str) -> HandValue:
        """The value of cards written as text, for examples and tests."""
        return self.value(parse_cards(text))


GEORGIAN_EVALUATOR = HandEvaluator(DECK_36, georgian_value)
"""The lookup for the Georgian profile, built at import (7,140 hands, a few milliseconds)."""
