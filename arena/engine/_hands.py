"""Hand strength: ordered, hashable hand values read from a table built once per profile.

Each profile's value function below is written from the rule text (docs/rules.md, PROFILES.md);
`hand_evaluator` runs it once over every hand of the profile's deck and keeps the results in a
flat table, so that the engine and the bots value a hand by one list index.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from itertools import combinations, permutations

from ._cards import DECK_21, DECK_24, DECK_32, DECK_36, RANKS, Card, parse_cards
from ._errors import RulesError

_CARD_POINTS = (6, 7, 8, 9, 10, 10, 10, 10, 11)  # by rank index: 6 7 8 9 T J Q K A
_SIX, _SEVEN, _ACE = RANKS.index("6"), RANKS.index("7"), RANKS.index("A")
_WILD_POINTS = 11  # a wild card counted in a suit or a rank group
_SEKA_BASE = 1000  # above every total any profile can reach
_SPAN = len(RANKS) * 4  # card numbers run 0..35 in every deck, so tables are indexed by them

_CLUBS_7 = Card.parse("7c")
_SPADES_7 = Card.parse("7s")
_CLUBS_9 = Card.parse("9c")


@dataclass(frozen=True, order=True)
class HandValue:
    """What a hand is worth; values compare by `strength` alone, so equal totals tie.

    >>> GEORGIAN_EVALUATOR.value_of_text("6c 6d 6h") > GEORGIAN_EVALUATOR.value_of_text("Ah Kh Qh")
    True
    """

    strength: int
    """Greater is stronger; equal strength is a tie (svara)."""
    label: str = field(compare=False)
    """How people say it: `"24"`, `"22"` (two aces), `"seka A"`."""

    def __str__(self) -> str:
        return self.label


def _total(points: int) -> HandValue:
    return HandValue(points, str(points))


def _seka(rank_index: int) -> HandValue:
    return HandValue(_SEKA_BASE + rank_index, f"seka {RANKS[rank_index]}")


def _best_suit(naturals: Sequence[Card], wilds: int) -> int:
    """The greatest sum of one suit, a lone card counting, every wild card joining it as 11."""
    by_suit = [0, 0, 0, 0]
    for card in naturals:
        by_suit[card.suit_index] += _CARD_POINTS[card.rank_index]
    return max(by_suit) + _WILD_POINTS * wilds


def georgian_value(cards: Sequence[Card]) -> HandValue:
    """The Georgian (Tamashebi) value of three cards, computed from the rule text.

    A seka (three of a rank) beats every total, ranked A K Q J T 9 8 7 6; two aces are 22 whatever
    their suits; otherwise the greatest sum of one suit, where a lone card counts.

    >>> [georgian_value(parse_cards(h)).label for h in ("AhKh7c", "AdAs9c", "Kh9d7s", "7c7d7s")]
    ['21', '22', '10', 'seka 7']
    """
    ranks = [card.rank_index for card in cards]
    if ranks[0] == ranks[1] == ranks[2]:
        return _seka(ranks[0])
    if ranks.count(_ACE) == 2:
        return _total(22)
    return _total(_best_suit(cards, 0))


def classic_value(cards: Sequence[Card], wild: Collection[Card] = (_CLUBS_7,)) -> HandValue:
    """The `classic` value (seed 003): the best of one suit, three of a kind by points, two aces.

    A wild card counts 11 in any suit or is the missing card of three of a kind; three of a kind
    is worth three times its card's points (6-6-6 = 18, A-A-A = 33) and ranks among the totals.
    Two-card hands have no three of a kind.

    >>> [classic_value(parse_cards(h)).label for h in ("Th9h7c", "8d8s7c", "7c7h7d", "AhKh7c")]
    ['30', '24', '21', '32']
    """
    naturals = [card for card in cards if card not in wild]
    wilds = len(cards) - len(naturals)
    best = _best_suit(naturals, wilds)
    if sum(card.rank_index == _ACE for card in naturals) >= 2:
        best = max(best, 22)
    triple = _triple_rank(cards, naturals)
    if triple is not None:
        best = max(best, 3 * _CARD_POINTS[triple])
    return _total(best)


def _triple_rank(cards: Sequence[Card], naturals: Sequence[Card]) -> int | None:
    """The rank of three of a kind the natural cards make with the wild ones, if any."""
    if len(cards) != 3 or not naturals or len({card.rank_index for card in naturals}) != 1:
        return None
    return naturals[0].rank_index


def seka36_value(cards: Sequence[Card]) -> HandValue:
    """The `seka36` value (seed 004): `classic` with the 7♣ wild, but 6-6-6 is 34, the top hand.

    >>> [seka36_value(parse_cards(h)).label for h in ("AsKs9s", "KhKdQs", "7cAhKh", "7h7d7s", "7c6h6d")]
    ['30', '10', '32', '21', '34']
    """
    naturals = [card for card in cards if card != _CLUBS_7]
    if _triple_rank(cards, naturals) == _SIX:
        return _total(34)
    return classic_value(cards)


def svara32_value(cards: Sequence[Card]) -> HandValue:
    """The `svara32` value (seed 004): the 7♣ is worth 11 and joins a suit or a rank group.

    With a pair the wild adds 11 to it; two sevens (the wild counting as a seven) are 23 and
    7-7-7 is 34, the top hand; two aces are 22; other three of a kind count by points; other
    mixed-suit pairs do not add.

    >>> [svara32_value(parse_cards(h)).label for h in ("KhKdQs", "7c8c8d", "7cAhKh", "7cAhAd", "7h7dKs")]
    ['10', '27', '32', '33', '23']
    """
    naturals = [card for card in cards if card != _CLUBS_7]
    wilds = len(cards) - len(naturals)
    sevens = sum(card.rank_index == _SEVEN for card in naturals) + wilds
    if sevens == 3:
        return _total(34)
    best = _best_suit(naturals, wilds)
    if sevens == 2:
        best = max(best, 23)
    ranks = [card.rank_index for card in naturals]
    for rank in set(ranks):
        held = ranks.count(rank)
        if rank == _ACE and held >= 2:
            best = max(best, 22)
        if held == 3 or (held == 2 and wilds):
            best = max(best, held * _CARD_POINTS[rank] + _WILD_POINTS * wilds)
    return _total(best)


def seka21_value(cards: Sequence[Card]) -> HandValue:
    """The `seka21` value (seed 004): 21 cards, the 9♣ standing for any natural card.

    The best of one suit and of any two cards of one rank (K♥K♦ = 20, A-A = 22); three of a rank
    is a seka above every total, T < J < Q < K < A. The wild may copy a card already held.

    >>> [seka21_value(parse_cards(h)).label for h in ("KhKdQs", "9cAhKh", "9cKhKd", "AhAdAs")]
    ['20', '32', 'seka K', 'seka A']
    """
    naturals = [card for card in cards if card != _CLUBS_9]
    wilds = len(cards) - len(naturals)
    ranks = [card.rank_index for card in naturals]
    if len(set(ranks)) == 1 and len(ranks) + wilds == 3:
        return _seka(ranks[0])
    # The wild as the ace of the best suit; copying a held card into a pair never gives more.
    best = _best_suit(naturals, wilds)
    for rank in set(ranks):
        if ranks.count(rank) == 2:
            best = max(best, 2 * _CARD_POINTS[rank])
    return _total(best)


class HandEvaluator:
    """Every three-card hand of a deck valued once, then looked up by card numbers in any order.

    The table is a flat list indexed by `(a * 36 + b) * 36 + c`, so a lookup needs no sorting.
    """

    __slots__ = ("_table", "deck", "hand_count")

    hand_size = 3
    """Cards dealt to each seat."""

    def __init__(self, deck: Sequence[Card], value: Callable[[Sequence[Card]], HandValue]) -> None:
        self.deck: tuple[Card, ...] = tuple(deck)
        table: list[HandValue | None] = [None] * (_SPAN**self.hand_size)
        hand_count = 0
        for hand in combinations(self.deck, self.hand_size):
            hand_value = value(hand)
            hand_count += 1
            for order in permutations(hand):
                index = 0
                for card in order:
                    index = index * _SPAN + card
                table[index] = hand_value
        self._table = table
        self.hand_count = hand_count
        """How many distinct hands the deck holds (7,140 for three of 36 cards)."""

    def value(self, cards: Sequence[Card]) -> HandValue:
        """The value of three distinct cards of this deck."""
        a, b, c = cards
        hand_value = self._table[(a * _SPAN + b) * _SPAN + c]
        if hand_value is None:
            raise ValueError(f"not three distinct cards of this deck: {' '.join(map(str, cards))}")
        return hand_value

    def value_of_text(self, text: str) -> HandValue:
        """The value of cards written as text, for examples and tests."""
        return self.value(parse_cards(text))

    def values(self) -> dict[HandValue, int]:
        """How many hands of the deck have each value, weakest first: the profile's value table."""
        counts: dict[HandValue, int] = {}
        for hand in combinations(self.deck, self.hand_size):
            hand_value = self.value(hand)
            counts[hand_value] = counts.get(hand_value, 0) + 1
        return dict(sorted(counts.items()))


