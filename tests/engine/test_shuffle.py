"""arena/engine/_shuffle.py: deals derived from the session seed, the first-dealer draw, stacked decks.

The seeded derivation is re-implemented here from the module's "theory of operation" text, so a
change of algorithm (which would break the replay of every recorded session) fails these tests.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterator, Sequence

import pytest

import arena.engine._shuffle as shuffle_module
from arena.engine import (
    DECK_36,
    GEORGIAN,
    PROFILE_SPECS,
    Card,
    Dealt,
    SessionState,
    deck_order,
    draw_first_dealer,
    parse_cards,
    profile,
    seeded_shuffler,
    stacked_shuffler,
)

from ._support import deck_text


def _stream(material: bytes) -> Iterator[int]:
    # SHA-256 in counter mode: block k = SHA-256(material || k as 8 big-endian bytes),
    # read as 64-bit big-endian words.
    block = 0
    while True:
        digest = hashlib.sha256(material + block.to_bytes(8, "big")).digest()
        for start in (0, 8, 16, 24):
            yield int.from_bytes(digest[start : start + 8], "big")
        block += 1


def _below(words: Iterator[int], bound: int) -> int:
    # Rejection sampling: words in the top partial bucket are thrown away.
    while True:
        word = next(words)
        if word < (2**64 // bound) * bound:
            return word % bound


def _documented_order(seed: str, pot: int, replay: int, deck: Sequence[Card] = DECK_36) -> list[str]:
    cards = [str(card) for card in deck]
    words = _stream(f"seka-deal|{seed}|{pot}|{replay}".encode())
    for position in range(len(cards) - 1, 0, -1):  # Fisher-Yates from the last position down
        other = _below(words, position + 1)
        cards[position], cards[other] = cards[other], cards[position]
    return cards


@pytest.mark.parametrize(("seed", "pot", "replay"), [("demo", 1, 0), ("demo", 1, 1), ("demo", 8, 0), ("", 3, 2),
                                                     ("tournament-7/round-2", 5, 0), ("ключ", 1, 0)])
def test_deck_order_follows_the_documented_derivation(seed: str, pot: int, replay: int) -> None:
    assert [str(card) for card in deck_order(seed, pot, replay, DECK_36)] == _documented_order(seed, pot, replay)


def _every_deck() -> dict[int, tuple[Card, ...]]:
    decks = [profile(name).deck for name in PROFILE_SPECS] + [profile("classic", {"deck": "24"}).deck]
    return {len(deck): deck for deck in decks}


@pytest.mark.parametrize("deck_size", sorted(_every_deck()))
def test_every_profile_deck_follows_the_documented_derivation(deck_size: int) -> None:
    deck = _every_deck()[deck_size]
    for number in range(30):
        seed = f"deck-{deck_size}-{number}"
        pot, replay = 1 + number % 8, number % 3
        assert [str(card) for card in deck_order(seed, pot, replay, deck)] == _documented_order(seed, pot, replay, deck)


def test_a_rejected_word_sends_the_deal_down_the_word_by_word_path(monkeypatch: pytest.MonkeyPatch) -> None:
    # A rejection is a 1-in-10^17 event, so the batched path's limit is lowered to force one at the fifth draw.
    counters, unpack, planned = shuffle_module._plan(36)
    draws = list(planned)
    position, bound, _ = draws[4]
    draws[4] = (position, bound, 0)
    monkeypatch.setattr(shuffle_module, "_plan", lambda size: (counters, unpack, tuple(draws)))
    taken: list[bytes] = []
    streamed = shuffle_module._streamed_deck_order
    monkeypatch.setattr(shuffle_module, "_streamed_deck_order",
                        lambda material, deck: taken.append(material) or streamed(material, deck))
    assert [str(card) for card in deck_order("reject", 2, 1, DECK_36)] == _documented_order("reject", 2, 1)
    assert taken == [b"seka-deal|reject|2|1"]


def test_deck_order_golden() -> None:
    # Pinned so that recorded histories stay replayable.
    assert deck_text(deck_order("demo", 1, 0, DECK_36)) == " ".join(_documented_order("demo", 1, 0))
    assert deck_text(deck_order("golden", 1, 0, DECK_36)[:12]) == "9s Jd Ac Qs Jh Jc Ks Tc 7h Th 7s 6s"


def test_deck_orders_are_permutations_and_depend_on_seed_pot_and_replay() -> None:
    orders = {}
    for seed in ("a", "b"):
        for pot in (1, 2):
            for replay in (0, 1):
                order = deck_order(seed, pot, replay, DECK_36)
                assert sorted(order) == sorted(DECK_36)
                assert order == deck_order(seed, pot, replay, DECK_36)
                orders[seed, pot, replay] = order
    assert len(set(orders.values())) == len(orders)


def test_deck_order_positions_are_close_to_uniform() -> None:
    # 3,600 seeds: each card should sit in position 0 about 100 times. The bound is wide
    # (about 5 standard deviations) so the test is not flaky; a biased shuffle that, say, never
    # moves the first card, or always draws from a few positions, still fails it.
    counts = Counter(deck_order(f"u{i}", 1, 0, DECK_36)[0] for i in range(3600))
    assert set(counts) == set(DECK_36)
    assert all(50 <= count <= 150 for count in counts.values()), counts


def test_first_dealer_is_drawn_from_the_seed() -> None:
    for seats in range(2, 7):
        for seed in ("x", "y", "z", "session-9"):
            expected = _below(_stream(f"seka-deal|{seed}|first-dealer".encode()), seats)
            assert draw_first_dealer(seed, seats) == expected
            state = SessionState(GEORGIAN, bots=["b"] * seats, seed=seed)
            assert state.dealer == expected == state.events[0].first_dealer


def test_first_dealer_reaches_every_seat() -> None:
    counts = Counter(draw_first_dealer(f"s{i}", 4) for i in range(800))
    assert set(counts) == {0, 1, 2, 3}
    assert all(130 <= count <= 270 for count in counts.values()), counts


def test_seeded_session_deals_seat_s_positions_3s_to_3s_plus_2() -> None:
    state = SessionState(GEORGIAN, bots=["a", "b", "c", "d", "e"], seed="positions")
    deal = state.events[1]
    assert isinstance(deal, Dealt)
    order = deck_order("positions", 1, 0, DECK_36)
    assert deal.hands == {seat: tuple(order[3 * seat : 3 * seat + 3]) for seat in range(5)}
    assert state.hands == deal.hands


def test_seeded_shuffler_is_deck_order() -> None:
    shuffle = seeded_shuffler("k", DECK_36)
    assert tuple(shuffle(3, 1)) == deck_order("k", 3, 1, DECK_36)


def test_stacked_shuffler_gives_chosen_seats_their_cards_and_others_unused_cards_in_fallback_order() -> None:
    fallback = seeded_shuffler("stack", DECK_36)
    chosen = {0: parse_cards("Ah As 7d"), 2: parse_cards("Td 8d 6d")}
    shuffle = stacked_shuffler({(1, 0): chosen}, fallback)
    order = list(shuffle(1, 0))
    assert sorted(order) == sorted(DECK_36)
    assert tuple(order[0:3]) == chosen[0] and tuple(order[6:9]) == chosen[2]
    used = set(chosen[0]) | set(chosen[2])
    rest = [card for card in fallback(1, 0) if card not in used]
    assert order[3:6] + order[9:] == rest
    # Deals not listed come from the fallback unchanged.
    assert list(shuffle(1, 1)) == list(fallback(1, 1))
    assert list(shuffle(2, 0)) == list(fallback(2, 0))


def test_stacked_shuffler_refuses_a_card_chosen_twice() -> None:
    shuffle = stacked_shuffler({(1, 0): {0: parse_cards("Ah As 7d"), 1: parse_cards("Ah Kd 6s")}},
                               seeded_shuffler("dup", DECK_36))
    with pytest.raises(ValueError):
        shuffle(1, 0)
