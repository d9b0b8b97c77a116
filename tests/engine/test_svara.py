"""Svara (000 section 05, table clarifications 5-6): the frozen pot, the price of half of it as an
exact fraction, who may re-enter and in which order, the replay's dealer, turn order and lack of
ante, nested svaras, and that a replay uses no pot slot.
"""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from arena.engine import (
    GEORGIAN,
    AntePaid,
    Dealt,
    Entered,
    Fault,
    IllegalActionError,
    Phase,
    PotWon,
    SvaraDeclared,
    deck_order,
)

from ._support import Referee, jsons, play_out, table


def _last(state, kind):  # type: ignore[no-untyped-def]
    return [event for event in state.events if isinstance(event, kind)][-1]


def test_price_is_half_the_frozen_pot_as_an_exact_fraction() -> None:
    state = table(3, first_dealer=2, rules=GEORGIAN.with_table(pots_per_session=1), deals={
        (1, 0): {0: "Ah Kh 7c", 1: "Ad Kd 6s", 2: "9c 8s 6h"},  # 21 and 21
        (1, 1): {0: "Td 8d 6d", 1: "Ah As 7d", 2: "Kc Qc 9h"},  # 24, 22, 20
    })
    state.bet(4)  # seat 0
    state.bet(4)  # seat 1
    state.fold()  # seat 2
    state.show()  # seat 0: pot 3 + 4 + 4 + 4 = 15
    svara = _last(state, SvaraDeclared)
    assert (svara.frozen_pot, svara.tied, svara.eligible) == (15, (0, 1), (2,))
    assert svara.price == Fraction(15, 2) and isinstance(svara.price, Fraction)
    assert svara.to_json() == {"event": "svara", "frozen_pot": "15", "tied": [0, 1], "price": "15/2",
                               "eligible": [2]}
    assert state.phase is Phase.SVARA_OFFER and state.to_act == 2 and state.pot == 15
    events = state.answer_svara(True)  # seat 2, who folded, re-enters
    assert events[0] == Entered(2, True, Fraction(15, 2))
    assert events[0].to_json()["amount"] == "15/2"
    assert state.pot == Fraction(45, 2) and state.balances == [-9, -5, Fraction(-17, 2)]
    # replay: dealer moves from 2 to 0, seat 1 opens
    assert (state.phase, state.replay, state.dealer, state.to_act) == (Phase.BETTING, 1, 0, 1)
    state.bet(1)  # seat 1
    state.fold()  # seat 2
    state.show()  # seat 0: 24 beats 22
    won = _last(state, PotWon)
    assert (won.seat, won.amount, won.shown) == (0, Fraction(49, 2), True)
    assert state.balances == [Fraction(29, 2), -6, Fraction(-17, 2)] and sum(state.balances) == 0
    assert state.events[-1].to_json()["balances"] == {"0": "29/2", "1": "-6", "2": "-17/2"}


def test_every_entry_price_comes_from_the_same_frozen_pot() -> None:
    # Two tied, three others all accept: each pays P/2 of the same P, not of the growing pot.
    state = table(5, first_dealer=4, deals={(1, 0): {0: "Ah Kh 7c", 1: "Ad Kd 6s"}})
    state.bet(1)  # seat 0
    state.bet(1)  # seat 1
    state.fold()  # 2
    state.fold()  # 3
    state.fold()  # 4
    state.show()  # seat 0: pot 5 + 1 + 1 + 1 = 8
    assert _last(state, SvaraDeclared).price == 4
    for seat in (2, 3, 4):
        assert state.to_act == seat
        assert state.answer_svara(True)[0] == Entered(seat, True, 4)
    assert state.pot == 8 + 3 * 4


NESTED = {
    (1, 0): {0: "Ah Kh 7c", 1: "9c 8s 6h", 2: "Ad Qd 6s", 3: "Tc 7d 6c", 4: "Js 9d 7h"},  # 0 and 2: 21
    (1, 1): {0: "Kc Qc 6d", 2: "9h 8h 7s", 3: "Ks Ts 6h", 4: "As 6s 7c"},  # 0 and 3: 20
    (1, 2): {0: "Ah Ad 9s", 1: "7c 7d 7h", 3: "9c 9d 6c"},
}


