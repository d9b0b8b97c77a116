"""Protobuf messages of `seka.v1` to the SDK's dataclasses, and the bot's answers back."""

from __future__ import annotations

from collections.abc import Iterable

from .._proto.seka.v1 import seka_pb2 as pb
from ..engine import GEORGIAN_EVALUATOR, Action, Amount, Bet, Fold, HandEvaluator, LegalActions, Show
from ..protocol import amount_from_proto, amount_to_proto
from ._types import (
    Comparison,
    Deal,
    Hello,
    Limits,
    Looked,
    PotResult,
    PublicAction,
    ReturnedChips,
    SessionEnd,
    ShortOfChips,
    Showdown,
    ShownHand,
    Split,
    SvaraEntry,
    SvaraOffer,
    SvaraRound,
    Table,
    Turn,
)

_ACTION_KINDS = {pb.ACTION_KIND_BET: "bet", pb.ACTION_KIND_FOLD: "fold", pb.ACTION_KIND_SHOW: "show",
                 pb.ACTION_KIND_DARK_BET: "dark_bet", pb.ACTION_KIND_LOOK: "look", pb.ACTION_KIND_SUPPORT: "support",
                 pb.ACTION_KIND_RAISE: "raise", pb.ACTION_KIND_CALL: "call", pb.ACTION_KIND_OPEN: "open",
                 pb.ACTION_KIND_MULTIWAY_OPEN: "multiway_open"}
_FAULTS: dict[int, str] = {pb.FAULT_TIMEOUT: "timeout", pb.FAULT_ILLEGAL: "illegal", pb.FAULT_MALFORMED: "malformed",
           pb.FAULT_CRASH: "crash"}
_SHOWDOWN_KINDS = {pb.SHOWDOWN_KIND_HEADS_UP: "heads_up", pb.SHOWDOWN_KIND_ACTION_CAP: "action_cap",
                   pb.SHOWDOWN_KIND_OPEN: "open", pb.SHOWDOWN_KIND_CALL: "call", pb.SHOWDOWN_KIND_SHORT: "short"}


def _amounts(messages: Iterable[pb.Amount]) -> tuple[Amount, ...]:
    return tuple(amount_from_proto(message) for message in messages)


def _entries(messages: Iterable[pb.SvaraEntry]) -> tuple[SvaraEntry, ...]:
    return tuple(SvaraEntry(entry.seat, entry.accepted, _fault(entry.fault)) for entry in messages)


def _fault(value: int) -> str | None:
    # A fault added after this SDK was written still reads as a fault.
    return None if value == pb.FAULT_UNSPECIFIED else _FAULTS.get(value, "unknown")


def _bots(seats: Iterable[pb.Seat]) -> tuple[str, ...]:
    return tuple(seat.bot for seat in sorted(seats, key=lambda seat: seat.seat))


def hello_from_proto(request: pb.HelloRequest) -> Hello:
    table = request.table
    limits = request.limits
    return Hello(
        protocol_version=request.protocol_version,
        profile=request.profile,
        table=Table(
            ante=amount_from_proto(table.ante),
            opening_stake=amount_from_proto(table.opening_stake),
            max_bet=amount_from_proto(table.max_bet),
            max_actions=table.max_actions,
            pots_per_session=table.pots_per_session,
            seats=table.seats,
            stack=amount_from_proto(table.stack) if table.HasField("stack") else None,
            deck=tuple(table.deck),
            wild=tuple(table.wild),
            hand_size=table.hand_size or 3,
            betting=table.betting or "fresh",
        ),
        limits=Limits(limits.decision_ms, limits.time_bank_ms, limits.start_deadline_ms, limits.grace_ms),
        session_id=request.session_id,
        seat=request.seat,
        options=dict(request.options),
    )


def _hands(messages: Iterable[pb.ShownHand]) -> tuple[ShownHand, ...]:
    return tuple(ShownHand(hand.seat, tuple(hand.cards), hand.value) for hand in messages)


def turn_from_proto(request: pb.TurnRequest, *, time_left: float | None = None,
                    evaluator: HandEvaluator | None = GEORGIAN_EVALUATOR) -> Turn:
    legal = request.legal
    return Turn(
        session_id=request.session_id,
        pot_number=request.pot_number,
        replay=request.replay,
        dealer=request.dealer,
        seat=request.seat,
        cards=tuple(request.cards),
        bots=_bots(request.seats),
        in_deal=tuple(request.in_deal),
        pot=amount_from_proto(request.pot),
        previous_bet=amount_from_proto(request.previous_bet) if request.HasField("previous_bet") else None,
        balances=_amounts(request.balances),
        actions=tuple(
            PublicAction(action.seat, _ACTION_KINDS.get(action.kind, "unknown"), amount_from_proto(action.amount),
                         _fault(action.fault),
                         stake=amount_from_proto(action.stake) if action.HasField("stake") else None,
                         against=action.against if action.HasField("against") else None, short=action.short)
            for action in request.actions),
        svaras=tuple(
            SvaraRound(
                frozen_pot=amount_from_proto(svara.frozen_pot),
                price=amount_from_proto(svara.price),
                tied=tuple(svara.tied),
                eligible=tuple(svara.eligible),
                entries=_entries(svara.entries),
            )
            for svara in request.svaras),
        actions_count=request.actions_count,
        max_actions=request.max_actions,
        legal=LegalActions(
            seat=request.seat,
            min_bet=amount_from_proto(legal.min_bet),
            max_bet=amount_from_proto(legal.max_bet),
            show_amount=amount_from_proto(legal.show_amount) if legal.can_show else None,
        ),
        time_left=time_left,
        cards_unseen=request.cards_unseen,
        stacks=_amounts(request.stacks),
        stake=amount_from_proto(request.stake) if request.HasField("stake") else None,
        unseen=tuple(request.unseen),
        evaluator=evaluator,
    )


