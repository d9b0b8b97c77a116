"""Engine events to the notices each seat is told, kept until they travel with its next call.

A session posts every batch of events to its `NoticeBoard`; each seat's notices wait there and go
inside its next decision request (Act or Svara), and at the session's end in one Notify, carried
by the session's end. Callers hold `Notices` without seeing the messages inside.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import assert_never

from .._proto.seka.v1 import seka_pb2 as pb
from ..engine import (
    Acted,
    Amount,
    AntePaid,
    Card,
    ChipsReturned,
    Compared,
    Dealt,
    Entered,
    Event,
    Looked,
    PotSplit,
    PotWon,
    Revealed,
    SessionCut,
    SessionEnded,
    SessionStarted,
    SessionState,
    ShortOfChips,
    ShowdownHeld,
    SvaraDeclared,
    redact_for,
)
from ..protocol import amount_to_proto, put_amount
from ._convert import _amounts, _put_amounts, _put_seats


class Notices:
    """Notices one seat has not been sent yet, oldest first."""

    __slots__ = ("_pending",)

    def __init__(self) -> None:
        self._pending: list[pb.Notice] = []

    def __len__(self) -> int:
        return len(self._pending)

    def kinds(self) -> list[str]:
        """What each notice tells, oldest first: `deal`, `showdown`, `pot result`, `session end`, `look`,
        `comparison`, `short of chips`, `returned chips` or `split`."""
        return [str(notice.WhichOneof("notice")).replace("_", " ") for notice in self._pending]


@dataclass(frozen=True, slots=True)
class Moment:
    """The state a batch of events left, which the notices about it carry."""

    bots: tuple[str, ...]
    balances: tuple[Amount, ...]
    pot: Amount
    stacks: tuple[Amount, ...] = ()
    """Every seat's chips (stake profiles); empty without stacks."""
    pot_number: int = 0
    replay: int = 0

    @classmethod
    def of(cls, state: SessionState) -> Moment:
        return cls(state.bots, tuple(state.balances), state.pot, state.stacks() or (), state.pot_number, state.replay)


class NoticeBoard:
    """Each seat's notices of one session, from the events posted, until they are taken to be sent."""

    def __init__(self, seats: int, *, session_id: str) -> None:
        self.session_id = session_id
        """The id the notices carry (the one the bots are told)."""
        self._seats = [Notices() for _ in range(seats)]
        self._pots_played = 0

    def post(self, state: SessionState, events: Sequence[Event], seats: Sequence[int]) -> None:
        """Add to each of `seats` its form of `events`, the batch that just happened in `state`.

        Post right after the batch: a notice carries the balances, stacks and pot of that moment.
        """
        moment: Moment | None = None  # taken for the first event that brings a notice: most bring none
        showdown = pb.SHOWDOWN_KIND_HEADS_UP
        for event in events:
            if isinstance(event, (PotWon, PotSplit)):
                self._pots_played += 1
            if isinstance(event, Acted) and event.kind in _COMPARING:
                showdown = _COMPARING[event.kind]
            elif isinstance(event, ShortOfChips):
                showdown = pb.SHOWDOWN_KIND_SHORT
            if isinstance(event, _SILENT):
                continue
            moment = moment or Moment.of(state)
            told = notices_for(event, seats, session_id=self.session_id, moment=moment, showdown=showdown,
                               pots_played=self._pots_played)
            for seat, notice in told.items():
                self._seats[seat]._pending.append(notice)

    def take(self, seat: int) -> Notices:
        """The seat's notices, to send now: the board holds none for it afterwards."""
        notices = self._seats[seat]
        self._seats[seat] = Notices()
        return notices


_SILENT = (SessionStarted, AntePaid, Acted, SvaraDeclared, Entered, SessionCut)
"""The events that bring no notice (`notice_for`: told inside the requests, by the Hello, or by the session's end)."""
_COMPARING = {"open": pb.SHOWDOWN_KIND_OPEN, "call": pb.SHOWDOWN_KIND_CALL}
"""Stake profiles: the actions that end the betting with a comparison, and the showdown each makes."""


