"""arena/engine/_hands.py: Georgian hand values, the lookup table, and the complete ordering.

Every example hand of the rule files is here (000 section 02 and the 002 guide). The complete
ordering of all 7,140 hands is checked against `rule_key` (tests/engine/_support.py), a scorer
written from the rule text that shares no code with the engine, and pinned by a digest.
"""

from __future__ import annotations

import hashlib
import itertools
from collections import Counter, defaultdict
from collections.abc import Callable, Hashable, Sequence
from fractions import Fraction
from math import comb

import pytest

from arena.engine import DECK_36, GEORGIAN_EVALUATOR, Card, HandEvaluator, HandValue, georgian_value, parse_cards

from ._support import rule_key

ALL_HANDS: list[tuple[Card, ...]] = list(itertools.combinations(DECK_36, 3))


def value(text: str) -> HandValue:
    return GEORGIAN_EVALUATOR.value_of_text(text)


# ------------------------------------------------------------------ examples from the rule files

@pytest.mark.parametrize(
    ("text", "label"),
    [
        # 002 "A few examples"
        ("Ah Kh 7c", "21"),
        ("Td 8d 6d", "24"),
        ("Ad As 9c", "22"),
        ("Kh 9d 7s", "10"),
        # 002 "Common mistakes": the ace of hearts and king of spades make 11, not 21
        ("Ah Ks 6c", "11"),
        ("Ah Ks 7d", "11"),
        # 000 section 02: ordinary maximum 31 is an ace and two ten-value cards of one suit
        ("Ah Kh Qh", "31"),
        ("As Ts Js", "31"),
        # 000 section 06: the worked example's hands
        ("Ah As 7d", "22"),
        # 002 "One hand from start to finish"
        ("9h 6d Js", "10"),  # Ana: no suit repeats
        ("Ac 9c 8d", "20"),  # Giorgi: the clubs
        ("7c Qh 8s", "10"),  # Dato: three suits
        ("Kd Td 7d", "27"),  # Eka: three of one suit
        # sekas are labelled by rank, never as totals ("three sixes are not 18")
        ("6c 6d 6h", "seka 6"),
        ("Ac Ad Ah", "seka A"),
        ("7c 7d 7s", "seka 7"),
        ("Tc Td Ts", "seka T"),
    ],
)
def test_example_hands_from_the_rule_files(text: str, label: str) -> None:
    assert value(text).label == label == str(value(text))
    assert georgian_value(parse_cards(text)) == value(text)


def test_sekas_beat_everything_and_three_sixes_beat_a_suited_31() -> None:
    weakest_seka = value("6c 6d 6h")
    best_total = max(GEORGIAN_EVALUATOR.value(hand) for hand in ALL_HANDS if len({c.rank for c in hand}) > 1)
    assert best_total == value("Ah Kh Qh")
    assert weakest_seka > best_total
    assert value("6s 6d 6h") > value("As Ks Qs")


def test_sekas_rank_ace_king_queen_jack_ten_nine_eight_seven_six() -> None:
    sekas = [value(f"{rank}c {rank}d {rank}h") for rank in "AKQJT9876"]
    assert all(higher > lower for higher, lower in itertools.pairwise(sekas))
    assert value("Ac Ad Ah") == max(GEORGIAN_EVALUATOR.value(hand) for hand in ALL_HANDS)
    # every seka of one rank is the same seka whatever the suits
    assert value("Kc Kd Kh") == value("Ks Kd Kh")


@pytest.mark.parametrize("third", ["6c", "7d", "9h", "Kc", "Qh", "Td", "Jc", "Ks"])
@pytest.mark.parametrize("aces", [("Ac", "Ad"), ("Ah", "As"), ("Ac", "As"), ("Ad", "Ah")])
def test_two_aces_are_22_whatever_the_suits(aces: tuple[str, str], third: str) -> None:
    assert value(" ".join((*aces, third))).strength == 22


