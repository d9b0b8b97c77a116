"""Protobuf messages of `seka.v1` to the SDK's dataclasses, and the bot's answers back."""

from __future__ import annotations

from collections.abc import Iterable

from .._proto.seka.v1 import seka_pb2 as pb
from ..engine import (
    GEORGIAN_EVALUATOR,
    Action,
    Amount,
    Bet,
    Call,
    DarkBet,
    Fold,
    HandEvaluator,
    LegalActions,
    Look,
    Mix,
    MultiwayOpen,
    Open,
    Raise,
    Show,
    Support,
)
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
                 pb.ACTION_KIND_DARK_BET: "dark_bet", pb.ACTION_KIND_SUPPORT: "support",
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
                         stake=amount_from_proto(action.stake) if action.HasField("stake") else None)
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
        legal=legal_from_proto(legal, seat=request.seat, seen=not request.cards_unseen),
        time_left=time_left,
        cards_unseen=request.cards_unseen,
        stacks=_amounts(request.stacks),
        stake=amount_from_proto(request.stake) if request.HasField("stake") else None,
        unseen=tuple(request.unseen),
        evaluator=evaluator,
    )


def legal_from_proto(legal: pb.LegalActions, *, seat: int, seen: bool = True) -> LegalActions:
    """What the bot may do, with the exact bounds: an action the message leaves absent is not allowed."""

    def optional(name: str, message: pb.LegalActions | pb.AmountRange = legal) -> Amount | None:
        return amount_from_proto(getattr(message, name)) if message.HasField(name) else None

    can_bet = legal.HasField("min_bet") and legal.HasField("max_bet")
    dark = legal.dark_bet if legal.HasField("dark_bet") else None
    raising = legal.raise_to if legal.HasField("raise_to") else None
    multiway = legal.multiway_open if legal.HasField("multiway_open") else None
    return LegalActions(
        seat=seat,
        min_bet=amount_from_proto(legal.min_bet) if can_bet else 0,
        max_bet=amount_from_proto(legal.max_bet) if can_bet else 0,
        show_amount=amount_from_proto(legal.show_amount) if legal.can_show else None,
        can_bet=can_bet,
        seen=seen,
        can_look=legal.can_look,
        dark_min=None if dark is None else optional("min", dark),
        dark_max=None if dark is None else optional("max", dark),
        support_amount=optional("support"),
        raise_min=None if raising is None else optional("min", raising),
        raise_max=None if raising is None else optional("max", raising),
        pay_factor=legal.stake_factor or 1,
        open_amount=optional("open"),
        call_amount=optional("call"),
        short=legal.short,
        multiway_amount=None if multiway is None else amount_from_proto(multiway.amount),
        multiway_target=None if multiway is None else multiway.against,
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


def action_to_proto(action: Action | Mix) -> pb.TurnReply:
    """The reply for what a bot's `act` returned: `Fold()`, `Bet(amount)`, `Show()`, or in other profiles
    `DarkBet(amount)`, `Look()`, `Support()`, `Raise(stake)`, `Open()`, `Call()`, `MultiwayOpen()`; or a
    `Mix` of them (`turn.mix(...)`), sent as it is: the arena judges it."""
    if isinstance(action, Mix):
        return pb.TurnReply(mix=pb.MixedAction(entries=[_weighted(entry, p) for entry, p in action.entries]))
    match action:
        case Fold():
            return pb.TurnReply(fold=pb.FoldAction())
        case Bet(amount):
            return pb.TurnReply(bet=pb.BetAction(amount=amount_to_proto(amount)))
        case Show():
            return pb.TurnReply(show=pb.ShowAction())
        case DarkBet(amount):
            return pb.TurnReply(dark_bet=pb.DarkBetAction(amount=amount_to_proto(amount)))
        case Look():
            return pb.TurnReply(look=pb.LookAction())
        case Support():
            return pb.TurnReply(support=pb.SupportAction())
        case Raise(stake):
            return pb.TurnReply(raise_to=pb.RaiseToAction(stake=amount_to_proto(stake)))
        case Open():
            return pb.TurnReply(open=pb.OpenAction())
        case Call():
            return pb.TurnReply(call=pb.CallAction())
        case MultiwayOpen():
            return pb.TurnReply(multiway_open=pb.MultiwayOpenAction())
    raise TypeError(f"act must return Fold(), Bet(amount), Show(), DarkBet(amount), Look(), Support(), Raise(stake), "
                    f"Open(), Call() or MultiwayOpen(), not {action!r}")


def _weighted(action: Action, probability: float) -> pb.WeightedAction:
    """One entry of a mixed reply: the action's case of `TurnReply`, copied into a `WeightedAction`."""
    reply = action_to_proto(action)
    case = reply.WhichOneof("action")
    if case is None or case not in pb.WeightedAction.DESCRIPTOR.fields_by_name:
        raise TypeError(f"a mix holds betting actions only, not {action!r} (answer a look plainly)")
    entry = pb.WeightedAction(probability=probability)
    getattr(entry, case).CopyFrom(getattr(reply, case))
    return entry
