"""arena/engine/_state.py: a session as a state machine — its opening state, dealer rotation, the
session's end after eight resolved pots, faults, `apply`, and the whole state after each step.
"""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from arena.engine import (
    GEORGIAN,
    Acted,
    AntePaid,
    Bet,
    Dealt,
    Entered,
    Fault,
    Fold,
    Phase,
    PotWon,
    SessionEnded,
    SessionStarted,
    SessionState,
    Show,
    SvaraAnswer,
    deck_order,
)

from ._support import NAMES, Referee, jsons, play_out, table


def test_a_new_session_starts_its_first_ordinary_deal() -> None:
    state = SessionState(GEORGIAN, bots=["a", "b", "c"], seed="opening", session="s-1", first_dealer=2)
    started, dealt = state.events[0], state.events[1]
    assert isinstance(started, SessionStarted)
    assert (started.session, started.seed, started.bots, started.first_dealer) == ("s-1", "opening", ("a", "b", "c"), 2)
    assert isinstance(dealt, Dealt) and (dealt.pot, dealt.replay, dealt.dealer) == (1, 0, 2)
    assert [e for e in state.events if isinstance(e, AntePaid)] == [AntePaid(0, 1), AntePaid(1, 1), AntePaid(2, 1)]
    assert len(state.events) == 5
    assert state.phase is Phase.BETTING and not state.is_finished
    assert (state.pot_number, state.replay, state.pot, state.balances) == (1, 0, 3, [-1, -1, -1])
    assert (state.dealer, state.pot_dealer, state.to_act) == (2, 2, 0)
    assert state.in_deal == [0, 1, 2] and state.participants == (0, 1, 2)
    assert state.previous_bet is None and state.actions_in_deal == 0 and state.svara is None
    order = deck_order("opening", 1, 0, GEORGIAN.deck)
    assert state.hands == {seat: tuple(order[3 * seat : 3 * seat + 3]) for seat in range(3)}
    assert state.hand_value(0) == GEORGIAN.evaluator.value(state.hands[0])


def test_the_history_lists_an_ordinary_deals_antes_right_after_its_deal() -> None:
    # The rules post the antes before the cards are dealt; the history format (docs/history.md)
    # lists them right after the deal record. Either way they are paid before any betting.
    state = table(3, first_dealer=0)
    assert [event.KIND for event in state.events] == ["session_start", "deal", "ante", "ante", "ante"]
    assert state.pot == 3 and state.previous_bet is None and state.actions_in_deal == 0


def test_no_ante_in_a_replay_and_one_ante_per_seat_per_ordinary_pot() -> None:
    state = table(3, first_dealer=0, deals={(1, 0): {1: "Ah Kh 7c", 2: "Ad Kd 6s"}})
    state.bet(1)
    state.bet(1)
    state.fold()
    state.show()
    state.answer_svara(False)
    assert state.replay == 1
    assert sum(isinstance(event, AntePaid) for event in state.events) == 3
    state.fold()  # the replay ends; pot 2 starts with three antes
    assert state.pot_number == 2 and state.pot == 3
    assert sum(isinstance(event, AntePaid) for event in state.events) == 6


@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6])
def test_the_deal_passes_one_seat_clockwise_per_ordinary_pot(seats: int) -> None:
    for first in range(seats):
        state = table(seats, first_dealer=first)
        dealers = []
        while not state.is_finished:
            if state.replay == 0 and state.actions_in_deal == 0:
                dealers.append(state.dealer)
            state.fold()
        assert dealers == [(first + k) % seats for k in range(8)]


def test_the_session_ends_after_eight_resolved_pots() -> None:
    state = table(3, first_dealer=0)
    for pot in range(1, 9):
        assert state.pot_number == pot and state.phase is Phase.BETTING
        state.fold()
        state.fold()  # the dealer takes the pot unseen
    assert state.is_finished and state.phase is Phase.FINISHED and state.to_act is None
    assert state.pot == 0
    # dealers 0 1 2 0 1 2 0 1: a pot won is +2, a pot lost -1
    assert state.balances == [3 * 2 - 5, 3 * 2 - 5, 2 * 2 - 6]
    ended = state.events[-1]
    assert isinstance(ended, SessionEnded)
    assert ended.balances == (1, 1, -2) and ended.winners == (0, 1), "exact ties share the win"
    assert ended.to_json() == {"event": "session_end", "balances": {"0": "1", "1": "1", "2": "-2"}, "winners": [0, 1]}
    assert sum(isinstance(event, PotWon) for event in state.events) == 8