def test_two_aces_beat_an_ace_and_king_of_one_suit_and_tie_a_suited_22() -> None:
    assert value("Ac Ad Kc") == value("Ah As 7d") == value("9h 7h 6h")
    assert value("Ac Ad Kc") > value("Ac Kc 6d")


def test_a_lone_card_can_be_the_best_sum() -> None:
    assert value("Kh 9d 7s").strength == 10
    assert value("Ah 9d 7s").strength == 11
    assert value("9h 6d 7s").strength == 9
    assert value("7h 6d 6s").strength == 7  # a pair of sixes in two suits is not a sum
    assert value("Kh 9h 7s").strength == 19  # two of one suit count, the third does not


def test_equal_totals_tie_regardless_of_ranks_and_suits() -> None:
    # No poker kicker, no suit order: every pair below is a tie (svara at a showdown).
    assert value("Ah Th 7c") == value("Kd Ad 9c") == value("Jc Ac 6d")  # 21: A+T, A+K, A+J
    assert value("Ah Kh 9d") == value("Ad Kd 9h")  # 21 each, the suits swapped
    assert value("Th 9h 6d") == value("Qs 9s 6c")  # 19 each, ten against queen
    assert value("Kh Td 9s") == value("Jc Ts 9h") == value("Tc 9d 8h")  # lone ten-value cards
    assert value("Ad As 7c") == value("9h 7h 6h")  # two aces against a suited 22
    assert value("Ah Kh 9d") != value("Ah Kh Qh")


def test_hand_values_are_immutable_ordered_and_hash_by_strength() -> None:
    a, b = value("Ah Kh 7c"), value("Ad Kd 6s")
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert a.label == b.label == "21"
    assert value("Ah Kh Qh") > a > value("Ah 9d 7s")
    with pytest.raises(AttributeError):
        a.strength = 5  # type: ignore[misc]
    # the label is not part of the comparison
    assert HandValue(21, "x") == HandValue(21, "y")


def test_the_lookup_ignores_card_order_and_refuses_repeated_cards() -> None:
    for hand in (parse_cards("Ah As 7d"), parse_cards("Td 8d 6d"), parse_cards("6c 6d 6h")):
        values = {GEORGIAN_EVALUATOR.value(order) for order in itertools.permutations(hand)}
        assert values == {georgian_value(hand)}
        assert {georgian_value(order).label for order in itertools.permutations(hand)} == {georgian_value(hand).label}
    with pytest.raises(ValueError):
        GEORGIAN_EVALUATOR.value(parse_cards("Ah Ah 7d"))
    with pytest.raises(ValueError):
        GEORGIAN_EVALUATOR.value_of_text("Ah As")


def test_the_georgian_lookup_holds_every_hand_of_the_pack() -> None:
    assert GEORGIAN_EVALUATOR.hand_count == 7140 == comb(36, 3) == len(ALL_HANDS)
    assert GEORGIAN_EVALUATOR.deck == DECK_36
    for hand in ALL_HANDS:
        assert GEORGIAN_EVALUATOR.value(hand) == georgian_value(hand)


def test_an_evaluator_can_be_built_for_another_value_function() -> None:
    evaluator = HandEvaluator(DECK_36[:12], lambda cards: HandValue(sum(cards), str(sum(cards))))
    assert evaluator.hand_count == comb(12, 3)
    assert evaluator.value(DECK_36[:3]).strength == 0 + 1 + 2
    with pytest.raises(ValueError):
        evaluator.value(DECK_36[10:13])  # a card outside this deck


# ------------------------------------------------------------------ the complete ordering

# Counts written down from rule_key when this test was written; the test recomputes them.
# (0, t) is a total t, (1, r) the seka of rank index r (0 = sixes ... 8 = aces).
DISTRIBUTION = {
    (0, 7): 24, (0, 8): 72, (0, 9): 144, (0, 10): 1776, (0, 11): 768, (0, 13): 108, (0, 14): 108,
    (0, 15): 216, (0, 16): 540, (0, 17): 636, (0, 18): 528, (0, 19): 528, (0, 20): 744, (0, 21): 388,
    (0, 22): 196, (0, 23): 20, (0, 24): 24, (0, 25): 36, (0, 26): 48, (0, 27): 60, (0, 28): 44,
    (0, 29): 40, (0, 30): 32, (0, 31): 24,
    **{(1, rank): 4 for rank in range(9)},
}

