"""arena/engine/_hands.py: the hand values of every profile and option set (PROFILES.md).

Every seed vector and decided value of PROFILES.md is checked, and for every profile and option
set the count of hands per value is compared with a brute-force valuation written here from the
rule text. It shares nothing with the engine: cards are strings, points come from a table here,
and wild cards are handled another way (the engine counts a wild as 11 in a suit or as the
missing card of a triple; here it is replaced by every card it could stand for, or, for
`svara32`, every group of cards that may count together is tried).
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Sequence
from math import comb
from pathlib import Path

import pytest

from arena.engine import (
    GEORGIAN_EVALUATOR,
    HAND_OPTIONS,
    HandEvaluator,
    RulesError,
    TwoCardEvaluator,
    hand_evaluator,
    parse_cards,
)

POINTS = {"6": 6, "7": 7, "8": 8, "9": 9, "T": 10, "J": 10, "Q": 10, "K": 10, "A": 11}
ORDER = "6789TJQKA"  # seka order only; suits have none
SUITS = "cdhs"

Key = tuple[int, int]
"""(0, total) for a total; (1, rank position) for a class above every total."""


def deck(ranks: str, extra: Sequence[str] = ()) -> list[str]:
    return [rank + suit for rank in ranks for suit in SUITS] + list(extra)


DECKS = {36: deck("6789TJQKA"), 32: deck("789TJQKA"), 24: deck("6789TA"), 21: deck("TJQKA", ["9c"])}


def suit_sums(hand: Sequence[str]) -> int:
    return max(sum(POINTS[card[0]] for card in hand if card[1] == suit) for suit in SUITS)


def georgian(hand: Sequence[str]) -> Key:
    ranks = [card[0] for card in hand]
    if len(set(ranks)) == 1:
        return (1, ORDER.index(ranks[0]))
    return (0, max(suit_sums(hand), 22 if ranks.count("A") == 2 else 0))


def natural_classic(hand: Sequence[str]) -> int:
    ranks = [card[0] for card in hand]
    best = max(suit_sums(hand), 22 if ranks.count("A") >= 2 else 0)
    if len(hand) == 3 and len(set(ranks)) == 1:
        best = max(best, 3 * POINTS[ranks[0]])
    return best


def natural_seka36(hand: Sequence[str]) -> int:
    return 34 if [card[0] for card in hand] == ["6", "6", "6"] else natural_classic(hand)


def natural_seka21(hand: Sequence[str]) -> Key:
    ranks = [card[0] for card in hand]
    if len(set(ranks)) == 1:
        return (1, ORDER.index(ranks[0]))
    pairs = [2 * POINTS[rank] for rank in ranks if ranks.count(rank) >= 2]
    return (0, max([suit_sums(hand), *pairs]))


def substituted(natural: Callable[[list[str]], int | Key], wild: set[str], stand_ins: list[str]) -> Callable[
        [Sequence[str]], Key]:
    """The best natural value over every card each wild card could stand for (copies allowed)."""
    def key(hand: Sequence[str]) -> Key:
        naturals = [card for card in hand if card not in wild]
        options = itertools.product(stand_ins, repeat=len(hand) - len(naturals))
        values = [natural(naturals + list(chosen)) for chosen in options]
        return max(value if isinstance(value, tuple) else (0, value) for value in values)
    return key


def svara32(hand: Sequence[str]) -> Key:
    """The best group that counts together: one suit, or a rank group (the 7♣ joins either, worth 11)."""
    best = 0
    for size in (1, 2, 3):
        for group in itertools.combinations(hand, size):
            naturals = [card for card in group if card != "7c"]
            wilds = size - len(naturals)
            points = sum(POINTS[card[0]] for card in naturals) + 11 * wilds
            if len({card[1] for card in naturals}) <= 1:
                best = max(best, points)  # one suit, the wild of any suit
            if size >= 2 and len({card[0] for card in naturals}) == 1:
                rank = naturals[0][0]
                if rank == "7":  # the wild counts as a seven: two sevens 23, three 34
                    best = max(best, 23 if size == 2 else 34)
                elif wilds or size == 3 or rank == "A":  # the wild adds 11; triples by points; two aces
                    best = max(best, points)
    return (0, best)


CLASSIC_WILD = {"7c": {"7c"}, "black7": {"7c", "7s"}, "none": set()}


def brute_force(profile: str, options: dict[str, str | int]) -> tuple[list[str], Callable[[Sequence[str]], Key], int]:
    """The deck, the valuation and the hand size of a profile, from the rule text alone."""
    if profile == "georgian":
        return DECKS[int(options["deck"])], georgian, 3
    if profile == "classic":
        cards = DECKS[int(options["deck"])]
        return cards, substituted(natural_classic, CLASSIC_WILD[str(options["wild"])], DECKS[36]), int(options["cards"])
    if profile == "seka36":
        return DECKS[36], substituted(natural_seka36, {"7c"}, DECKS[36]), 3
    if profile == "svara32":
        return DECKS[32], svara32, 3
    assert profile == "seka21"
    return DECKS[21], substituted(natural_seka21, {"9c"}, deck("TJQKA")), 3


def label(key: Key) -> str:
    kind, number = key
    return f"seka {ORDER[number]}" if kind else str(number)


OPTION_SETS = [
    (profile, dict(zip(options, values, strict=True)))
    for profile, options in HAND_OPTIONS.items()
    for values in itertools.product(*options.values())
]


def test_every_profile_and_hand_option_set_is_covered() -> None:
    assert {profile for profile, _ in OPTION_SETS} == {"georgian", "classic", "seka36", "svara32", "seka21"}
    assert len(OPTION_SETS) == 2 + 3 * 2 * 2 + 3


@pytest.mark.parametrize(("profile", "options"), OPTION_SETS, ids=[f"{p}-{o}" for p, o in OPTION_SETS])
def test_counts_per_value_match_a_brute_force_valuation(profile: str, options: dict[str, str | int]) -> None:
    cards, key, hand_size = brute_force(profile, options)
    evaluator = hand_evaluator(profile, **options)  # type: ignore[arg-type]
    assert sorted(str(card) for card in evaluator.deck) == sorted(cards)
    assert evaluator.hand_size == hand_size and evaluator.hand_count == comb(len(cards), hand_size)
    ours = Counter(key(hand) for hand in itertools.combinations(cards, hand_size))
    table = evaluator.values()
    # the same values, with the same number of hands each, in the same order weakest first
    assert [(value.label, count) for value, count in table.items()] == [(label(k), ours[k]) for k in sorted(ours)]
    for hand in itertools.permutations(evaluator.deck[:hand_size]):  # any card order reads the same entry
        assert evaluator.value(hand) == evaluator.value(sorted(hand))


# ------------------------------------------------------------------ seed vectors and decisions

VECTORS = [
    # classic (seed 003), and the two decided values
    ("classic", {}, "Ks 9s 7h", "19"), ("classic", {}, "Ad Td Kd", "31"), ("classic", {}, "Qh 8c 6s", "10"),
    ("classic", {}, "6h 6s 6d", "18"), ("classic", {}, "As Ah 9c", "22"), ("classic", {}, "Th 9h 7c", "30"),
    ("classic", {}, "8d 8s 7c", "24"), ("classic", {}, "7c Ah Kh", "32"), ("classic", {}, "7c 7h 7d", "21"),
    ("classic", {}, "Ac Ad Ah", "33"), ("classic", {}, "7c Ad Ah", "33"), ("classic", {}, "Ks Kh Kd", "30"),
    ("classic", {}, "As Ks Qs", "31"),
    # classic options: black sevens, no wild card, two cards, Trynka
    ("classic", {"wild": "black7"}, "7s 9h Th", "30"), ("classic", {"wild": "black7"}, "7c 7s Ah", "33"),
    ("classic", {"wild": "none"}, "Th 9h 7c", "19"), ("classic", {"wild": "none"}, "7c 7h 7d", "21"),
    ("classic", {"cards": 2}, "Ad As", "22"), ("classic", {"cards": 2}, "Kh Kd", "10"),
    ("classic", {"cards": 2}, "7c Ah", "22"), ("classic", {"cards": 2}, "Kh Qh", "20"),
    ("classic", {"deck": 24}, "Ah Th 9h", "30"), ("classic", {"deck": 24}, "7c 6d 6h", "18"),
    # seka36
    ("seka36", {}, "As Ks 9s", "30"), ("seka36", {}, "Kh Kd Qs", "10"), ("seka36", {}, "7c Ah Kh", "32"),
    ("seka36", {}, "7h 7d 7s", "21"), ("seka36", {}, "7c 6h 6d", "34"), ("seka36", {}, "6c 6h 6d", "34"),
    ("seka36", {}, "Ac Ad Ah", "33"),
    # svara32
    ("svara32", {}, "Kh Kd Qs", "10"), ("svara32", {}, "7c 8c 8d", "27"), ("svara32", {}, "7c Ah Kh", "32"),
    ("svara32", {}, "7c Ah Ad", "33"), ("svara32", {}, "7h 7d Ks", "23"), ("svara32", {}, "7c 7h Ks", "23"),
    ("svara32", {}, "7h 7d 7s", "34"), ("svara32", {}, "7c 7d 7s", "34"), ("svara32", {}, "Kc Kd Kh", "30"),
    ("svara32", {}, "Ah Kh Qh", "31"), ("svara32", {}, "Ah Ad 9c", "22"),
    # seka21
    ("seka21", {}, "Kh Kd Qs", "20"), ("seka21", {}, "Ah Ad Ks", "22"), ("seka21", {}, "Ah Kh Qh", "31"),
    ("seka21", {}, "9c Ah Kh", "32"), ("seka21", {}, "9c Kh Kd", "seka K"), ("seka21", {}, "Ac Ad Ah", "seka A"),
    ("seka21", {}, "Tc Td Th", "seka T"), ("seka21", {}, "9c Kh Qs", "21"),
    # georgian, 32 cards: the weakest seka is 7-7-7
    ("georgian", {"deck": 32}, "7c 7d 7s", "seka 7"), ("georgian", {"deck": 32}, "Ah Kh Qh", "31"),
]


@pytest.mark.parametrize(("profile", "options", "hand", "expected"), VECTORS)
def test_seed_vectors_and_decided_values(profile: str, options: dict[str, str | int], hand: str,
                                         expected: str) -> None:
    assert hand_evaluator(profile, **options).value_of_text(hand).label == expected  # type: ignore[arg-type]


def test_orders_that_the_rules_decide() -> None:
    seka36, svara32, seka21 = hand_evaluator("seka36"), hand_evaluator("svara32"), hand_evaluator("seka21")
    # points decide: K-K-K 30 is below a suited 31 and equal to a suited 30
    assert hand_evaluator("classic").value_of_text("Kc Kd Kh") < hand_evaluator("classic").value_of_text("Ah Kh Qh")
    assert hand_evaluator("classic").value_of_text("Kc Kd Kh") == hand_evaluator("classic").value_of_text("Th 9h 7c")
    # the top hands
    top = {name: max(hand_evaluator(name).values()).label for name in ("classic", "seka36", "svara32", "seka21")}
    assert top == {"classic": "33", "seka36": "34", "svara32": "34", "seka21": "seka A"}
    assert seka36.value_of_text("6c 6d 6h") > seka36.value_of_text("Ac Ad Ah")
    assert svara32.value_of_text("Kc Kd Kh") < svara32.value_of_text("Ah Kh Qh")
    # seka21: the weakest seka beats the best total
    assert seka21.value_of_text("Tc Td Th") > seka21.value_of_text("9c Ah Kh")
    assert seka21.value_of_text("9c Ac Ad") == seka21.value_of_text("Ah As Ad")


def test_counts_anyone_can_check_by_hand() -> None:
    def count(profile: str, label: str, **options: str | int) -> int:
        return sum(n for value, n in hand_evaluator(profile, **options).values().items()  # type: ignore[arg-type]
                   if value.label == label)
    assert count("classic", "33") == 4 + comb(4, 2)  # A-A-A, or two aces and the 7♣
    assert count("seka36", "34") == 4 + comb(4, 2)  # 6-6-6, or two sixes and the 7♣
    assert count("svara32", "34") == 1 + comb(3, 2)  # 7♦7♥7♠, or the 7♣ and two of them
    assert count("seka21", "seka A") == 4 + comb(4, 2)  # three aces, or two aces and the 9♣
    assert count("classic", "22", cards=2) == comb(4, 2) + 4  # two aces, or an ace and the 7♣
    assert count("classic", "22", cards=2, wild="black7") == comb(4, 2) + 2 * 4 + 1  # ... or the two black sevens


# ------------------------------------------------------------------ the evaluator and its options

def test_evaluators_are_built_once_and_georgian_is_the_import_time_lookup() -> None:
    assert hand_evaluator("georgian") is GEORGIAN_EVALUATOR is hand_evaluator("georgian", deck=36)
    assert hand_evaluator("classic") is hand_evaluator("classic", wild="7c", cards=3, deck=36)
    assert hand_evaluator("classic", cards=2) is not hand_evaluator("classic")
    assert isinstance(hand_evaluator("classic", cards=2), TwoCardEvaluator)
    assert type(hand_evaluator("svara32")) is HandEvaluator


@pytest.mark.parametrize(
    ("profile", "options", "message"),
    [
        ("poker", {}, "unknown profile 'poker'; known: classic, georgian, seka21, seka36, svara32"),
        ("seka21", {"deck": 36}, "profile 'seka21' has no hand option 'deck'"),
        ("georgian", {"wild": "7c"}, "profile 'georgian' has no hand option 'wild'"),
        ("georgian", {"deck": 24}, "deck of profile 'georgian' is one of 36, 32, not 24"),
        ("classic", {"wild": "joker"}, "wild of profile 'classic' is one of '7c', 'black7', 'none', not 'joker'"),
        ("classic", {"cards": 4}, "cards of profile 'classic' is one of 3, 2, not 4"),
        ("classic", {"cards": "3"}, "cards of profile 'classic' is one of 3, 2, not '3'"),
        ("classic", {"deck": True}, "deck of profile 'classic' is one of 36, 24, not True"),
    ],
)
def test_unknown_profiles_and_options_are_refused(profile: str, options: dict[str, object], message: str) -> None:
    with pytest.raises(RulesError) as raised:
        hand_evaluator(profile, **options)  # type: ignore[arg-type]
    assert str(raised.value) == message


def test_two_card_lookups_refuse_what_is_not_a_hand_of_their_deck() -> None:
    trynka_pairs = hand_evaluator("classic", cards=2, deck=24)
    assert trynka_pairs.hand_count == comb(24, 2) == 276
    with pytest.raises(ValueError, match="not two distinct cards of this deck: Kh Ah"):
        trynka_pairs.value(parse_cards("Kh Ah"))  # no kings in Trynka
    with pytest.raises(ValueError, match="not two distinct cards"):
        trynka_pairs.value(parse_cards("Ah Ah"))
    with pytest.raises(ValueError):
        trynka_pairs.value(parse_cards("Ah Th 9h"))
    with pytest.raises(ValueError, match="not three distinct cards of this deck: 6c 6d 6h"):
        hand_evaluator("svara32").value(parse_cards("6c 6d 6h"))


# ------------------------------------------------------------------ the tables in docs/rules.md

DOCS = Path(__file__).resolve().parents[2] / "docs" / "rules.md"


def value_table(profile: str) -> str:
    """The markdown table of hands per value for every hand option set of `profile`, as documented."""
    sets = [options for name, options in OPTION_SETS if name == profile]
    tables = [hand_evaluator(profile, **options).values() for options in sets]  # type: ignore[arg-type]
    columns = sorted({value for table in tables for value in table})
    lines = [
        "| " + " | ".join(["options", "hands", *(value.label for value in columns)]) + " |",
        "|" + "---|" * (len(columns) + 2),
    ]
    for options, table in zip(sets, tables, strict=True):
        name = ", ".join(f"{option} {value}" for option, value in options.items()) or "(none)"
        counts = [str(table[value]) if value in table else "·" for value in columns]
        lines.append("| " + " | ".join([name, str(sum(table.values())), *counts]) + " |")
    return "\n".join(lines)


@pytest.mark.parametrize("profile", list(HAND_OPTIONS))
def test_docs_give_each_profiles_table_of_hands_per_value(profile: str) -> None:
    table = value_table(profile)
    assert table in DOCS.read_text(encoding="utf-8"), f"docs/rules.md should hold:\n{table}"
