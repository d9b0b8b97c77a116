"""arena/engine/_views.py: what one seat may know (table clarification 9, hidden information).

"A player's cards are shown to other players only at a showdown the player takes part in.
Folded hands are never shown to other bots (the history file, for organisers, keeps every card)."
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator
from typing import Any

import pytest

from arena.engine import (
    GEORGIAN,
    Acted,
    Card,
    Dealt,
    Entered,
    Phase,
    Revealed,
    SessionState,
    ShowdownHeld,
    redact_for,
    svara_view,
    turn_view,
)

from ._support import NAMES, Style, random_step, table


def _cards_in(value: Any) -> Iterator[Card]:
    """Every card anywhere inside a view or event (dataclasses, mappings, sequences)."""
    if isinstance(value, Card):
        yield value
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for field in dataclasses.fields(value):
            yield from _cards_in(getattr(value, field.name))
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _cards_in(key)
            yield from _cards_in(item)
    elif isinstance(value, (tuple, list)):
        for item in value:
            yield from _cards_in(item)


def test_a_deal_shows_each_seat_only_its_own_hand() -> None:
    deal = Dealt(1, 1, 2, {0: (Card.parse("Ah"), Card.parse("As"), Card.parse("7d")),
                           2: (Card.parse("Td"), Card.parse("8d"), Card.parse("6d"))})
    assert redact_for(deal, 0) == Dealt(1, 1, 2, {0: deal.hands[0]})
    assert redact_for(deal, 2) == Dealt(1, 1, 2, {2: deal.hands[2]})
    assert redact_for(deal, 1) == Dealt(1, 1, 2, {}), "a seat not in the replay sees no cards"
    assert redact_for(Acted(0, "bet", 3), 1) == Acted(0, "bet", 3)


def test_turn_view_holds_the_seats_own_cards_and_the_public_record_only() -> None:
    state = table(4, first_dealer=3, deals={(1, 0): {0: "Ah Kh 7c", 1: "Ad Kd 6s"}})
    state.bet(2)  # 0
    state.bet(2)  # 1
    state.fold()  # 2
    view = turn_view(state)
    assert view.seat == 3 and view.cards == state.hands[3]
    assert set(_cards_in(view)) == set(state.hands[3])
    assert view.legal == state.legal_actions()
    assert view.in_deal == (0, 1, 3) and view.pot == 8 and view.previous_bet == 2 and view.dealer == 3
    assert view.actions == (Acted(0, "bet", 2), Acted(1, "bet", 2), Acted(2, "fold", 0))


def test_svara_view_lists_earlier_answers_and_shows_no_cards() -> None:
    state = table(4, first_dealer=3, deals={(1, 0): {0: "Ah Kh 7c", 1: "Ad Kd 6s"}})
    state.bet(2)
    state.bet(2)
    state.fold()  # 2
    state.fold()  # 3
    state.show()  # 0 shows: tie, pot 10
    view = svara_view(state)
    assert (view.seat, view.frozen_pot, view.price) == (2, 10, 5)
    assert (view.tied, view.eligible, view.answers) == ((0, 1), (2, 3), ())
    assert view.replay == 1
    state.answer_svara(True)
    view = svara_view(state)
    assert view.seat == 3 and view.answers == (Entered(2, True, 5),)
    assert not list(_cards_in(view))
    state.answer_svara(False)
    with pytest.raises(ValueError):
        svara_view(state)


@pytest.mark.parametrize("seats", [2, 3, 5])
def test_no_seat_ever_sees_a_hand_except_its_own_and_those_turned_over(seats: int) -> None:
    for index in range(8):
        state = SessionState(GEORGIAN.with_table(max_actions=5 + index), bots=NAMES[:seats], seed=f"view{index}")
        rng = random.Random(index)
        while not state.is_finished:
            if state.phase is Phase.BETTING:
                view = turn_view(state)
                assert set(_cards_in(view)) == set(state.hands[view.seat])
            else:
                assert not list(_cards_in(svara_view(state)))
            random_step(state, rng, Style(fold=0.3, show=0.6))
        # Replay the record through redact_for: a hand reaches another seat only in a showdown or
        # reveal that its owner took part in; a folded hand never does.
        for viewer in range(seats):
            dealt: dict[int, tuple[Card, ...]] = {}
            folded: set[int] = set()
            for event in state.events:
                seen = redact_for(event, viewer)
                if isinstance(event, Dealt):
                    dealt, folded = dict(event.hands), set()
                    assert set(seen.hands) <= {viewer}
                elif isinstance(event, Acted) and event.kind == "fold":
                    folded.add(event.seat)
                elif isinstance(event, (ShowdownHeld, Revealed)):
                    assert set(seen.hands) == set(event.seats) and not folded & set(event.seats)
                    assert all(tuple(seen.hands[s]) == dealt[s] for s in event.seats)
                else:
                    assert not list(_cards_in(seen))
