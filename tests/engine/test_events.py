"""arena/engine/_events.py: frozen events and their hand-history (JSON Lines) form."""

from __future__ import annotations

import dataclasses
import json
import random
from fractions import Fraction

import pytest

from arena.engine import (
    GEORGIAN,
    GEORGIAN_EVALUATOR,
    Acted,
    AntePaid,
    Dealt,
    Entered,
    Fault,
    PotWon,
    Revealed,
    SessionEnded,
    SessionStarted,
    SessionState,
    ShowdownHeld,
    SvaraDeclared,
    parse_amount,
    parse_cards,
)

from ._support import NAMES, play_out

_EVENT_CLASSES = (SessionStarted, Dealt, AntePaid, Acted, Revealed, ShowdownHeld, SvaraDeclared, Entered, PotWon,
                  SessionEnded)


def test_every_event_kind_is_distinct() -> None:
    kinds = [cls.KIND for cls in _EVENT_CLASSES]
    assert kinds == ["session_start", "deal", "ante", "action", "reveal", "showdown", "svara", "entry", "pot_won",
                     "session_end"]


def test_events_are_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        AntePaid(0, 1).amount = 2  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        Acted(0, "bet", 1).kind = "fold"  # type: ignore[misc]


def test_deal_json() -> None:
    event = Dealt(3, 1, 2, {0: parse_cards("Th 8d 6c"), 2: parse_cards("As Ah 7d")})
    assert event.to_json() == {"event": "deal", "pot": 3, "replay": 1, "dealer": 2,
                               "hands": {"0": ["Th", "8d", "6c"], "2": ["As", "Ah", "7d"]}}


def test_ante_action_and_entry_json_write_exact_amounts_and_faults_only_when_set() -> None:
    assert AntePaid(1, 1).to_json() == {"event": "ante", "seat": 1, "amount": "1"}
    assert Acted(0, "bet", Fraction(15, 2)).to_json() == {"event": "action", "seat": 0, "kind": "bet", "amount": "15/2"}
    assert Acted(0, "bet", Fraction(8, 2)).to_json()["amount"] == "4"
    assert Acted(2, "fold", 0, Fault.MALFORMED).to_json() == {"event": "action", "seat": 2, "kind": "fold",
                                                              "amount": "0", "fault": "malformed"}
    assert Entered(3, True, Fraction(15, 2)).to_json() == {"event": "entry", "seat": 3, "accepted": True,
                                                           "amount": "15/2"}
    assert Entered(3, False, 0, Fault.CRASH).to_json() == {"event": "entry", "seat": 3, "accepted": False,
                                                           "amount": "0", "fault": "crash"}


def test_showdown_and_reveal_json() -> None:
    hands = {1: parse_cards("Td 8d 6d"), 0: parse_cards("Ah As 7d")}
    values = {seat: GEORGIAN_EVALUATOR.value(cards) for seat, cards in hands.items()}
    expected = {"pot": 2, "replay": 0, "seats": [1, 0], "hands": {"1": ["Td", "8d", "6d"], "0": ["Ah", "As", "7d"]},
                "values": {"1": "24", "0": "22"}, "winner": 1}
    assert ShowdownHeld(2, 0, (1, 0), hands, values, 1).to_json() == {"event": "showdown", **expected}
    assert Revealed(2, 0, (1, 0), hands, values, 1).to_json() == {"event": "reveal", **expected}
    assert ShowdownHeld(2, 0, (1, 0), hands, values, None).to_json()["winner"] is None


def test_svara_pot_won_and_session_end_json() -> None:
    assert SvaraDeclared(15, (0, 1), Fraction(15, 2), (2,)).to_json() == {
        "event": "svara", "frozen_pot": "15", "tied": [0, 1], "price": "15/2", "eligible": [2]}
    assert PotWon(1, 0, Fraction(49, 2), True, (Fraction(29, 2), -6, Fraction(-17, 2))).to_json() == {
        "event": "pot_won", "pot": 1, "seat": 0, "amount": "49/2", "shown": True,
        "balances": {"0": "29/2", "1": "-6", "2": "-17/2"}}
    assert SessionEnded((Fraction(1, 2), Fraction(1, 2), -1), (0, 1)).to_json() == {
        "event": "session_end", "balances": {"0": "1/2", "1": "1/2", "2": "-1"}, "winners": [0, 1]}


def test_session_start_json() -> None:
    state = SessionState(GEORGIAN, bots=["x", "y"], seed="json", session="sess", first_dealer=1)
    assert state.events[0].to_json() == {
        "event": "session_start", "format": 3, "session": "sess", "profile": "georgian", "seed": "json",
        "seats": [{"seat": 0, "bot": "x"}, {"seat": 1, "bot": "y"}], "ante": "1", "opening_stake": "1",
        "max_bet": "10", "pots": 8, "max_actions": 200, "first_dealer": 1, "dealing": "seeded"}


def test_every_event_of_random_sessions_is_json_with_parseable_amounts() -> None:
    for index in range(20):
        state = SessionState(GEORGIAN.with_table(max_actions=6), bots=NAMES[: 2 + index % 5], seed=f"j{index}")
        play_out(state, random.Random(index))
        for event in state.events:
            record = json.loads(json.dumps(event.to_json()))
            assert record == event.to_json() and record["event"] == event.KIND
            for key in ("amount", "frozen_pot", "price", "ante", "opening_stake", "max_bet"):
                if key in record:
                    assert parse_amount(record[key]) == getattr(event, key)
            if "balances" in record:
                balances = [parse_amount(record["balances"][str(s)]) for s in range(len(event.balances))]
                assert balances == list(event.balances)
