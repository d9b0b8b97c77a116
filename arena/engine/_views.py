"""What one seat may know: the only source the transport and in-process policies read from.

A seat sees its own cards once it has looked (a seat that may bet dark is not given them before),
every public action, svara offers and answers, and the hands shown at a showdown or a forced
reveal; a multiway open shows the two compared hands only to those two seats. Nobody else's
unshown cards ever appear in a view; folded hands are never shown to anyone (the organiser's event
log keeps them).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import NamedTuple

from ._actions import LegalActions
from ._amounts import Amount
from ._cards import Card
from ._events import Acted, Compared, Dealt, Entered, Event, Looked, SvaraDeclared
from ._state import Phase, SessionState


@dataclass(frozen=True, slots=True)
class SvaraRound:
    """One svara of the current pot and the answers to its offers."""

    declared: SvaraDeclared
    answers: tuple[Entered, ...]


class TurnView(NamedTuple):
    """Everything a seat may know when it must bet, fold or show: enough to play statelessly.

    A named tuple (immutable, and built several times faster than a frozen dataclass: one is built
    at every decision).
    """

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
    seen: bool = True
    """False while the seat has not looked: `cards` is then empty."""
    stacks: tuple[Amount, ...] | None = None
    """Every seat's chips now (stake profiles), or None when the profile plays without stacks."""
    stake: Amount | None = None
    """The current stake of the deal (stake profiles), or None."""
    dark: int | None = None
    """The seat that bet dark in this deal and has not looked yet, or None."""


class SvaraView(NamedTuple):
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
    stacks: tuple[Amount, ...] | None = None
    """Every seat's chips now (stake profiles), or None."""


def turn_view(state: SessionState) -> TurnView:
    """The view of the seat whose betting turn is awaited."""
    legal = state.legal_actions()
    seat = legal.seat
    dark = state.dark_seat
    rules = state.rules
    stakes = rules.stack is not None
    # Positional, in field order: keywords would add half again to the cost of building the view.
    return TurnView(
        seat,
        state.hands[seat] if legal.seen else (),  # cards
        state.pot_number,
        state.replay,
        state.dealer,
        state.bots,
        tuple(state.in_deal),
        state.pot,
        state.previous_bet,
        tuple(state.balances),
        tuple(state.deal_actions),  # actions
        _svara_rounds(state.events[state.pot_start : state.deal_start]) if state.replay else (),  # svaras
        state.actions_in_deal,
        rules.max_actions,
        legal,
        legal.seen,
        state.stacks() if stakes else None,
        state.stake if stakes else None,
        dark if dark is not None and dark not in state.seen else None,
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
        stacks=state.stacks(),
    )


def redact_for(event: Event, seat: int) -> Event:
    """The form of `event` that `seat` may receive.

    A deal shows the seat only its own hand (if it was dealt in, and not while it may bet dark: its
    `Looked` event gives its cards then); a look shows the cards to the looker only; a multiway open
    shows the two hands to those two only. Every other event is public, since showdowns and forced
    reveals show exactly the hands that were turned over.
    """
    if isinstance(event, Dealt):
        mine = seat in event.hands and seat not in event.unseen
        own: Mapping[int, tuple[Card, ...]] = {seat: event.hands[seat]} if mine else {}
        return Dealt(event.pot, event.replay, event.dealer, own, event.unseen)
    if isinstance(event, Looked) and event.seat != seat:
        return Looked(event.seat, ())
    if isinstance(event, Compared) and seat not in (event.opener, event.target):
        return Compared(event.pot, event.replay, event.opener, event.target, {}, {}, event.loser)
    return event
