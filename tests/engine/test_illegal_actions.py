"""Every illegal decision is refused with IllegalActionError and leaves the whole state unchanged
(STYLE.md, Tests: "check that illegal actions leave it unchanged").
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from fractions import Fraction
from typing import Any

import pytest

from arena.engine import (
    GEORGIAN,
    Bet,
    Card,
    Fault,
    Fold,
    IllegalActionError,
    Phase,
    SessionState,
    Show,
    SvaraAnswer,
)

from ._support import jsons, snapshot, table


def opening() -> SessionState:
    """Three players in, nobody has paid yet; seat 1 to act."""
    return table(3, first_dealer=0, deals={(1, 0): {1: "Ah Kh 7c", 2: "Ad Kd 6s"}})


def raised() -> SessionState:
    """Three players in, previous bet 4; seat 2 to act."""
    state = opening()
    state.bet(4)
    return state


def heads_up_unbet() -> SessionState:
    """A two-seat session at its start: two players in, no previous bet."""
    return table(2, first_dealer=0)


def offer() -> SessionState:
    """A svara offer to seat 0 (seats 1 and 2 tied at 21 for a pot of 6)."""
    state = opening()
    state.bet(1)
    state.bet(1)
    state.fold()
    state.show()
    assert state.phase is Phase.SVARA_OFFER and state.to_act == 0
    return state


def finished() -> SessionState:
    state = table(2, first_dealer=0, rules=GEORGIAN.with_table(pots_per_session=1))
    state.fold()
    assert state.is_finished
    return state


Case = tuple[Callable[[], SessionState], Callable[[SessionState], Any]]

ILLEGAL: dict[str, Case] = {
    # payment bounds
    "first bet below the opening stake": (opening, lambda s: s.bet(0)),
    "negative bet": (opening, lambda s: s.bet(-1)),
    "fractional bet below the opening stake": (opening, lambda s: s.bet(Fraction(1, 2))),
    "bet above the maximum": (opening, lambda s: s.bet(11)),
    "fractional bet above the maximum": (opening, lambda s: s.bet(Fraction(21, 2))),
    "bet below the previous bet": (raised, lambda s: s.bet(3)),
    "bet above the maximum after a raise": (raised, lambda s: s.bet(11)),
    # not an exact number
    "bet of a string": (opening, lambda s: s.bet("5")),
    "bet of None": (opening, lambda s: s.bet(None)),
    "bet of a float": (opening, lambda s: s.bet(5.0)),
    "bet of a NaN": (opening, lambda s: s.bet(float("nan"))),
    "bet of infinity": (opening, lambda s: s.bet(float("inf"))),
    "bet of a Decimal": (opening, lambda s: s.bet(Decimal(5))),
    "bet of True": (opening, lambda s: s.bet(True)),
    "bet of False": (raised, lambda s: s.bet(False)),
    "bet of a list": (opening, lambda s: s.bet([5])),
    "Bet action of a string": (opening, lambda s: s.apply(Bet("5"))),
    "Bet action of a float": (opening, lambda s: s.apply(Bet(2.5))),
    # showing
    "show with three players in": (raised, lambda s: s.show()),
    "show with three players in, apply": (raised, lambda s: s.apply(Show())),
    "show without a previous bet": (heads_up_unbet, lambda s: s.show()),
    # svara answers during betting
    "svara answer during betting": (opening, lambda s: s.answer_svara(True)),
    "svara decline during betting": (raised, lambda s: s.answer_svara(False)),
    "SvaraAnswer action during betting": (opening, lambda s: s.apply(SvaraAnswer(True))),
    # betting during a svara offer
    "bet during a svara offer": (offer, lambda s: s.bet(1)),
    "fold during a svara offer": (offer, lambda s: s.fold()),
    "show during a svara offer": (offer, lambda s: s.show()),
    "Bet action during a svara offer": (offer, lambda s: s.apply(Bet(1))),
    "Fold action during a svara offer": (offer, lambda s: s.apply(Fold())),
    "Show action during a svara offer": (offer, lambda s: s.apply(Show())),
    "legal_actions during a svara offer": (offer, lambda s: s.legal_actions()),
    # svara answers that are not booleans
    "svara answer of 1": (offer, lambda s: s.answer_svara(1)),
    "svara answer of 0": (offer, lambda s: s.answer_svara(0)),
    "svara answer of 'yes'": (offer, lambda s: s.answer_svara("yes")),
    "svara answer of None": (offer, lambda s: s.answer_svara(None)),
    "SvaraAnswer action of 1": (offer, lambda s: s.apply(SvaraAnswer(1))),  # type: ignore[arg-type]
    # not an action at all
    "apply of a string": (opening, lambda s: s.apply("fold")),
    "apply of None without a fault": (opening, lambda s: s.apply(None)),
    "apply of an int": (offer, lambda s: s.apply(1)),
    # anything after the session finished
    "fold after the end": (finished, lambda s: s.fold()),
    "faulted fold after the end": (finished, lambda s: s.fold(fault=Fault.TIMEOUT)),
    "bet after the end": (finished, lambda s: s.bet(1)),
    "show after the end": (finished, lambda s: s.show()),
    "svara answer after the end": (finished, lambda s: s.answer_svara(True)),
    "svara decline after the end": (finished, lambda s: s.answer_svara(False)),
    "Fold action after the end": (finished, lambda s: s.apply(Fold())),
    "Bet action after the end": (finished, lambda s: s.apply(Bet(1))),
    "fault after the end": (finished, lambda s: s.apply(None, fault=Fault.CRASH)),
    "legal_actions after the end": (finished, lambda s: s.legal_actions()),
}


@pytest.mark.parametrize("name", list(ILLEGAL))
def test_illegal_decisions_are_refused_and_change_nothing(name: str) -> None:
    build, decide = ILLEGAL[name]
    state = build()
    before = snapshot(state)
    history = jsons(state.events)
    with pytest.raises(IllegalActionError):
        decide(state)
    assert snapshot(state) == before
    assert jsons(state.events) == history


def test_can_predicates_agree_with_the_verifiers() -> None:
    state = opening()
    assert state.can_fold() and state.can_bet(1) and state.can_bet(10)
    assert not state.can_bet(0) and not state.can_bet(11) and not state.can_bet(5.0) and not state.can_bet(True)
    assert not state.can_show() and not state.can_answer_svara(True)
    state = offer()
    assert not state.can_fold() and not state.can_bet(1) and not state.can_show()
    assert state.can_answer_svara(True) and state.can_answer_svara(False) and not state.can_answer_svara(1)
    state = finished()
    assert not any((state.can_fold(), state.can_bet(1), state.can_show(), state.can_answer_svara(True)))
    # verify_* raise and change nothing
    for verify in (state.verify_fold, lambda: state.verify_bet(1), state.verify_show,
                   lambda: state.verify_answer_svara(True)):
        before = snapshot(state)
        with pytest.raises(IllegalActionError):
            verify()
        assert snapshot(state) == before


def test_legal_bounds_are_exact_at_the_edges() -> None:
    state = raised()
    assert state.can_bet(4) and state.can_bet(Fraction(8, 2)) and not state.can_bet(Fraction(7, 2))
    assert state.can_bet(10) and not state.can_bet(Fraction(21, 2))


@pytest.mark.parametrize(
    ("seats", "first_dealer"), [(1, None), (7, None), (3, -1), (3, 3), (2, 5)]
)
def test_impossible_sessions_are_refused(seats: int, first_dealer: int | None) -> None:
    with pytest.raises(ValueError):
        SessionState(GEORGIAN, bots=["x"] * seats, seed="s", first_dealer=first_dealer)


@pytest.mark.parametrize("decide", [lambda s: s.fold(fault="timeout"), lambda s: s.apply(Fold(), fault="crash")])
def test_a_fault_that_is_not_a_fault_is_refused(decide: Callable[[SessionState], Any]) -> None:
    state = opening()
    before = snapshot(state)
    with pytest.raises(IllegalActionError):
        decide(state)
    assert snapshot(state) == before


def test_an_int_subclass_bet_is_refused() -> None:
    state = opening()
    before = snapshot(state)
    with pytest.raises(IllegalActionError):
        state.bet(Card.parse("7c"))  # a card is an int (number 4), but not an amount
    assert snapshot(state) == before


@pytest.mark.parametrize("first_dealer", [True, 1.0])
def test_a_first_dealer_that_is_not_a_seat_number_is_refused(first_dealer: object) -> None:
    with pytest.raises(ValueError):
        SessionState(GEORGIAN, bots=["x", "y"], seed="s", first_dealer=first_dealer)  # type: ignore[arg-type]