def test_nested_svara_eligibility_order_dealers_and_prices() -> None:
    state = table(5, first_dealer=3, rules=GEORGIAN.with_table(pots_per_session=1), deals=NESTED)
    # ordinary deal, dealer 3: seats 4, 0, 1, 2, 3
    state.fold()  # 4
    state.bet(1)  # 0
    state.fold()  # 1
    state.bet(1)  # 2
    state.fold()  # 3
    assert state.to_act == 0
    state.show()  # pot 5 + 3 = 8; 0 and 2 tie at 21
    first = _last(state, SvaraDeclared)
    # eligible: everyone but the tied, folders included, asked clockwise from the dealer's left
    assert (first.frozen_pot, first.price, first.tied, first.eligible) == (8, 4, (0, 2), (4, 1, 3))
    assert state.offers_left == [4, 1, 3]
    balances_at_tie = list(state.balances)
    state.answer_svara(True)  # 4
    state.answer_svara(False)  # 1 declines
    state.answer_svara(True)  # 3
    assert state.pot == 16
    assert state.balances == [balances_at_tie[0], balances_at_tie[1], balances_at_tie[2],
                              balances_at_tie[3] - 4, balances_at_tie[4] - 4], "tied players pay nothing"
    # replay 1: players 0, 2, 3, 4; the dealer moves from 3 to 4; seat 0 opens
    deal = _last(state, Dealt)
    assert (deal.pot, deal.replay, deal.dealer, sorted(deal.hands)) == (1, 1, 4, [0, 2, 3, 4])
    assert (state.replay, state.dealer, state.pot_dealer, state.to_act) == (1, 4, 3, 0)
    assert state.previous_bet is None and state.legal_actions().min_bet == 1
    state.bet(2)  # 0
    state.fold()  # 2, a tied player of the first svara
    state.bet(2)  # 3
    state.fold()  # 4, an entrant
    state.show()  # 0: pot 16 + 6 = 22; 0 and 3 tie at 20
    second = _last(state, SvaraDeclared)
    # new frozen pot, new price; 1 (an earlier decliner), 2 and 4 (replay folders) may all re-enter,
    # asked clockwise from the left of the replay's dealer (4)
    assert (second.frozen_pot, second.price, second.tied, second.eligible) == (22, 11, (0, 3), (1, 2, 4))
    state.answer_svara(True)  # 1
    state.answer_svara(False)  # 2
    events = state.answer_svara(True, fault=Fault.TIMEOUT)  # 4: a fault declines
    assert events[0] == Entered(4, False, 0, Fault.TIMEOUT)
    assert events[0].to_json() == {"event": "entry", "seat": 4, "accepted": False, "amount": "0", "fault": "timeout"}
    # replay 2: players 0, 1, 3; the dealer moves from 4 to 0; seat 1 opens
    deal = _last(state, Dealt)
    assert (deal.replay, deal.dealer, sorted(deal.hands)) == (2, 0, [0, 1, 3])
    assert state.to_act == 1 and state.pot == 33
    state.bet(10)  # 1
    state.fold()  # 3
    state.fold()  # 0
    won = _last(state, PotWon)
    assert (won.pot, won.seat, won.amount, won.shown) == (1, 1, 43, False)
    assert state.balances == [-7, 21, -2, -7, -5]
    # no ante was paid after the first deal
    assert [e.seat for e in state.events if isinstance(e, AntePaid)] == [0, 1, 2, 3, 4]
    Referee(state.rules).agree_with(state)


def test_replay_dealer_is_the_next_replay_player_not_the_next_seat() -> None:
    # Dealer 1; seats 0 and 3 tie and nobody re-enters. The next seat clockwise of 1 is 2, who is
    # not in the replay; the next replay player clockwise of 1 is 3, and 0 (3's left) opens.
    state = table(4, first_dealer=1, deals={(1, 0): {0: "Ah Kh 7c", 3: "Ad Kd 6s", 1: "9c 8s 6h", 2: "Js 9d 7h"}})
    state.fold()  # 2
    state.bet(1)  # 3
    state.bet(1)  # 0
    state.fold()  # 1
    state.show()  # 3 shows: tie
    assert _last(state, SvaraDeclared).eligible == (2, 1)
    state.answer_svara(False)  # 2
    state.answer_svara(False)  # 1
    assert (state.replay, state.dealer, state.to_act, state.in_deal) == (1, 3, 0, [0, 3])
    assert not any(isinstance(e, AntePaid) for e in state.events[state.events.index(_last(state, SvaraDeclared)):])


