"""What one seat may know: the only source the transport and in-process policies read from.

A seat sees its own cards, every public action, svara offers and answers, and the hands shown
at a showdown or a forced reveal. Nobody else's unshown cards ever appear in a view; folded hands
are never shown to anyone (the organiser's event log keeps them).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ._actions import LegalActions
from ._amounts import Amount
from ._cards import Card
from ._events import Acted, Dealt, Entered, Event, SvaraDeclared
from ._state import Phase, SessionState


@dataclass(frozen=True, slots=True)
class SvaraRound:
    """One svara of the current pot and the answers to its offers."""

    declared: SvaraDeclared
    answers: tuple[Entered, ...]


@dataclass(frozen=True, slots=True)
class TurnView:
    """Everything a seat may know when it must bet, fold or show: enough to play statelessly."""

    seat: int
    cards: tuple[Card, ...]
    pot_number: int
    replay: int
    dealer: int
    bots: tuple[str, ...]
    in_deal: tuple[int, ...]
    pot: Amount
    previous_bet: Amount | None
    balances: tuple[Amount, ...]
    actions: tuple[Acted, ...]
    """This deal's actions so far, in order (faults included: they are public)."""
    svaras: tuple[SvaraRound, ...]
    """The svaras of this pot so far, each with its answers."""
    actions_in_deal: int
    max_actions: int
    legal: LegalActions


@dataclass(frozen=True, slots=True)
class SvaraView:
    """Everything a seat may know when it is offered re-entry to a svara."""

    seat: int
    pot_number: int
    replay: int
    """The replay that accepting would join (1 for the first svara of a pot)."""
    frozen_pot: Amount
    price: Amount
    tied: tuple[int, ...]
    eligible: tuple[int, ...]
    answers: tuple[Entered, ...]
    """Earlier answers to this same offer, in the order asked."""
    balances: tuple[Amount, ...]
    bots: tuple[str, ...]
    dealer: int
    """The dealer of the deal that ended in the tie."""


def turn_view(state: SessionState) -> TurnView:
    """The view of the seat whose betting turn is awaited."""
    legal = state.legal_actions()
    seat = legal.seat
    deal_events = state.events[state.deal_start :]
    return TurnView(
        seat=seat,
        cards=state.hands[seat],
        pot_number=state.pot_number,
        replay=state.replay,
        dealer=state.dealer,
        bots=state.bots,
        in_deal=tuple(state.in_deal),
        pot=state.pot,
        previous_bet=state.previous_bet,
        balances=tuple(state.balances),
        actions=tuple(event for event in deal_events if isinstance(event, Acted)),
        svaras=_svara_rounds(state.events[state.pot_start : state.deal_start]),
        actions_in_deal=state.actions_in_deal,
        max_actions=state.rules.max_actions,
        legal=legal,
    )


def _svara_rounds(events: list[Event]) -> tuple[SvaraRound, ...]:
    rounds: list[SvaraRound] = []
    for index, event in enumerate(events):
        if isinstance(event, SvaraDeclared):
            answers = events[index + 1 : index + 1 + len(event.eligible)]
            rounds.append(SvaraRound(event, tuple(answer for answer in answers if isinstance(answer, Entered))))
    return tuple(rounds)


def svara_view(state: SessionState) -> SvaraView:
    """The view of the seat now offered re-entry to a svara."""
    if state.phase is not Phase.SVARA_OFFER or state.svara is None or state.to_act is None:
        raise ValueError(f"no svara offer is awaited (phase {state.phase.value})")
    svara = state.svara
    asked = len(svara.eligible) - len(state.offers_left)
    answers = tuple(event for event in state.events[-asked:] if isinstance(event, Entered)) if asked else ()
    return SvaraView(
        seat=state.to_act,
        pot_number=state.pot_number,
        replay=state.replay + 1,
        frozen_pot=svara.frozen_pot,
        price=svara.price,
        tied=svara.tied,
        eligible=svara.eligible,
        answers=answers,
        balances=tuple(state.balances),
        bots=state.bots,
        dealer=state.dealer,
    )


def redact_for(event: Event, seat: int) -> Event:
    """The form of `event` that `seat` may receive.

    A deal shows the seat only its own hand (and only if it was dealt in); every other event is
    public, since showdowns and forced reveals show exactly the hands that were turned over.
    """
    if isinstance(event, Dealt):
        own: Mapping[int, tuple[Card, ...]] = {seat: event.hands[seat]} if seat in event.hands else {}
        return Dealt(event.pot, event.replay, event.dealer, own)
    return event