def svara_offer_from_proto(request: pb.SvaraOffer, *, time_left: float | None = None) -> SvaraOffer:
    return SvaraOffer(
        session_id=request.session_id,
        pot_number=request.pot_number,
        replay=request.replay,
        seat=request.seat,
        dealer=request.dealer,
        frozen_pot=amount_from_proto(request.frozen_pot),
        price=amount_from_proto(request.price),
        tied=tuple(request.tied),
        eligible=tuple(request.eligible),
        answers=_entries(request.answers),
        balances=_amounts(request.balances),
        time_left=time_left,
        stacks=_amounts(request.stacks),
    )


Told = Deal | Showdown | PotResult | SessionEnd | Looked | Comparison | ShortOfChips | ReturnedChips | Split
"""What a notice tells, converted."""


def notice_from_proto(request: pb.Notice) -> Told | None:
    """The notice's content, or None for a kind of notice this SDK does not know yet."""
    session_id = request.session_id
    case = request.WhichOneof("notice")
    if case == "deal":
        deal = request.deal
        return Deal(
            session_id=session_id,
            pot_number=deal.pot_number,
            replay=deal.replay,
            dealer=deal.dealer,
            seat=deal.seat,
            cards=tuple(deal.cards),
            bots=_bots(deal.seats),
            players=tuple(deal.players),
            balances=_amounts(deal.balances),
            pot=amount_from_proto(deal.pot),
            cards_unseen=deal.cards_unseen,
            stacks=_amounts(deal.stacks),
        )
    if case == "showdown":
        showdown = request.showdown
        return Showdown(
            session_id=session_id,
            pot_number=showdown.pot_number,
            replay=showdown.replay,
            kind=_SHOWDOWN_KINDS.get(showdown.kind, "unknown"),
            hands=_hands(showdown.hands),
            winner=showdown.winner if showdown.HasField("winner") else None,
        )
    if case == "pot_result":
        result = request.pot_result
        return PotResult(
            session_id=session_id,
            pot_number=result.pot_number,
            winner=result.winner,
            amount=amount_from_proto(result.amount),
            shown=result.shown,
            balances=_amounts(result.balances),
            stacks=_amounts(result.stacks),
        )
    if case == "session_end":
        end = request.session_end
        return SessionEnd(session_id=session_id, balances=_amounts(end.balances), winners=tuple(end.winners),
                          stacks=_amounts(end.stacks), pots_played=end.pots_played)
    return _profile_notice_from_proto(request)


def _profile_notice_from_proto(request: pb.Notice) -> Told | None:
    """The notices of the profiles other than plain `georgian`, or None for a kind this SDK does not know."""
    session_id = request.session_id
    case = request.WhichOneof("notice")
    if case == "look":
        look = request.look
        return Looked(session_id, look.pot_number, look.replay, look.seat, tuple(look.cards))
    if case == "comparison":
        compared = request.comparison
        return Comparison(session_id, compared.pot_number, compared.replay, compared.opener, compared.against,
                          compared.loser, _hands(compared.hands))
    if case == "short_of_chips":
        short = request.short_of_chips
        return ShortOfChips(session_id, short.pot_number, short.replay, short.seat, amount_from_proto(short.paid))
    if case == "returned_chips":
        back = request.returned_chips
        return ReturnedChips(session_id, back.pot_number, back.replay, back.seat, amount_from_proto(back.amount),
                             _amounts(back.stacks))
    if case == "split":
        split = request.split
        return Split(session_id, split.pot_number, tuple(split.seats), amount_from_proto(split.amount),
                     amount_from_proto(split.share), _amounts(split.balances), _amounts(split.stacks))
    return None


def action_to_proto(action: Action) -> pb.TurnReply:
    """The reply for a `Fold()`, `Bet(amount)` or `Show()` returned by a bot's `act`."""
    if isinstance(action, Fold):
        return pb.TurnReply(fold=pb.FoldAction())
    if isinstance(action, Bet):
        return pb.TurnReply(bet=pb.BetAction(amount=amount_to_proto(action.amount)))
    if isinstance(action, Show):
        return pb.TurnReply(show=pb.ShowAction())
    raise TypeError(f"act must return Fold(), Bet(amount) or Show(), not {action!r}")