def test_a_replay_uses_no_pot_slot_and_the_deal_rotation_ignores_replay_dealers() -> None:
    state = table(4, first_dealer=1, deals={(1, 0): {0: "Ah Kh 7c", 3: "Ad Kd 6s", 1: "9c 8s 6h", 2: "Js 9d 7h"}})
    state.fold()  # 2
    state.bet(1)  # 3
    state.bet(1)  # 0
    state.fold()  # 1
    state.show()
    state.answer_svara(False)
    state.answer_svara(False)
    assert state.dealer == 3 and state.pot_number == 1
    state.fold()  # seat 0 folds the replay: 3 wins pot 1
    # pot 2 is dealt by seat 2, one seat clockwise of pot 1's dealer (1), not of the replay's (3)
    assert (state.pot_number, state.replay, state.dealer, state.pot_dealer) == (2, 0, 2, 2)
    won = _last(state, PotWon)
    assert (won.pot, won.seat, won.amount) == (1, 3, 4 + 3)
    # and the session still plays eight resolved pots
    play_out(state, random.Random(1))
    assert [e.pot for e in state.events if isinstance(e, PotWon)] == list(range(1, 9))
    assert [e.dealer for e in state.events if isinstance(e, Dealt) and e.replay == 0] == [1, 2, 3, 0, 1, 2, 3, 0]


def test_heads_up_svara_replays_at_once_with_the_deal_passing_to_the_other_player() -> None:
    state = table(2, first_dealer=0, seed="two", deals={(1, 0): {0: "Ah Kh 7c", 1: "Ad Kd 6s"},
                                                        (1, 1): {0: "Ac Kc 7d", 1: "Ah Ks 6s"}})
    state.bet(1)  # 1
    state.show()  # 0: 21 and 21
    assert _last(state, SvaraDeclared).eligible == ()
    assert (state.phase, state.replay, state.dealer, state.to_act) == (Phase.BETTING, 1, 1, 0)
    state.bet(1)  # 0
    state.show()  # 1: 21 (A+K of clubs) against 16 (K+6 of spades)
    replay_showdown = [e for e in state.events if e.KIND == "showdown"][1]
    assert (replay_showdown.replay, replay_showdown.seats, replay_showdown.winner) == (1, (1, 0), 0)
    won = _last(state, PotWon)
    assert (won.seat, won.amount, won.balances) == (0, 6, (3, -3))


def test_when_everyone_declines_the_tied_players_replay_alone() -> None:
    state = table(3, first_dealer=0, seed="decline", deals={(1, 0): {1: "Ah Kh 7c", 2: "Ad Kd 6s"}})
    state.bet(1)  # 1
    state.bet(1)  # 2
    state.fold()  # 0
    state.show()  # 1
    state.answer_svara(False)  # 0
    deal = _last(state, Dealt)
    assert sorted(deal.hands) == [1, 2] and deal.dealer == 1 and state.to_act == 2
    order = deck_order("decline", 1, 1, GEORGIAN.deck)
    assert deal.hands == {1: tuple(order[3:6]), 2: tuple(order[6:9])}, "a fresh shuffle of the whole deck"


def test_betting_is_refused_while_a_svara_offer_is_open() -> None:
    state = table(3, first_dealer=0, deals={(1, 0): {1: "Ah Kh 7c", 2: "Ad Kd 6s"}})
    state.bet(1)
    state.bet(1)
    state.fold()
    state.show()
    assert state.phase is Phase.SVARA_OFFER
    with pytest.raises(IllegalActionError):
        state.legal_actions()
    assert not state.can_bet(1) and not state.can_fold() and not state.can_show()
    assert state.can_answer_svara(True) and state.can_answer_svara(False)


def test_svara_entries_are_not_bets() -> None:
    state = table(3, first_dealer=0, deals={(1, 0): {1: "Ah Kh 7c", 2: "Ad Kd 6s"}})
    state.bet(1)
    state.bet(1)
    state.fold()
    state.show()
    state.answer_svara(True)  # seat 0 pays 3
    assert state.previous_bet is None and state.legal_actions().min_bet == 1
    assert state.legal_actions().show_amount is None
    state.fold()  # seat 2 (dealer 1's left) folds: two left, but still no previous bet
    assert state.in_deal == [0, 1] and not state.can_show()
    state.bet(1)
    assert jsons(state.events)[-1] == {"event": "action", "seat": 0, "kind": "bet", "amount": "1"}
