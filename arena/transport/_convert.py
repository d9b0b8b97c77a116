"""Engine views to protobuf requests, and bot replies back to engine actions.

Requests are built only from `TurnView`, `SvaraView` and `redact_for(event, seat)` (the notices,
`_notices.py`), so a bot is sent exactly what its seat may know. They are built in place (`put_amount`,
`_put_*`: a field set on the message being built), which takes about half the time of building each
part as a message of its own and copying it in; what a Hello tells of the table is built once per
profile and table size.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from google.protobuf.unknown_fields import UnknownFieldSet

from .._proto.seka.v1 import seka_pb2 as pb
from ..engine import (
    MAX_MIX_ENTRIES,
    Action,
    Amount,
    Bet,
    Call,
    DarkBet,
    Entered,
    Fault,
    Fold,
    LegalActions,
    Look,
    Mix,
    MultiwayOpen,
    Open,
    Raise,
    Rules,
    Show,
    Support,
    SvaraAnswer,
    SvaraView,
    TurnView,
)
from ..protocol import PROTOCOL_VERSION, amount_from_proto, amount_to_proto, put_amount
from ._faults import MalformedReplyError

_ACTION_KINDS = {"bet": pb.ACTION_KIND_BET, "fold": pb.ACTION_KIND_FOLD, "show": pb.ACTION_KIND_SHOW,
                 "dark_bet": pb.ACTION_KIND_DARK_BET, "support": pb.ACTION_KIND_SUPPORT, "raise": pb.ACTION_KIND_RAISE,
                 "call": pb.ACTION_KIND_CALL, "open": pb.ACTION_KIND_OPEN,
                 "multiway_open": pb.ACTION_KIND_MULTIWAY_OPEN}
# The wild cards each profile's hands are valued with (TableSettings.wild), by profile and `wild` option.
_WILD_CARDS = {"classic": {"7c": ["7c"], "black7": ["7c", "7s"], "none": []},
               "seka36": {"": ["7c"]}, "svara32": {"": ["7c"]}, "seka21": {"": ["9c"]}}
_EMPTY_ACTIONS: dict[str, Action] = {"fold": Fold(), "show": Show(), "look": Look(), "support": Support(),
                                     "call": Call(), "open": Open(), "multiway_open": MultiwayOpen()}
"""The reply's cases that carry nothing but their choice."""
_FAULTS = {None: pb.FAULT_UNSPECIFIED, Fault.TIMEOUT: pb.FAULT_TIMEOUT, Fault.ILLEGAL: pb.FAULT_ILLEGAL,
           Fault.MALFORMED: pb.FAULT_MALFORMED, Fault.CRASH: pb.FAULT_CRASH}


def _amounts(values: Sequence[Amount]) -> list[pb.Amount]:
    return [amount_to_proto(value) for value in values]


def _put_amounts(repeated: Any, values: Sequence[Amount]) -> None:
    """Append `values` to a repeated `Amount` field, in place."""
    for value in values:
        put_amount(repeated.add(), value)


def _put_seats(repeated: Any, bots: Sequence[str]) -> None:
    for seat, bot in enumerate(bots):
        message = repeated.add()
        message.seat = seat
        message.bot = bot


def _put_entries(repeated: Any, entries: Sequence[Entered]) -> None:
    for entry in entries:
        message = repeated.add()
        message.seat = entry.seat
        message.accepted = entry.accepted
        message.fault = _FAULTS[entry.fault]


def hello_request(rules: Rules, *, seats: int, seat: int, session_id: str, decision_ms: int, time_bank_ms: int,
                  start_ms: int, grace_ms: int = 0) -> pb.HelloRequest:
    request = pb.HelloRequest(
        protocol_version=PROTOCOL_VERSION,
        profile=rules.name,
        limits=pb.TimeLimits(decision_ms=decision_ms, time_bank_ms=time_bank_ms, start_deadline_ms=start_ms,
                             grace_ms=grace_ms),
        session_id=session_id,
        seat=seat,
        options=rules.option_values,
    )
    request.table.CopyFrom(_table(rules, seats))
    return request