def test_a_session_can_end_with_every_seat_tied() -> None:
    state = table(2, first_dealer=0)
    while not state.is_finished:
        state.fold()
    assert state.events[-1] == SessionEnded((0, 0), (0, 1))


def test_a_session_with_one_clear_winner() -> None:
    state = table(4, first_dealer=0, rules=GEORGIAN.with_table(pots_per_session=2))
    state.bet(10)  # 1
    state.fold()  # 2
    state.fold()  # 3
    state.fold()  # 0: seat 1 wins 14, having paid 11
    state.fold()  # pot 2, dealer 1: 2 folds
    state.fold()  # 3
    state.fold()  # 0: seat 1 wins 4, having paid 1
    assert state.events[-1] == SessionEnded((-2, 6, -2, -2), (1,))
    assert sum(state.events[-1].balances) == 0


def test_fractional_balances_stay_exact_to_the_end() -> None:
    state = table(3, first_dealer=2, rules=GEORGIAN.with_table(pots_per_session=1),
                  deals={(1, 0): {0: "Ah Kh 7c", 1: "Ad Kd 6s"}})
    state.bet(4)
    state.bet(4)
    state.fold()
    state.show()  # pot 15: price 15/2
    state.answer_svara(True)
    state.fold()  # 1 folds the replay: 2 and 0 remain
    state.fold()  # 2 folds: 0 wins 45/2 unseen
    assert state.balances == [Fraction(27, 2), -5, Fraction(-17, 2)]
    assert all(isinstance(b, (int, Fraction)) for b in state.balances) and sum(state.balances) == 0
    assert jsons(state.events)[-1]["balances"] == {"0": "27/2", "1": "-5", "2": "-17/2"}


# ------------------------------------------------------------------ faults

def test_a_fault_at_a_betting_turn_folds_and_is_recorded() -> None:
    state = table(3, first_dealer=0)
    state.bet(3)  # 1
    events = state.fold(fault=Fault.TIMEOUT)  # 2
    assert events == [Acted(2, "fold", 0, Fault.TIMEOUT)]
    assert events[0].to_json() == {"event": "action", "seat": 2, "kind": "fold", "amount": "0", "fault": "timeout"}
    assert state.in_deal == [0, 1] and state.to_act == 0 and state.pot == 6
    # nothing else changes: the same as a plain fold
    plain = table(3, first_dealer=0)
    plain.bet(3)
    plain.fold()
    assert plain.in_deal == state.in_deal and plain.pot == state.pot and plain.balances == state.balances


def test_a_faulted_players_payments_stay_in_the_pot() -> None:
    state = table(3, first_dealer=0)
    state.bet(3)  # 1
    state.bet(5)  # 2
    state.fold()  # 0
    state.bet(5)  # 1
    events = state.fold(fault=Fault.CRASH)  # 2 had paid 5
    won = events[1]
    assert isinstance(won, PotWon) and won.seat == 1 and won.amount == 3 + 3 + 5 + 5


@pytest.mark.parametrize("fault", list(Fault))
def test_apply_with_a_fault_folds_at_a_betting_turn(fault: Fault) -> None:
    state = table(3, first_dealer=0)
    assert state.apply(Bet(5), fault=fault) == [Acted(1, "fold", 0, fault)]
    assert state.pot == 3 and state.in_deal == [0, 2]
    events = state.apply(None, fault=fault)
    assert events[0] == Acted(2, "fold", 0, fault)
    assert isinstance(events[1], PotWon) and (events[1].seat, events[1].shown) == (0, False)