ORDERING_DIGEST = "9e48c41b9bc1bd286215437eda78c9538bb0a845ae53c776b3527fa72390eec2"
"""SHA-256 of the classes of equal hands from weakest to strongest, one line each; a line holds
the class's hands sorted, each hand its cards' names in pack order run together ("6c6d7h")."""


def _classes(key: Callable[[Sequence[Card]], Hashable]) -> list[list[tuple[Card, ...]]]:
    groups: dict[Hashable, list[tuple[Card, ...]]] = defaultdict(list)
    for hand in ALL_HANDS:
        groups[key(hand)].append(hand)
    return [groups[k] for k in sorted(groups)]  # type: ignore[type-var]


def _digest(classes: list[list[tuple[Card, ...]]]) -> str:
    lines = [" ".join(sorted("".join(str(card) for card in hand) for hand in group)) for group in classes]
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


def test_distribution_of_all_7140_hands_matches_an_independent_count() -> None:
    counted = Counter(rule_key(hand) for hand in ALL_HANDS)
    assert counted == DISTRIBUTION
    assert sum(counted.values()) == 7140
    # the engine's labels give the same counts (two aces and a suited 22 share the label "22")
    labels = Counter(GEORGIAN_EVALUATOR.value(hand).label for hand in ALL_HANDS)
    expected = {("seka " + "6789TJQKA"[v]) if kind else str(v): n for (kind, v), n in DISTRIBUTION.items()}
    assert labels == expected
    # a few counts anyone can check by hand
    assert sum(n for (kind, _), n in DISTRIBUTION.items() if kind) == 36  # 9 ranks x 4 suit triples
    assert DISTRIBUTION[(0, 22)] == comb(4, 2) * 32 + 4  # two aces and any third card, or 9-7-6 suited
    assert DISTRIBUTION[(0, 31)] == 4 * comb(4, 2)  # per suit, the ace and two of T J Q K


def test_engine_ordering_equals_the_independent_ordering_of_all_hands() -> None:
    ours = _classes(rule_key)
    engine = _classes(lambda hand: GEORGIAN_EVALUATOR.value(hand).strength)
    assert engine == ours
    # and the engine's values strictly increase from class to class
    strengths = [GEORGIAN_EVALUATOR.value(group[0]) for group in engine]
    assert all(low < high for low, high in itertools.pairwise(strengths))
    assert _digest(ours) == _digest(engine) == ORDERING_DIGEST


# ------------------------------------------------------------------ heads-up tie probability

HEADS_UP_TIE = Fraction(74761, 695640)
"""P(two hands dealt from one 36-card pack have equal strength) = 2,093,308 / 19,477,920 ~ 10.75%."""


def _disjoint_equal_pairs(classes: list[list[tuple[Card, ...]]]) -> int:
    pairs = 0
    for group in classes:
        masks = [(1 << hand[0]) | (1 << hand[1]) | (1 << hand[2]) for hand in group]
        for index, mask in enumerate(masks):
            for other in masks[index + 1 :]:
                if not mask & other:
                    pairs += 1
    return pairs


def test_heads_up_tie_probability_by_enumeration() -> None:
    all_pairs = comb(36, 3) * comb(33, 3) // 2  # unordered pairs of disjoint hands
    assert all_pairs == 19_477_920
    ours = Fraction(_disjoint_equal_pairs(_classes(rule_key)), all_pairs)
    engine = Fraction(_disjoint_equal_pairs(_classes(lambda hand: GEORGIAN_EVALUATOR.value(hand))), all_pairs)
    assert ours == engine == HEADS_UP_TIE
