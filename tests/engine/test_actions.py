"""arena/engine/_actions.py: decisions, fault reasons, and the legal bounds of a turn."""

from __future__ import annotations

import dataclasses

import pytest

from arena.engine import Bet, Fault, Fold, LegalActions, Show, SvaraAnswer

from ._support import table


def test_fault_reasons_are_the_ones_table_clarification_7_names() -> None:
    # "does not answer in time, answers with an illegal action, or has crashed" (+ malformed replies)
    assert {fault.value for fault in Fault} == {"timeout", "illegal", "malformed", "crash"}


def test_actions_are_frozen_values() -> None:
    assert Bet(3) == Bet(3) and Bet(3) != Bet(4) and Fold() == Fold() and Show() == Show()
    assert SvaraAnswer(True) != SvaraAnswer(False)
    with pytest.raises(dataclasses.FrozenInstanceError):
        Bet(3).amount = 4  # type: ignore[misc]


def test_legal_actions_can_show_only_with_a_show_amount() -> None:
    assert LegalActions(0, 1, 10, None).can_show is False
    assert LegalActions(0, 4, 10, 4).can_show is True


def test_legal_actions_of_a_state_track_the_previous_bet_and_heads_up() -> None:
    state = table(3, first_dealer=0)
    assert state.legal_actions() == LegalActions(seat=1, min_bet=1, max_bet=10, show_amount=None)
    state.bet(6)
    assert state.legal_actions() == LegalActions(seat=2, min_bet=6, max_bet=10, show_amount=None)
    state.fold()
    assert state.legal_actions() == LegalActions(seat=0, min_bet=6, max_bet=10, show_amount=6)