@lru_cache(maxsize=64)
def _table(rules: Rules, seats: int) -> pb.TableSettings:
    """The table every Hello of `rules` at `seats` seats tells (never modified: copied into each)."""
    table = pb.TableSettings(ante=amount_to_proto(rules.ante), opening_stake=amount_to_proto(rules.opening_stake),
                             max_bet=amount_to_proto(rules.max_bet), max_actions=rules.max_actions,
                             pots_per_session=rules.pots_per_session, seats=seats,
                             deck=[str(card) for card in rules.deck],
                             wild=_WILD_CARDS.get(rules.name, {}).get(rules.option_values.get("wild", ""), []),
                             hand_size=rules.cards, betting="stake" if rules.betting.stacks else "fresh")
    if rules.stack is not None:
        table.stack.CopyFrom(amount_to_proto(rules.stack))
    return table


def _put_legal(message: pb.LegalActions, legal: LegalActions, *, stakes: bool) -> None:
    """Every action the seat may take, each with its exact bounds; an action not allowed is left absent."""
    message.can_show = legal.can_show
    message.can_look = legal.can_look
    message.short = legal.short
    if legal.can_bet:
        put_amount(message.min_bet, legal.min_bet)
        put_amount(message.max_bet, legal.max_bet)
    if legal.show_amount is not None:
        put_amount(message.show_amount, legal.show_amount)
    if legal.dark_min is not None and legal.dark_max is not None:
        put_amount(message.dark_bet.min, legal.dark_min)
        put_amount(message.dark_bet.max, legal.dark_max)
    if legal.support_amount is not None:
        put_amount(message.support, legal.support_amount)
    if legal.raise_min is not None and legal.raise_max is not None:
        put_amount(message.raise_to.min, legal.raise_min)
        put_amount(message.raise_to.max, legal.raise_max)
    if stakes:
        message.stake_factor = legal.pay_factor
    if legal.open_amount is not None:
        put_amount(message.open, legal.open_amount)
    if legal.call_amount is not None:
        put_amount(message.call, legal.call_amount)
    if legal.multiway_amount is not None and legal.multiway_target is not None:
        put_amount(message.multiway_open.amount, legal.multiway_amount)
        message.multiway_open.against = legal.multiway_target


def turn_request(view: TurnView, *, session_id: str, notices: Sequence[pb.Notice] = ()) -> pb.TurnRequest:
    """The seat's turn, carrying `notices`: those it has not been sent yet, oldest first."""
    unseen = {view.seat} if not view.seen else set()
    if view.dark is not None:
        unseen.add(view.dark)
    request = pb.TurnRequest(
        session_id=session_id,
        pot_number=view.pot_number,
        replay=view.replay,
        dealer=view.dealer,
        seat=view.seat,
        cards=[str(card) for card in view.cards],
        in_deal=view.in_deal,
        actions_count=view.actions_in_deal,
        max_actions=view.max_actions,
        notices=notices,
        cards_unseen=not view.seen,
        unseen=sorted(unseen),
    )
    _put_seats(request.seats, view.bots)
    put_amount(request.pot, view.pot)
    _put_amounts(request.balances, view.balances)
    actions = request.actions
    for action in view.actions:
        message = actions.add()
        message.seat = action.seat
        message.kind = _ACTION_KINDS[action.kind]
        put_amount(message.amount, action.amount)
        message.fault = _FAULTS[action.fault]
        if action.stake is not None:
            put_amount(message.stake, action.stake)
    svaras = request.svaras
    for svara in view.svaras:
        round_ = svaras.add()
        put_amount(round_.frozen_pot, svara.declared.frozen_pot)
        put_amount(round_.price, svara.declared.price)
        round_.tied.extend(svara.declared.tied)
        round_.eligible.extend(svara.declared.eligible)
        _put_entries(round_.entries, svara.answers)
    _put_legal(request.legal, view.legal, stakes=view.stake is not None)
    if view.stacks:
        _put_amounts(request.stacks, view.stacks)
    if view.previous_bet is not None:
        put_amount(request.previous_bet, view.previous_bet)
    if view.stake is not None:
        put_amount(request.stake, view.stake)
    return request


