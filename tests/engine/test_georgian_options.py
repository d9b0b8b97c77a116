"""PROFILES.md section 1 (the `georgian` options of seed 002: `deck: 32`, `tie: split`, `dark: true`)
and section 5 (dark play with a maximum bet). Each test breaks if its rule is broken."""

from __future__ import annotations

from fractions import Fraction

import pytest

from arena.engine import (
    GEORGIAN,
    Bet,
    DarkBet,
    Dealt,
    IllegalActionError,
    LegalActions,
    Look,
    Looked,
    Phase,
    PotSplit,
    PotWon,
    RulesError,
    SessionState,
    Show,
    SvaraDeclared,
    profile,
    redact_for,
    turn_view,
)

from ._profiles import replayed, stacked


def test_plain_georgian_is_the_default_and_records_no_options() -> None:
    assert profile("georgian") is GEORGIAN
    assert profile("georgian", {"deck": "36", "tie": "svara", "dark": False}) == GEORGIAN
    start = SessionState(GEORGIAN, bots=["a", "b"], seed="s").events[0].to_json()
    assert "options" not in start and "stacks" not in start


@pytest.mark.parametrize(("options", "message"), [
    ({"deck": 24}, "option 'deck' of profile 'georgian' is one of 36, 32, not '24'"),
    ({"wild": "7c"}, "profile 'georgian' has no option 'wild'"),
    ({"dark": "maybe"}, "one of false, true"),
    ({"tie": ["split"]}, "text or a number"),
])
def test_unknown_options_and_values_are_refused_clearly(options: dict[str, object], message: str) -> None:
    with pytest.raises(RulesError, match=message):
        profile("georgian", options)


def test_unknown_profile_names_the_known_ones() -> None:
    with pytest.raises(RulesError, match="unknown profile 'bulgarian'; known: .*georgian"):
        profile("bulgarian")


def test_deck_32_deals_sevens_to_aces_only_and_the_weakest_seka_is_three_sevens() -> None:
    rules = profile("georgian", {"deck": 32})
    assert len(rules.deck) == 32 and {card.rank for card in rules.deck} == set("789TJQKA")
    assert rules.evaluator.value_of_text("7c 7d 7h") > rules.evaluator.value_of_text("Ah Kh Qh")
    assert rules.evaluator.value_of_text("7c 7d 7h") < rules.evaluator.value_of_text("8c 8d 8h")
    with pytest.raises(ValueError):
        rules.evaluator.value_of_text("6c 6d 6h")
    state = SessionState(rules, bots=["a", "b", "c", "d", "e", "f"], seed="thirty-two")
    dealt = [card for event in state.events if isinstance(event, Dealt) for hand in event.hands.values()
             for card in hand]
    assert len(dealt) == 18 and all(card.rank != "6" for card in dealt)
    assert state.events[0].to_json()["options"] == {"deck": "32", "tie": "svara", "dark": "false"}


def test_split_shares_a_tied_showdown_equally_and_exactly_without_a_replay() -> None:
    rules = profile("georgian", {"tie": "split"}).with_table(pots_per_session=1)
    state = stacked(rules, 3, first_dealer=2, deals={(1, 0): {0: "Ah Kh 7c", 1: "Ad Kd 6s", 2: "9c 8s 6h"}})
    state.bet(4)
    state.bet(4)
    state.fold()
    state.show()  # pot 3 + 4 + 4 + 4 = 15, seats 0 and 1 tie at 21
    split = [event for event in state.events if isinstance(event, PotSplit)]
    assert len(split) == 1 and (split[0].seats, split[0].amount, split[0].share) == ((0, 1), 15, Fraction(15, 2))
    assert not any(isinstance(event, (SvaraDeclared, PotWon)) for event in state.events)
    assert state.balances == [Fraction(-3, 2), Fraction(5, 2), -1] and sum(state.balances) == 0  # paid 9, 5, 1
    assert state.is_finished
    assert replayed(state).state.balances == state.balances