class TwoCardEvaluator(HandEvaluator):
    """The same lookup for two-card hands (`classic` `cards: 2`), indexed by `a * 36 + b`."""

    __slots__ = ()

    hand_size = 2

    def value(self, cards: Sequence[Card]) -> HandValue:
        """The value of two distinct cards of this deck."""
        a, b = cards
        hand_value = self._table[a * _SPAN + b]
        if hand_value is None:
            raise ValueError(f"not two distinct cards of this deck: {' '.join(map(str, cards))}")
        return hand_value


GEORGIAN_EVALUATOR = HandEvaluator(DECK_36, georgian_value)
"""The lookup for the Georgian profile, built at import (7,140 hands, a few milliseconds)."""

HAND_OPTIONS: Mapping[str, Mapping[str, tuple[str | int, ...]]] = {
    "georgian": {"deck": (36, 32)},
    "classic": {"wild": ("7c", "black7", "none"), "cards": (3, 2), "deck": (36, 24)},
    "seka36": {},
    "svara32": {},
    "seka21": {},
}
"""The options that change each profile's hand values, each with its values, the default first."""

_DECKS = {36: DECK_36, 32: DECK_32, 24: DECK_24}
_WILD = {"7c": frozenset({_CLUBS_7}), "black7": frozenset({_CLUBS_7, _SPADES_7}), "none": frozenset[Card]()}