@pytest.mark.parametrize("fault", list(Fault))
def test_a_fault_at_a_svara_offer_declines(fault: Fault) -> None:
    for accept in (True, False):
        state = table(3, first_dealer=0, deals={(1, 0): {1: "Ah Kh 7c", 2: "Ad Kd 6s"}})
        state.bet(1)
        state.bet(1)
        state.fold()
        state.show()
        balance = state.balances[0]
        events = state.answer_svara(accept, fault=fault)
        assert events[0] == Entered(0, False, 0, fault)
        assert events[0].to_json()["fault"] == fault.value
        assert state.balances[0] == balance and sorted(state.hands) == [1, 2]
    state = table(3, first_dealer=0, deals={(1, 0): {1: "Ah Kh 7c", 2: "Ad Kd 6s"}})
    state.bet(1)
    state.bet(1)
    state.fold()
    state.show()
    assert state.apply(SvaraAnswer(True), fault=fault)[0] == Entered(0, False, 0, fault)


def test_apply_dispatches_each_decision() -> None:
    state = table(3, first_dealer=0, deals={(1, 0): {1: "Ah Kh 7c", 2: "Ad Kd 6s"}})
    assert state.apply(Bet(2)) == [Acted(1, "bet", 2)]
    assert state.apply(Bet(2)) == [Acted(2, "bet", 2)]
    assert state.apply(Fold()) == [Acted(0, "fold", 0)]
    assert state.apply(Show())[0] == Acted(1, "show", 2)
    assert state.phase is Phase.SVARA_OFFER
    assert state.apply(SvaraAnswer(True))[0] == Entered(0, True, Fraction(9, 2))


# ------------------------------------------------------------------ whole-state steps

def test_the_whole_state_after_each_step_of_a_heads_up_pot() -> None:
    state = table(2, first_dealer=1, rules=GEORGIAN.with_table(pots_per_session=2),
                  deals={(1, 0): {0: "Kh Qh 9c", 1: "7s 7d 7c"}})
    referee = Referee(state.rules)

    def check(**expected: object) -> None:
        referee.agree_with(state)
        assert {name: getattr(state, name) for name in expected} == expected

    check(phase=Phase.BETTING, pot_number=1, pot=2, balances=[-1, -1], to_act=0, previous_bet=None, in_deal=[0, 1])
    state.bet(3)
    check(phase=Phase.BETTING, pot=5, balances=[-4, -1], to_act=1, previous_bet=3, actions_in_deal=1)
    state.bet(8)
    check(phase=Phase.BETTING, pot=13, balances=[-4, -9], to_act=0, previous_bet=8, actions_in_deal=2)
    state.show()  # 20 against a seka of sevens
    check(phase=Phase.BETTING, pot_number=2, replay=0, pot=2, balances=[-12 - 1, 12 - 1], dealer=0, to_act=1,
          previous_bet=None, actions_in_deal=0)
    state.fold()
    check(phase=Phase.FINISHED, pot=0, balances=[-11, 11], to_act=None)


def test_random_sessions_of_every_size_satisfy_the_referee() -> None:
    for seats in range(2, 7):
        for index in range(6):
            seed = f"state-{seats}-{index}"
            rules = GEORGIAN.with_table(max_actions=(4, 200)[index % 2])
            state = SessionState(rules, bots=NAMES[:seats], seed=seed)
            referee = Referee(rules, seed=seed)
            referee.agree_with(state)
            play_out(state, random.Random(seed), referee=referee)


def test_a_fork_decides_apart_and_deals_from_its_own_shuffler() -> None:
    state = SessionState(GEORGIAN, bots=["a", "b", "c"], seed="fork")
    state.bet(2)
    before = (list(state.events), list(state.balances), list(state.in_deal), state.pot, state.to_act)
    ahead = state.fork()
    ahead.bet(4)
    ahead.fold()
    ahead.fold()  # the pot is won and the next deal dealt, on the fork only
    assert (state.events, state.balances, state.in_deal, state.pot, state.to_act) == tuple(before)
    assert ahead.pot_number == 2 and state.pot_number == 1
    fixed = state.fork(shuffler=lambda pot, replay: GEORGIAN.deck)
    fixed.fold()
    fixed.fold()
    assert fixed.hands == {seat: tuple(GEORGIAN.deck[3 * seat:3 * seat + 3]) for seat in range(3)}
    assert state.events == before[0]