def test_split_at_the_action_cap_shares_only_among_the_tied_strongest() -> None:
    rules = profile("georgian", {"tie": "split"}).with_table(pots_per_session=1, max_actions=3)
    state = stacked(rules, 3, first_dealer=2, deals={(1, 0): {0: "Ah Kh 7c", 1: "Ad Kd 6s", 2: "9c 8s 6h"}})
    for _ in range(3):
        state.bet(1)
    split = state.events[-2]
    assert isinstance(split, PotSplit) and split.seats == (0, 1) and split.share == 3
    assert state.balances == [1, 1, -2]


def _dark(seats: int = 2, **table: object) -> SessionState:
    rules = profile("georgian", {"dark": True}).with_table(pots_per_session=1, **table)
    return stacked(rules, seats, first_dealer=seats - 1,
                   deals={(1, 0): {0: "Td 8d 6d", 1: "Ah As 7d", 2: "9c 8s 6h"}} if seats == 3 else
                   {(1, 0): {0: "Td 8d 6d", 1: "Ah As 7d"}})


def test_the_first_player_may_bet_dark_from_the_opening_stake_to_half_the_maximum_unseen() -> None:
    state = _dark()
    legal = state.legal_actions()
    assert legal == LegalActions(0, 1, 10, None, can_bet=False, seen=False, can_look=True, dark_min=1, dark_max=5)
    view = turn_view(state)
    assert view.cards == () and view.seen is False
    deal = state.events[1]
    assert isinstance(deal, Dealt) and deal.unseen == (0,) and deal.to_json()["unseen"] == [0]
    assert redact_for(deal, 0).hands == {}  # its own cards are not sent before it looks
    assert redact_for(deal, 1).hands == {1: deal.hands[1]}
    for refused in (Bet(1), Show(), DarkBet(6), DarkBet(Fraction(1, 2))):
        with pytest.raises(IllegalActionError):
            state.verify(refused)
    assert state.can_look()


def test_after_a_dark_bet_the_next_looked_payment_is_at_least_twice_it_then_play_goes_on() -> None:
    state = _dark(3)
    state.dark_bet(3)
    assert state.legal_actions().min_bet == 6 and not state.can_bet(5) and state.can_bet(6)
    state.fold()  # seat 1 folds: the requirement waits for the next payment by a player who has looked
    assert state.to_act == 2 and state.legal_actions().min_bet == 6
    state.bet(7)
    looked = state.events[-1]
    assert isinstance(looked, Looked) and looked.seat == 0  # its turn comes again: it sees its cards
    assert redact_for(looked, 0) == looked and redact_for(looked, 2).cards == ()
    assert state.legal_actions().seen and state.legal_actions().min_bet == 7 and turn_view(state).cards
    state.fold()
    assert state.is_finished and replayed(state).state.balances == state.balances


def test_a_heads_up_show_after_a_dark_bet_costs_twice_it() -> None:
    state = _dark()
    state.dark_bet(2)
    assert state.legal_actions().show_amount == 4
    state.show()
    assert state.events[-4].to_json() == {"event": "action", "seat": 1, "kind": "show", "amount": "4"}
    assert state.is_finished and state.balances == [5, -5]  # 24 beats two aces' 22
    replayed(state)


def test_look_keeps_the_turn_and_gives_the_cards_to_the_looker_only() -> None:
    state = _dark()
    events = state.apply(Look())
    assert [event.KIND for event in events] == ["look"] and state.to_act == 0
    legal = state.legal_actions()
    assert legal.seen and legal.can_bet and not legal.can_dark_bet and not legal.can_look
    state.bet(2)
    state.show()
    kinds = [event.KIND for event in replayed(state).state.events]  # replay applies the look as a decision
    assert kinds[:7] == ["session_start", "deal", "ante", "ante", "look", "action", "action"]


def test_dark_play_is_never_offered_in_a_replay() -> None:
    rules = profile("georgian", {"dark": True}).with_table(pots_per_session=1)
    state = stacked(rules, 2, first_dealer=1, deals={(1, 0): {0: "Ah Kh 7c", 1: "Ad Kd 6s"}})
    state.look()
    state.bet(1)
    state.show()
    assert state.phase is Phase.BETTING and state.replay == 1
    deal = state.events[state.deal_start]
    assert isinstance(deal, Dealt) and deal.unseen == () and state.legal_actions().seen