def hand_evaluator(profile: str, *, wild: str | None = None, cards: int | None = None,
                   deck: int | None = None) -> HandEvaluator:
    """The lookup of `profile` with these hand options (None = the default), built once.

    >>> hand_evaluator("classic", wild="black7").value_of_text("7c 7s Ah").label
    '33'
    >>> hand_evaluator("classic", cards=2).value_of_text("Ad As").label
    '22'
    >>> hand_evaluator("seka21", deck=36)
    Traceback (most recent call last):
    ...
    arena.engine.RulesError: profile 'seka21' has no hand option 'deck'
    """
    try:
        known = HAND_OPTIONS[profile]
    except (KeyError, TypeError):
        raise RulesError(f"unknown profile {profile!r}; known: {', '.join(sorted(HAND_OPTIONS))}") from None
    chosen: dict[str, str | int] = {}
    for name, given in (("wild", wild), ("cards", cards), ("deck", deck)):
        if given is None:
            continue
        if name not in known:
            raise RulesError(f"profile {profile!r} has no hand option {name!r}")
        if isinstance(given, bool) or given not in known[name]:
            allowed = ", ".join(repr(value) for value in known[name])
            raise RulesError(f"{name} of profile {profile!r} is one of {allowed}, not {given!r}")
        chosen[name] = given
    return _build(profile, *(chosen.get(name, values[0]) for name, values in known.items()))


@cache
def _build(profile: str, *options: str | int) -> HandEvaluator:
    """One evaluator per profile and option values, in the order of HAND_OPTIONS."""
    if profile == "georgian":
        (deck,) = options
        return GEORGIAN_EVALUATOR if deck == 36 else HandEvaluator(_DECKS[int(deck)], georgian_value)
    if profile == "classic":
        wild, hand_size, deck = options
        wild_cards = _WILD[str(wild)]
        evaluator = HandEvaluator if hand_size == 3 else TwoCardEvaluator
        return evaluator(_DECKS[int(deck)], lambda hand: classic_value(hand, wild_cards))
    if profile == "seka36":
        return HandEvaluator(DECK_36, seka36_value)
    if profile == "svara32":
        return HandEvaluator(DECK_32, svara32_value)
    return HandEvaluator(DECK_21, seka21_value)
