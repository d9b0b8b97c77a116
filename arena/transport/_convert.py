"""Engine views to protobuf requests, and bot replies back to engine actions.

Requests are built only from `TurnView`, `SvaraView` and `redact_for(event, seat)` (the notices,
`_notices.py`), so a bot is sent exactly what its seat may know.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from google.protobuf.unknown_fields import UnknownFieldSet

from .._proto.seka.v1 import seka_pb2 as pb
from ..engine import Action, Amount, Bet, Entered, Fault, Fold, Rules, Show, SvaraAnswer, SvaraView, TurnView
from ..protocol import PROTOCOL_VERSION, amount_from_proto, amount_to_proto
from ._faults import MalformedReplyError

_ACTION_KINDS = {"bet": pb.ACTION_KIND_BET, "fold": pb.ACTION_KIND_FOLD, "show": pb.ACTION_KIND_SHOW}
_FAULTS = {None: pb.FAULT_UNSPECIFIED, Fault.TIMEOUT: pb.FAULT_TIMEOUT, Fault.ILLEGAL: pb.FAULT_ILLEGAL,
           Fault.MALFORMED: pb.FAULT_MALFORMED, Fault.CRASH: pb.FAULT_CRASH}


def _amounts(values: Sequence[Amount]) -> list[pb.Amount]:
    return [amount_to_proto(value) for value in values]


def _seats(bots: Sequence[str]) -> list[pb.Seat]:
    return [pb.Seat(seat=seat, bot=bot) for seat, bot in enumerate(bots)]


def _entries(entries: Sequence[Entered]) -> list[pb.SvaraEntry]:
    return [pb.SvaraEntry(seat=entry.seat, accepted=entry.accepted, fault=_FAULTS[entry.fault]) for entry in entries]


def hello_request(rules: Rules, *, seats: int, seat: int, session_id: str, decision_ms: int, time_bank_ms: int,
                  start_ms: int, grace_ms: int = 0) -> pb.HelloRequest:
    return pb.HelloRequest(
        protocol_version=PROTOCOL_VERSION,
        profile=rules.name,
        table=pb.TableSettings(ante=amount_to_proto(rules.ante), opening_stake=amount_to_proto(rules.opening_stake),
                               max_bet=amount_to_proto(rules.max_bet), max_actions=rules.max_actions,
                               pots_per_session=rules.pots_per_session, seats=seats),
        limits=pb.TimeLimits(decision_ms=decision_ms, time_bank_ms=time_bank_ms, start_deadline_ms=start_ms,
                             grace_ms=grace_ms),
        session_id=session_id,
        seat=seat,
    )


def turn_request(view: TurnView, *, session_id: str, notices: Sequence[pb.Notice] = ()) -> pb.TurnRequest:
    """The seat's turn, carrying `notices`: those it has not been sent yet, oldest first."""
    legal = view.legal
    request = pb.TurnRequest(
        session_id=session_id,
        pot_number=view.pot_number,
        replay=view.replay,
        dealer=view.dealer,
        seat=view.seat,
        cards=[str(card) for card in view.cards],
        seats=_seats(view.bots),
        in_deal=view.in_deal,
        pot=amount_to_proto(view.pot),
        balances=_amounts(view.balances),
        actions=[pb.PublicAction(seat=action.seat, kind=_ACTION_KINDS[action.kind],
                                 amount=amount_to_proto(action.amount), fault=_FAULTS[action.fault])
                 for action in view.actions],
        svaras=[pb.SvaraRound(frozen_pot=amount_to_proto(svara.declared.frozen_pot),
                              price=amount_to_proto(svara.declared.price), tied=svara.declared.tied,
                              eligible=svara.declared.eligible, entries=_entries(svara.answers))
                for svara in view.svaras],
        actions_count=view.actions_in_deal,
        max_actions=view.max_actions,
        legal=pb.LegalActions(min_bet=amount_to_proto(legal.min_bet), max_bet=amount_to_proto(legal.max_bet),
                              can_show=legal.can_show),
        notices=notices,
    )
    if view.previous_bet is not None:
        request.previous_bet.CopyFrom(amount_to_proto(view.previous_bet))
    if legal.show_amount is not None:
        request.legal.show_amount.CopyFrom(amount_to_proto(legal.show_amount))
    return request


def svara_offer(view: SvaraView, *, session_id: str, notices: Sequence[pb.Notice] = ()) -> pb.SvaraOffer:
    """The seat's svara offer, carrying `notices`: those it has not been sent yet, oldest first."""
    return pb.SvaraOffer(
        session_id=session_id,
        pot_number=view.pot_number,
        replay=view.replay,
        seat=view.seat,
        frozen_pot=amount_to_proto(view.frozen_pot),
        price=amount_to_proto(view.price),
        tied=view.tied,
        eligible=view.eligible,
        answers=_entries(view.answers),
        balances=_amounts(view.balances),
        dealer=view.dealer,
        notices=notices,
    )


def action_from_reply(reply: pb.TurnReply) -> Action:
    """The engine action a turn reply asks for; `MalformedReplyError` when it names none properly."""
    _refuse_unknown_fields(reply)
    choice = reply.WhichOneof("action")
    if choice == "fold":
        return Fold()
    if choice == "show":
        return Show()
    if choice == "bet":
        if not reply.bet.HasField("amount"):
            raise MalformedReplyError("a bet without an amount")
        try:
            return Bet(amount_from_proto(reply.bet.amount))
        except ValueError as error:
            raise MalformedReplyError(str(error)) from None
    raise MalformedReplyError("the reply sets none of fold, bet, show")


def answer_from_reply(reply: pb.SvaraReply) -> SvaraAnswer:
    """The answer to a svara offer; `MalformedReplyError` when the reply is some other message."""
    _refuse_unknown_fields(reply)
    return SvaraAnswer(reply.accept)


@dataclass(frozen=True)
class HelloInfo:
    """What a bot says of itself in its HelloReply."""

    name: str
    version: str
    protocol_version: str


def hello_from_reply(reply: pb.HelloReply) -> HelloInfo:
    return HelloInfo(name=reply.name, version=reply.version, protocol_version=reply.protocol_version)


def _refuse_unknown_fields(reply: pb.TurnReply | pb.SvaraReply) -> None:
    # Requests may grow new fields, but replies are ours to define: unknown fields in a reply mean
    # the bot answered with some other message that happened to parse.
    if len(UnknownFieldSet(reply)):
        raise MalformedReplyError(f"the reply is not a {type(reply).DESCRIPTOR.name}: it carries unknown fields")
