"""Deals derived from a key: anyone holding a session's seed can re-derive every deck order.

Theory of operation: the bytes `seka-deal|<seed>|<pot>|<replay>` seed a SHA-256 counter-mode stream
(block k is SHA-256(material || k as 8 big-endian bytes)), read as 64-bit big-endian words. A
Fisher-Yates shuffle from the last position down draws each index by rejection sampling, so every
order is equally likely. Seat s of a deal receives positions 3s, 3s+1, 3s+2 of the order, whoever
else is dealt in: a seat slot gets the same cards in every session that shares the seed, which is
what duplicate (mirrored) sessions need. The first dealer is drawn from the stream labelled
`first-dealer`. Nothing here reads a clock or a global random state.
"""

from __future__ import annotations

import functools
import hashlib
import struct
from collections.abc import Callable, Iterator, Mapping, Sequence

from ._cards import Card

Shuffler = Callable[[int, int], Sequence[Card]]
"""Gives the deck order of a deal from (pot number, replay number)."""

_WORD = 1 << 64


_FOUR_WORDS = struct.Struct(">4Q").unpack


def _words(material: bytes) -> Iterator[int]:
    block = 0
    while True:
        yield from _FOUR_WORDS(hashlib.sha256(material + block.to_bytes(8, "big")).digest())
        block += 1


def _uniform_below(words: Iterator[int], bound: int) -> int:
    limit = _WORD - _WORD % bound  # reject the top sliver so every result is equally likely
    while True:
        word = next(words)
        if word < limit:
            return word % bound


def deck_order(seed: str, pot: int, replay: int, deck: Sequence[Card]) -> tuple[Card, ...]:
    """The order of `deck` for one deal of a session.

    >>> from arena.engine import DECK_36
    >>> deck_order("demo", 1, 0, DECK_36) == deck_order("demo", 1, 0, DECK_36)
    True
    >>> deck_order("demo", 1, 0, DECK_36) != deck_order("demo", 1, 1, DECK_36)
    True
    """
    material = f"seka-deal|{seed}|{pot}|{replay}".encode()
    counters, unpack, draws = _plan(len(deck))
    # Every draw but a rejected one (a 1-in-10^17 event) takes one word: hash the blocks they need at once.
    stream = hashlib.sha256(material)
    blocks = []
    for counter in counters:
        block = stream.copy()
        block.update(counter)
        blocks.append(block.digest())
    cards = list(deck)
    for (position, bound, limit), word in zip(draws, unpack(b"".join(blocks)), strict=False):  # spare words last
        if word >= limit:
            return _streamed_deck_order(material, deck)
        other = word % bound
        cards[position], cards[other] = cards[other], cards[position]
    return tuple(cards)


def _streamed_deck_order(material: bytes, deck: Sequence[Card]) -> tuple[Card, ...]:
    """The derivation word by word, rejections included: `deck_order` without its one-word-a-draw shortcut."""
    cards = list(deck)
    words = _words(material)
    for position in range(len(cards) - 1, 0, -1):
        other = _uniform_below(words, position + 1)
        cards[position], cards[other] = cards[other], cards[position]
    return tuple(cards)


@functools.cache
def _plan(size: int) -> tuple[tuple[bytes, ...], Callable[[bytes], tuple[int, ...]], tuple[tuple[int, int, int], ...]]:
    """For a deck of `size` cards: the block counters its draws need, the unpacker of their words, and
    each draw of a Fisher-Yates shuffle from the last position down as (position, bound, rejection limit)."""
    blocks = (size - 1 + 3) // 4
    draws = tuple((position, position + 1, _WORD - _WORD % (position + 1)) for position in range(size - 1, 0, -1))
    return tuple(block.to_bytes(8, "big") for block in range(blocks)), struct.Struct(f">{4 * blocks}Q").unpack, draws


def draw_first_dealer(seed: str, seats: int) -> int:
    """The seat that deals the session's first pot."""
    return _uniform_below(_words(f"seka-deal|{seed}|first-dealer".encode()), seats)


def seeded_shuffler(seed: str, deck: Sequence[Card]) -> Shuffler:
    """A `Shuffler` for a session whose deals all come from `seed`."""
    fixed_deck = tuple(deck)
    return lambda pot, replay: deck_order(seed, pot, replay, fixed_deck)


def stacked_shuffler(stacked: Mapping[tuple[int, int], Mapping[int, Sequence[Card]]], fallback: Shuffler,
                     *, cards: int = 3) -> Shuffler:
    """A `Shuffler` that gives chosen seats chosen cards in chosen deals, for tests and scripted checks.

    `stacked` maps (pot, replay) to {seat: `cards` cards}; the other seats of that deal receive
    cards of `fallback`'s order that nobody was given. Deals not listed come from `fallback`.
    """

    def order(pot: int, replay: int) -> Sequence[Card]:
        base = list(fallback(pot, replay))
        chosen = stacked.get((pot, replay))
        if not chosen:
            return base
        fixed = [card for cards in chosen.values() for card in cards]
        if len(set(fixed)) != len(fixed) or not set(fixed) <= set(base):
            raise ValueError(f"stacked hands for pot {pot} replay {replay} repeat a card or leave the deck")
        rest = iter([card for card in base if card not in fixed])
        result: list[Card] = []
        for slot in range(len(base) // cards):
            result.extend(chosen[slot] if slot in chosen else [next(rest) for _ in range(cards)])
        result.extend(rest)
        return result

    return order
