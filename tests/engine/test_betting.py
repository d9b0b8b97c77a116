"""Betting in one deal (000 sections 03-04, table clarifications 2-3): payment bounds, calls and
raises as fresh amounts, antes that are not bets, the heads-up show, the lone survivor, turn order.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from arena.engine import GEORGIAN, Acted, Phase, PotWon, Revealed, ShowdownHeld

from ._support import table


def test_first_payment_may_be_any_amount_from_the_opening_stake_to_the_maximum() -> None:
    for amount in range(1, 11):
        state = table(3, first_dealer=0)
        legal = state.legal_actions()
        assert (legal.seat, legal.min_bet, legal.max_bet, legal.show_amount) == (1, 1, 10, None)
        events = state.bet(amount)
        assert events == [Acted(1, "bet", amount)]
        assert (state.pot, state.previous_bet, state.balances) == (3 + amount, amount, [-1, -1 - amount, -1])
    state = table(3, first_dealer=0)
    assert [amount for amount in range(-1, 13) if state.can_bet(amount)] == list(range(1, 11))
    assert not state.can_bet(Fraction(1, 2)) and not state.can_bet(Fraction(21, 2))


def test_payment_bounds_come_from_the_table_settings() -> None:
    state = table(2, first_dealer=0, rules=GEORGIAN.with_table(opening_stake=2, max_bet=5, ante=3))
    assert state.pot == 6 and state.balances == [-3, -3]
    assert [amount for amount in range(0, 8) if state.can_bet(amount)] == [2, 3, 4, 5]


def test_later_payments_are_at_least_the_previous_bet_and_at_most_the_maximum() -> None:
    state = table(4, first_dealer=0)  # seat 1 opens
    state.bet(4)
    legal = state.legal_actions()
    assert (legal.seat, legal.min_bet, legal.max_bet) == (2, 4, 10)
    assert [amount for amount in range(0, 12) if state.can_bet(amount)] == [4, 5, 6, 7, 8, 9, 10]
    state.bet(4)  # a call: equal to the previous bet
    assert state.previous_bet == 4 and state.legal_actions().min_bet == 4
    state.bet(7)  # a raise: larger
    assert state.previous_bet == 7 and state.legal_actions().min_bet == 7
    state.bet(10)
    legal = state.legal_actions()
    assert (legal.seat, legal.min_bet, legal.max_bet) == (1, 10, 10)
    assert state.pot == 4 + 4 + 4 + 7 + 10


def test_payments_are_fresh_amounts_not_top_ups_of_earlier_contributions() -> None:
    # "This is not matching cumulative contributions as in poker."
    state = table(3, first_dealer=0)  # order 1, 2, 0
    state.bet(2)  # seat 1 has paid 2
    state.bet(5)  # seat 2 raises to 5
    state.fold()  # seat 0
    assert state.to_act == 1
    assert not state.can_bet(3), "a 3-chip top-up to 5 is not a payment of at least 5"
    state.bet(5)
    assert state.balances == [-1, -1 - 2 - 5, -1 - 5] and state.pot == 3 + 2 + 5 + 5


def test_antes_are_not_bets() -> None:
    state = table(2, first_dealer=0)
    assert state.pot == 2 and state.previous_bet is None
    legal = state.legal_actions()
    assert legal.min_bet == 1 and legal.show_amount is None and not legal.can_show
    assert not state.can_show(), "heads-up after the antes alone: no previous bet, no show"


def test_the_previous_bet_resets_with_every_deal() -> None:
    state = table(2, first_dealer=0)
    state.bet(7)  # seat 1
    state.fold()  # seat 0: seat 1 takes pot 1
    assert state.pot_number == 2 and state.previous_bet is None
    assert state.legal_actions().min_bet == 1 and state.can_bet(1) and not state.can_show()


def test_show_needs_exactly_two_players_and_a_previous_bet() -> None:
    state = table(3, first_dealer=2, deals={(1, 0): {0: "Td 8d 6d", 1: "Ah As 7d", 2: "9c 8s 6h"}})
    state.bet(3)  # seat 0
    assert not state.can_show() and state.legal_actions().show_amount is None  # three still in
    state.bet(3)  # seat 1
    assert not state.can_show()
    state.fold()  # seat 2
    assert state.to_act == 0 and state.in_deal == [0, 1]
    assert state.can_show() and state.legal_actions().show_amount == 3


def test_show_pays_the_previous_bet_once_and_the_stronger_hand_takes_the_pot() -> None:
    state = table(3, first_dealer=2, deals={(1, 0): {0: "Td 8d 6d", 1: "Ah As 7d", 2: "9c 8s 6h"}})
    state.bet(2)  # seat 0
    state.bet(6)  # seat 1 raises
    state.fold()  # seat 2
    assert state.legal_actions().show_amount == 6, "after a raise the show costs the raised amount"
    pot = state.pot
    events = state.show()  # seat 0 (24) shows against seat 1 (22)
    assert events[0] == Acted(0, "show", 6)
    assert isinstance(events[1], ShowdownHeld) and events[1].winner == 0 and events[1].seats == (0, 1)
    assert [e.label for e in events[1].values.values()] == ["24", "22"]
    won = events[2]
    assert isinstance(won, PotWon) and (won.seat, won.amount, won.shown) == (0, pot + 6, True)
    assert won.amount == 3 + 2 + 6 + 6


@pytest.mark.parametrize(("dealer", "shower"), [(0, 0), (1, 1)])
def test_either_player_may_show_and_the_other_cannot_refuse(dealer: int, shower: int) -> None:
    # Seat 0 holds 24, seat 1 holds 22; whoever shows, seat 0 takes the pot.
    state = table(2, first_dealer=dealer, deals={(1, 0): {0: "Td 8d 6d", 1: "Ah As 7d"}})
    state.bet(1)
    assert state.to_act == shower
    events = state.show()
    assert events[0] == Acted(shower, "show", 1)
    showdown, pot_won = events[1], events[2]
    assert isinstance(showdown, ShowdownHeld) and showdown.seats == (shower, 1 - shower) and showdown.winner == 0
    assert showdown.hands == {0: state.events[1].hands[0], 1: state.events[1].hands[1]}
    assert isinstance(pot_won, PotWon) and (pot_won.seat, pot_won.amount, pot_won.shown) == (0, 4, True)
    assert pot_won.balances == (2, -2)


def test_a_lone_survivor_wins_without_showing() -> None:
    state = table(3, first_dealer=0, deals={(1, 0): {0: "6c 7d 8h", 1: "Ac Ad Ah", 2: "Kh Qh Jh"}})
    state.bet(1)  # seat 1
    state.fold()  # seat 2
    events = state.fold()  # seat 0: seat 1 is alone
    pot_won = events[1]
    assert isinstance(pot_won, PotWon)
    assert (pot_won.pot, pot_won.seat, pot_won.amount, pot_won.shown) == (1, 1, 4, False)
    pot_one = state.events[: state.events.index(pot_won) + 1]
    assert not any(isinstance(e, (ShowdownHeld, Revealed)) for e in pot_one)
    assert pot_won.to_json()["shown"] is False


def test_folded_payments_stay_in_the_pot() -> None:
    state = table(3, first_dealer=2)  # order 0, 1, 2
    state.bet(5)  # seat 0
    state.bet(5)  # seat 1
    state.bet(9)  # seat 2
    state.fold()  # seat 0: its 5 stay
    events = state.fold()  # seat 1: its 5 stay
    pot_won = events[1]
    assert isinstance(pot_won, PotWon) and pot_won.seat == 2 and pot_won.amount == 3 + 5 + 5 + 9
    assert pot_won.balances == (-6, -6, 12)


@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6])
def test_the_dealers_left_opens(seats: int) -> None:
    for dealer in range(seats):
        state = table(seats, first_dealer=dealer)
        assert state.to_act == (dealer + 1) % seats and state.dealer == dealer


def test_turns_go_clockwise_and_skip_folded_players() -> None:
    state = table(5, first_dealer=3)
    turns = []

    def act(kind: str, amount: int = 1) -> None:
        turns.append(state.to_act)
        state.fold() if kind == "fold" else state.bet(amount)

    act("bet")  # 4
    act("fold")  # 0
    act("bet")  # 1
    act("fold")  # 2
    act("bet")  # 3
    act("bet", 2)  # 4
    act("bet", 2)  # 1 (0 folded)
    act("bet", 3)  # 3 (2 folded)
    act("fold")  # 4
    assert turns == [4, 0, 1, 2, 3, 4, 1, 3, 4]
    assert state.to_act == 1 and state.in_deal == [1, 3] and state.phase is Phase.BETTING