def notice_for(event: Event, seat: int, *, session_id: str, moment: Moment,
               showdown: pb.ShowdownKind = pb.SHOWDOWN_KIND_HEADS_UP, pots_played: int = 0) -> pb.Notice | None:
    """The notice `seat` receives about `event`, or None when the event brings it no notice.

    A deal is told only to the players dealt in, each seeing its own cards alone (none while it
    may bet dark); a look's cards and a multiway open's hands only to those they belong to.
    `moment` is the state after the whole batch of events, which ends after a deal's antes;
    `showdown` is the kind of a heads-up comparison (a show, or a stake profile's open, call or
    short payment); `pots_played` the resolved pots so far, told at the session's end.
    """
    visible = redact_for(event, seat)
    match visible:
        case Dealt():
            assert isinstance(event, Dealt)  # the unredacted deal names every seat dealt in
            if seat not in event.hands:
                return None
            unseen = seat in visible.unseen
            notice = pb.Notice(session_id=session_id)
            deal = notice.deal
            deal.pot_number, deal.replay, deal.dealer, deal.seat = visible.pot, visible.replay, visible.dealer, seat
            if not unseen:
                deal.cards.extend([str(card) for card in visible.hands[seat]])
            _put_seats(deal.seats, moment.bots)
            deal.players.extend(sorted(event.hands))
            _put_amounts(deal.balances, moment.balances)
            put_amount(deal.pot, moment.pot)
            deal.cards_unseen = unseen
            _put_amounts(deal.stacks, moment.stacks)
            return notice
        case ShowdownHeld():
            return _showdown(visible, showdown, session_id)
        case Revealed():
            return _showdown(visible, pb.SHOWDOWN_KIND_ACTION_CAP, session_id)
        case PotWon():
            notice = pb.Notice(session_id=session_id)
            result = notice.pot_result
            result.pot_number, result.winner, result.shown = visible.pot, visible.seat, visible.shown
            put_amount(result.amount, visible.amount)
            _put_amounts(result.balances, visible.balances)
            _put_amounts(result.stacks, moment.stacks)
            return notice
        case SessionEnded():
            notice = pb.Notice(session_id=session_id)
            end = notice.session_end
            _put_amounts(end.balances, visible.balances)
            end.winners.extend(visible.winners)
            _put_amounts(end.stacks, moment.stacks)
            end.pots_played = pots_played if moment.stacks else 0
            return notice
        case Looked():
            return pb.Notice(session_id=session_id, look=pb.LookNotice(
                pot_number=moment.pot_number, replay=moment.replay, seat=visible.seat,
                cards=[str(card) for card in visible.cards]))
        case Compared():
            return pb.Notice(session_id=session_id, comparison=pb.ComparisonNotice(
                pot_number=visible.pot, replay=visible.replay, opener=visible.opener, against=visible.target,
                loser=visible.loser, hands=[_shown(hand_seat, visible.hands[hand_seat], visible.values[hand_seat].label)
                                            for hand_seat in (visible.opener, visible.target)
                                            if hand_seat in visible.hands]))
        case ShortOfChips():
            return pb.Notice(session_id=session_id, short_of_chips=pb.ShortOfChipsNotice(
                pot_number=moment.pot_number, replay=moment.replay, seat=visible.seat,
                paid=amount_to_proto(visible.paid)))
        case ChipsReturned():
            return pb.Notice(session_id=session_id, returned_chips=pb.ReturnedChipsNotice(
                pot_number=moment.pot_number, replay=moment.replay, seat=visible.seat,
                amount=amount_to_proto(visible.amount), stacks=_amounts(moment.stacks)))
        case PotSplit():
            return pb.Notice(session_id=session_id, split=pb.SplitNotice(
                pot_number=visible.pot, seats=visible.seats, amount=amount_to_proto(visible.amount),
                share=amount_to_proto(visible.share), balances=_amounts(visible.balances),
                stacks=_amounts(moment.stacks)))
        case SessionStarted() | AntePaid() | Acted() | SvaraDeclared() | Entered() | SessionCut():
            return None  # told inside the requests (actions, svaras), by the Hello, or by the session's end (`_SILENT`)
        case _:
            assert_never(visible)


def _shown(seat: int, cards: Sequence[Card], value: str) -> pb.ShownHand:
    return pb.ShownHand(seat=seat, cards=[str(card) for card in cards], value=value)


def _showdown(shown: ShowdownHeld | Revealed, kind: pb.ShowdownKind, session_id: str) -> pb.Notice:
    showdown = pb.ShowdownNotice(
        pot_number=shown.pot, replay=shown.replay, kind=kind,
        hands=[_shown(seat, shown.hands[seat], shown.values[seat].label) for seat in shown.seats])
    if shown.winner is not None:
        showdown.winner = shown.winner
    return pb.Notice(session_id=session_id, showdown=showdown)


def notices_for(event: Event, seats: Sequence[int], *, session_id: str, moment: Moment,
                showdown: pb.ShowdownKind = pb.SHOWDOWN_KIND_HEADS_UP, pots_played: int = 0) -> dict[int, pb.Notice]:
    """Each of `seats`' notice about `event`, as `notice_for` gives it (seats it tells nothing are left out).

    Only a deal, a look and a comparison differ from seat to seat (`redact_for`), so any other
    event's notice is built once and shared: a request copies the notices it is given.
    """
    def one(seat: int) -> pb.Notice | None:
        return notice_for(event, seat, session_id=session_id, moment=moment, showdown=showdown,
                          pots_played=pots_played)

    if isinstance(event, (Dealt, Looked, Compared)):
        told = {seat: one(seat) for seat in seats}
        return {seat: notice for seat, notice in told.items() if notice is not None}
    if not seats:
        return {}
    notice = one(seats[0])
    return {} if notice is None else dict.fromkeys(seats, notice)


def closing_notice(notices: Notices) -> pb.Notice:
    """The one Notify a bot gets at the session's end: `notices` end with the session's end, which
    carries the notices before it (those the bot has not been sent yet, oldest first)."""
    *earlier, end = notices._pending
    if end.WhichOneof("notice") != "session_end":
        raise ValueError(f"the last pending notice is a {end.WhichOneof('notice')}, not the session's end")
    closing = pb.Notice()
    closing.CopyFrom(end)
    closing.session_end.notices.extend(earlier)
    return closing
