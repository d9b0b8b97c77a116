"""Cards as small integers with names, and the decks the profiles use."""

from __future__ import annotations

RANKS = "6789TJQKA"
"""Rank letters from lowest to highest; `T` is the ten."""
SUITS = "cdhs"
"""Suit letters: clubs, diamonds, hearts, spades. Suits have no order in Seka."""


class Card(int):
    """One card, numbered `rank_index * 4 + suit_index` so that a card is also a table index.

    >>> Card.parse("Th"), Card.parse("Th").rank, Card.parse("As").rank_index
    (Card('Th'), 'T', 8)
    """

    __slots__ = ()

    @classmethod
    def parse(cls, text: str) -> Card:
        """The card named by two ASCII characters, rank then suit (`"Th"`, `"6c"`)."""
        if not isinstance(text, str) or len(text) != 2 or text[0] not in RANKS or text[1] not in SUITS:
            raise ValueError(f"a card is a rank of {RANKS!r} and a suit of {SUITS!r}, like 'Th', not {text!r}")
        return ALL_CARDS[RANKS.index(text[0]) * 4 + SUITS.index(text[1])]

    @property
    def rank_index(self) -> int:
        return int(self) >> 2

    @property
    def suit_index(self) -> int:
        return int(self) & 3

    @property
    def rank(self) -> str:
        return RANKS[int(self) >> 2]

    @property
    def suit(self) -> str:
        return SUITS[int(self) & 3]

    def __str__(self) -> str:
        return RANKS[int(self) >> 2] + SUITS[int(self) & 3]

    def __repr__(self) -> str:
        return f"Card({str(self)!r})"


ALL_CARDS: tuple[Card, ...] = tuple(Card(number) for number in range(len(RANKS) * len(SUITS)))
"""The 36 cards, six to ace, each suit; index = card number."""

DECK_36: tuple[Card, ...] = ALL_CARDS
"""The Georgian pack: 6 through A in four suits."""

DECK_32: tuple[Card, ...] = tuple(card for card in ALL_CARDS if card.rank != "6")
"""7 through A in four suits: Georgian `deck: 32` and `svara32`."""

DECK_24: tuple[Card, ...] = tuple(card for card in ALL_CARDS if card.rank in "6789TA")
"""Trynka (`classic` `deck: 24`): A, T, 9, 8, 7, 6 in four suits, no court cards."""

DECK_21: tuple[Card, ...] = tuple(card for card in ALL_CARDS if card.rank in "TJQKA" or str(card) == "9c")
"""`seka21`: T J Q K A in four suits and the 9 of clubs, its wild card."""


def parse_cards(text: str) -> tuple[Card, ...]:
    """Cards written one after another, with or without spaces.

    >>> parse_cards("Td 8d 6d")
    (Card('Td'), Card('8d'), Card('6d'))
    """
    compact = text.replace(" ", "")
    if len(compact) % 2:
        raise ValueError(f"cards are two characters each: {text!r}")
    return tuple(Card.parse(compact[i : i + 2]) for i in range(0, len(compact), 2))
