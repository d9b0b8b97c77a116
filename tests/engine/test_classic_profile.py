"""PROFILES.md section 2 (`classic`, seed 003) and section 6 (the multiway open). Hand values are
tested with the hand tables (test_profile_hands.py); here: seats, deals, betting as georgian, and
every decision of the multiway open. Each test breaks with its rule."""

from __future__ import annotations

import pytest

from arena.engine import (
    Compared,
    Dealt,
    IllegalActionError,
    MultiwayOpen,
    RulesError,
    SessionState,
    profile,
    redact_for,
)

from ._profiles import NAMES, replayed, stacked


def test_classic_seats_two_to_eight_and_deals_its_deck() -> None:
    rules = profile("classic")
    assert (rules.min_seats, rules.max_seats, len(rules.deck), rules.max_bet) == (2, 8, 36, 10)
    SessionState(rules, bots=list(NAMES), seed="eight")
    with pytest.raises(IllegalActionError, match="2 to 8"):
        SessionState(rules, bots=[*NAMES, "india"], seed="nine")
    trynka = profile("classic", {"deck": 24})
    assert {card.rank for card in trynka.deck} == set("6789TA")
    state = SessionState(trynka, bots=list(NAMES), seed="trynka")
    deal = state.events[1]
    assert isinstance(deal, Dealt) and sorted(c for hand in deal.hands.values() for c in hand) == sorted(trynka.deck)
    with pytest.raises(RulesError, match="one of 7c, black7, none"):
        profile("classic", {"wild": "joker"})


def test_two_cards_deals_two_cards_to_each_seat_from_the_seed() -> None:
    rules = profile("classic", {"cards": 2}).with_table(pots_per_session=1)
    assert rules.cards == 2
    state = SessionState(rules, bots=["a", "b", "c"], seed="dva")
    deal = state.events[1]
    assert isinstance(deal, Dealt) and all(len(hand) == 2 for hand in deal.hands.values())
    state.bet(2)
    state.fold()
    state.fold()
    assert replayed(state).state.events == state.events  # replay checks two-card deals against the seed


def test_classic_betting_is_georgian_fresh_payments_up_to_the_maximum_and_heads_up_show() -> None:
    state = SessionState(profile("classic"), bots=["a", "b", "c"], seed="fresh", first_dealer=2)
    assert not state.can_bet(11) and state.can_bet(1)
    state.bet(5)
    assert not state.can_bet(4) and state.can_bet(5) and not state.can_show()
    state.fold()
    state.bet(6)
    assert state.legal_actions().show_amount == 6


def _multiway(**hands: str) -> SessionState:
    rules = profile("classic", {"open": "multiway"}).with_table(pots_per_session=1)
    return stacked(rules, 4, first_dealer=3, deals={(1, 0): {int(seat[1]): text for seat, text in hands.items()}})


def test_multiway_open_compares_with_the_previous_payer_and_the_weaker_drops_out() -> None:
    state = _multiway(s0="As Ks 9s", s1="Kh Qd 8c", s2="Td 9d 6c", s3="8h 7h 6s")  # 30, 10, 19, 15
    assert not state.can_multiway_open()  # nobody has paid
    state.bet(2)  # seat 0
    state.bet(3)  # seat 1
    legal = state.legal_actions()  # seat 2: four in, the previous payer is seat 1
    assert (legal.multiway_amount, legal.multiway_target, legal.can_show) == (3, 1, False)
    events = state.apply(MultiwayOpen())
    assert events[0].to_json() == {"event": "action", "seat": 2, "kind": "multiway_open", "amount": "3"}
    compared = events[1]
    assert isinstance(compared, Compared) and (compared.opener, compared.target, compared.loser) == (2, 1, 1)
    assert state.in_deal == [0, 2, 3] and state.to_act == 3 and state.previous_bet == 3
    # Only the two compared players see the hands; the others learn who dropped out.
    assert redact_for(compared, 1) == compared and redact_for(compared, 2) == compared
    hidden = redact_for(compared, 0)
    assert isinstance(hidden, Compared) and hidden.hands == {} and hidden.values == {} and hidden.loser == 1
    assert hidden.to_json()["hands"] == {}
    state.fold()  # seat 3
    state.fold()  # seat 0: seat 2 is left
    assert state.is_finished and replayed(state).state.events == state.events


def test_on_equal_values_the_opener_drops_out() -> None:
    state = _multiway(s0="Ah Kh 8s", s1="Ad Kd 6s", s2="Ac Kc 8d", s3="8h 7h 6d")  # 21, 21, 21, 15
    state.bet(1)
    state.bet(1)
    state.multiway_open()
    compared = state.events[-1]
    assert isinstance(compared, Compared) and compared.loser == 2 and 2 not in state.in_deal


def test_with_two_players_in_only_the_usual_show_applies() -> None:
    state = _multiway(s0="As Ks 9s", s1="Kh Qd 8c", s2="Td 9d 6c", s3="8h 7h 6s")
    state.bet(1)
    state.fold()
    state.fold()  # seats 0 and 3 are left
    legal = state.legal_actions()
    assert legal.can_show and not legal.can_multiway_open
    with pytest.raises(IllegalActionError, match="previous payer"):
        state.multiway_open()


def test_the_multiway_open_is_an_option_classic_without_it_offers_none() -> None:
    state = SessionState(profile("classic"), bots=["a", "b", "c"], seed="none", first_dealer=2)
    state.bet(1)
    state.bet(1)
    assert not state.can_multiway_open() and state.legal_actions().multiway_target is None
