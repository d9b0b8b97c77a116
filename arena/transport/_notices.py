"""Engine events to the notices each seat is told, kept until they travel with its next call.

A session posts every batch of events to its `NoticeBoard`; each seat's notices wait there and go
inside its next decision request (Act or Svara), and at the session's end in one Notify, carried
by the session's end. Callers hold `Notices` without seeing the messages inside.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import assert_never

from .._proto.seka.v1 import seka_pb2 as pb
from ..engine import (
    Acted,
    Amount,
    AntePaid,
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
from ..protocol import amount_to_proto
from ._convert import _amounts, _seats


class Notices:
    """Notices one seat has not been sent yet, oldest first."""

    __slots__ = ("_pending",)

    def __init__(self) -> None:
        self._pending: list[pb.Notice] = []

    def __len__(self) -> int:
        return len(self._pending)

    def kinds(self) -> list[str]:
        """What each notice tells, oldest first: `deal`, `showdown`, `pot result` or `session end`."""
        return [str(notice.WhichOneof("notice")).replace("_", " ") for notice in self._pending]


class NoticeBoard:
    """Each seat's notices of one session, from the events posted, until they are taken to be sent."""

    def __init__(self, seats: int, *, session_id: str) -> None:
        self.session_id = session_id
        """The id the notices carry (the one the bots are told)."""
        self._seats = [Notices() for _ in range(seats)]

    def post(self, state: SessionState, events: Sequence[Event], seats: Sequence[int]) -> None:
        """Add to each of `seats` its form of `events`, the batch that just happened in `state`.

        Post right after the batch: a notice carries the balances and pot of that moment.
        """
        for event in events:
            told = notices_for(event, seats, session_id=self.session_id, bots=state.bots, balances=state.balances,
                               pot=state.pot)
            for seat, notice in told.items():
                self._seats[seat]._pending.append(notice)

    def take(self, seat: int) -> Notices:
        """The seat's notices, to send now: the board holds none for it afterwards."""
        notices = self._seats[seat]
        self._seats[seat] = Notices()
        return notices


def notice_for(event: Event, seat: int, *, session_id: str, bots: Sequence[str], balances: Sequence[Amount],
               pot: Amount) -> pb.Notice | None:
    """The notice `seat` receives about `event`, or None when the event brings it no notice.

    A deal is told only to the players dealt in, each seeing its own cards alone. `balances` and
    `pot` are the state's after the whole batch of events, which ends after a deal's antes.
    """
    visible = redact_for(event, seat)
    match visible:
        case Dealt():
            if seat not in visible.hands:
                return None
            assert isinstance(event, Dealt)  # the unredacted deal names every seat dealt in
            return pb.Notice(session_id=session_id, deal=pb.DealNotice(
                pot_number=visible.pot, replay=visible.replay, dealer=visible.dealer, seat=seat,
                cards=[str(card) for card in visible.hands[seat]], seats=_seats(bots),
                players=sorted(event.hands), balances=_amounts(balances), pot=amount_to_proto(pot)))
        case ShowdownHeld():
            return _showdown(visible, pb.SHOWDOWN_KIND_HEADS_UP, session_id)
        case Revealed():
            return _showdown(visible, pb.SHOWDOWN_KIND_ACTION_CAP, session_id)
        case PotWon():
            return pb.Notice(session_id=session_id, pot_result=pb.PotResultNotice(
                pot_number=visible.pot, winner=visible.seat, amount=amount_to_proto(visible.amount),
                shown=visible.shown, balances=_amounts(visible.balances)))
        case SessionEnded():
            return pb.Notice(session_id=session_id, session_end=pb.SessionEndNotice(
                balances=_amounts(visible.balances), winners=visible.winners))
        case SessionStarted() | AntePaid() | Acted() | SvaraDeclared() | Entered():
            return None  # told inside the requests (actions, svaras) or by the Hello
        case Looked() | Compared() | ShortOfChips() | ChipsReturned() | PotSplit() | SessionCut():
            return None  # events of the other profiles: seka.v1 has no notice for them yet (issue 12's protocol part)
        case _:
            assert_never(visible)


def _showdown(shown: ShowdownHeld | Revealed, kind: pb.ShowdownKind, session_id: str) -> pb.Notice:
    showdown = pb.ShowdownNotice(
        pot_number=shown.pot, replay=shown.replay, kind=kind,
        hands=[pb.ShownHand(seat=seat, cards=[str(card) for card in shown.hands[seat]],
                            value=shown.values[seat].label) for seat in shown.seats])
    if shown.winner is not None:
        showdown.winner = shown.winner
    return pb.Notice(session_id=session_id, showdown=showdown)


def notices_for(event: Event, seats: Sequence[int], *, session_id: str, bots: Sequence[str],
                balances: Sequence[Amount], pot: Amount) -> dict[int, pb.Notice]:
    """Each of `seats`' notice about `event`, as `notice_for` gives it (seats it tells nothing are left out).

    Only a deal differs from seat to seat (`redact_for`), so any other event's notice is built once
    and shared: a request copies the notices it is given.
    """
    if isinstance(event, Dealt):
        told = {seat: notice_for(event, seat, session_id=session_id, bots=bots, balances=balances, pot=pot)
                for seat in seats}
        return {seat: notice for seat, notice in told.items() if notice is not None}
    if not seats:
        return {}
    notice = notice_for(event, seats[0], session_id=session_id, bots=bots, balances=balances, pot=pot)
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
