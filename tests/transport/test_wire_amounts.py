"""A bot cannot make the session's amounts outgrow the protocol's 64-bit integers with fractional bets."""

from __future__ import annotations

from fractions import Fraction

import pytest

from arena.engine import GEORGIAN, Bet, SessionState
from arena.protocol import amount_to_proto
from arena.transport import IllegalReplyError, verify_reply


def _opened(amount: Fraction | int) -> SessionState:
    state = SessionState(GEORGIAN, bots=["a", "b", "c"], seed="wire", session="s")
    verify_reply(state, Bet(amount))
    state.apply(Bet(amount))
    return state


def test_bets_with_coprime_denominators_are_the_bots_fault_before_an_amount_outgrows_the_wire() -> None:
    state = _opened(1 + Fraction(1, 1009))  # a fine fraction: still room on the wire
    for refused in (2 + Fraction(1, 2**31 - 1), 2 + Fraction(1, 2**61 - 1)):
        with pytest.raises(IllegalReplyError, match="unit of account"):
            verify_reply(state, Bet(refused))


def test_without_the_check_two_such_bets_leave_a_pot_no_message_can_carry() -> None:
    state = SessionState(GEORGIAN, bots=["a", "b", "c"], seed="wire", session="s")
    state.apply(Bet(1 + Fraction(1, 2**31 - 1)))
    state.apply(Bet(2 + Fraction(1, 2**61 - 1)))
    with pytest.raises(ValueError):
        amount_to_proto(state.pot).SerializeToString()


@pytest.mark.parametrize("amount", [1, 10, Fraction(3, 2), Fraction(7, 3), Fraction(1001, 1000)])
def test_ordinary_fractional_bets_are_accepted(amount: Fraction | int) -> None:
    state = _opened(amount)
    verify_reply(state, Bet(10))
    verify_reply(state, Bet(max(amount, Fraction(21, 10))))


def test_a_call_on_the_sessions_own_denominator_is_never_refused() -> None:
    state = _opened(1 + Fraction(1, 2**20 + 7))
    verify_reply(state, Bet(state.previous_bet))