def svara_offer(view: SvaraView, *, session_id: str, notices: Sequence[pb.Notice] = ()) -> pb.SvaraOffer:
    """The seat's svara offer, carrying `notices`: those it has not been sent yet, oldest first."""
    offer = pb.SvaraOffer(
        session_id=session_id,
        pot_number=view.pot_number,
        replay=view.replay,
        seat=view.seat,
        tied=view.tied,
        eligible=view.eligible,
        dealer=view.dealer,
        notices=notices,
    )
    put_amount(offer.frozen_pot, view.frozen_pot)
    put_amount(offer.price, view.price)
    _put_entries(offer.answers, view.answers)
    _put_amounts(offer.balances, view.balances)
    if view.stacks:
        _put_amounts(offer.stacks, view.stacks)
    return offer


def action_from_reply(reply: pb.TurnReply) -> Action | Mix:
    """The engine action a turn reply asks for, or the well-formed `Mix` of a mixed reply (whether its
    actions are legal is `verify_reply`'s to say); `MalformedReplyError` when it names none properly."""
    _refuse_unknown_fields(reply)
    choice = reply.WhichOneof("action")
    if choice is None:
        raise MalformedReplyError(f"the reply sets none of {', '.join(_CHOICES)}")
    if choice == "mix":
        return _mix(reply.mix)
    return _action(reply, choice)


def _action(reply: pb.TurnReply | pb.WeightedAction, choice: str) -> Action:
    if choice in _EMPTY_ACTIONS:
        return _EMPTY_ACTIONS[choice]
    if choice == "bet":
        return Bet(_amount(reply.bet, "amount", "a bet"))
    if choice == "dark_bet":
        return DarkBet(_amount(reply.dark_bet, "amount", "a dark bet"))
    assert choice == "raise_to", choice  # every case of the oneof is handled above
    return Raise(_amount(reply.raise_to, "stake", "a raise"))


def _mix(message: pb.MixedAction) -> Mix:
    """A mixed reply's distribution, checked to be well formed (`Mix.problem`)."""
    if len(message.entries) > MAX_MIX_ENTRIES:  # refused before any entry is converted
        raise MalformedReplyError(f"a mix of {len(message.entries)} entries; at most {MAX_MIX_ENTRIES} are allowed")
    entries: list[tuple[Action, float]] = []
    for position, entry in enumerate(message.entries, start=1):
        if len(UnknownFieldSet(entry)):  # a look (51, reserved) or some other message's field
            raise MalformedReplyError(f"entry {position} of the mix carries fields a WeightedAction does not have")
        choice = entry.WhichOneof("action")
        if choice is None:
            raise MalformedReplyError(f"entry {position} of the mix sets none of {', '.join(_MIX_CHOICES)}")
        try:
            action = _action(entry, choice)
        except MalformedReplyError as error:
            raise MalformedReplyError(f"entry {position} of the mix: {error.detail}") from None
        entries.append((action, entry.probability))
    mix = Mix(tuple(entries))
    problem = mix.problem()
    if problem is not None:
        raise MalformedReplyError(f"a malformed mix: {problem}")
    return mix


_CHOICES = tuple(field.name for field in pb.TurnReply.DESCRIPTOR.oneofs_by_name["action"].fields)
_MIX_CHOICES = tuple(field.name for field in pb.WeightedAction.DESCRIPTOR.oneofs_by_name["action"].fields)


def _amount(message: pb.BetAction | pb.DarkBetAction | pb.RaiseToAction, name: str, what: str) -> Amount:
    if not message.HasField(name):
        raise MalformedReplyError(f"{what} without {'an amount' if name == 'amount' else 'a stake'}")
    try:
        return amount_from_proto(getattr(message, name))
    except ValueError as error:
        raise MalformedReplyError(str(error)) from None


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
