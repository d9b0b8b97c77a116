"""arena/engine/_cards.py: the 36-card pack (section 02: six through ace), card names and numbers."""

from __future__ import annotations

import pytest

from arena.engine import ALL_CARDS, DECK_36, RANKS, SUITS, Card, parse_cards


def test_the_georgian_pack_is_36_cards_six_through_ace_in_four_suits() -> None:
    assert RANKS == "6789TJQKA"
    assert sorted(SUITS) == ["c", "d", "h", "s"]
    assert len(DECK_36) == 36 == len(set(DECK_36))
    assert {str(card) for card in DECK_36} == {rank + suit for rank in "6789TJQKA" for suit in "cdhs"}
    # No twos to fives in this profile (section 02 "Use 36 cards, 6 through A").
    for missing in ("2c", "3d", "4h", "5s"):
        with pytest.raises(ValueError):
            Card.parse(missing)


def test_a_card_number_is_rank_index_times_four_plus_suit_index() -> None:
    for number, card in enumerate(ALL_CARDS):
        assert card == number and isinstance(card, Card)
        assert card.rank_index * 4 + card.suit_index == number
        assert card.rank == RANKS[card.rank_index] and card.suit == SUITS[card.suit_index]
        assert Card.parse(str(card)) is card
        assert repr(card) == f"Card({str(card)!r})"


def test_card_properties_for_named_cards() -> None:
    ten = Card.parse("Th")
    assert (str(ten), ten.rank, ten.suit, ten.rank_index) == ("Th", "T", "h", 4)
    ace = Card.parse("As")
    assert (ace.rank, ace.suit, ace.rank_index) == ("A", "s", 8)
    assert Card.parse("6c") == 0 and Card.parse("As") == 35


@pytest.mark.parametrize("text", ["", "A", "Ahh", "ah", "AH", "1h", "10h", "Ax", 10, None, b"Ah"])
def test_bad_card_names_are_refused(text: object) -> None:
    with pytest.raises(ValueError):
        Card.parse(text)  # type: ignore[arg-type]


def test_parse_cards_reads_with_or_without_spaces() -> None:
    assert parse_cards("Td 8d 6d") == parse_cards("Td8d6d") == (Card.parse("Td"), Card.parse("8d"), Card.parse("6d"))
    assert parse_cards("") == ()
    with pytest.raises(ValueError):
        parse_cards("Td 8")
    with pytest.raises(ValueError):
        parse_cards("Td 1d")
