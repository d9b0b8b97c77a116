"""A minimal synchronous arena for the SDK tests: one seat is a real bot over gRPC, the others
are local policies, and the engine judges every reply.

It builds the requests from the engine's state and events on its own (not through the arena's
transport), so these tests pin the protocol as docs/protocol.md describes it.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from arena._proto.seka.v1 import seka_pb2 as pb
from arena._proto.seka.v1 import seka_pb2_grpc as pb_grpc
from arena.engine import (
    Acted,
    Action,
    Amount,
    Bet,
    Dealt,
    Entered,
    Fold,
    IllegalActionError,
    Mix,
    Phase,
    PotWon,
    Revealed,
    SessionEnded,
    SessionState,
    Show,
    ShowdownHeld,
    SvaraDeclared,
)

_KINDS = {"bet": pb.ACTION_KIND_BET, "fold": pb.ACTION_KIND_FOLD, "show": pb.ACTION_KIND_SHOW}
_FAULTS = {"timeout": pb.FAULT_TIMEOUT, "illegal": pb.FAULT_ILLEGAL, "malformed": pb.FAULT_MALFORMED,
           "crash": pb.FAULT_CRASH}

LocalPolicy = Callable[[SessionState, random.Random], Action | bool]


def amount(value: Amount) -> pb.Amount:
    value = Fraction(value)
    return pb.Amount(numerator=value.numerator, denominator=value.denominator)


def read_amount(message: pb.Amount) -> Amount:
    assert message.denominator >= 0, f"negative denominator in {message}"
    value = Fraction(message.numerator, message.denominator or 1)
    return value.numerator if value.denominator == 1 else value


def action_from_reply(reply: pb.TurnReply) -> Action | Mix:
    """The action a reply names, or its mix (docs/protocol.md, "Mixed replies") for the engine to draw from."""
    choice = reply.WhichOneof("action")
    if choice == "mix":
        return Mix(tuple((_action(entry, entry.WhichOneof("action")), entry.probability)
                         for entry in reply.mix.entries))
    return _action(reply, choice)


def _action(reply: pb.TurnReply | pb.WeightedAction, choice: str | None) -> Action:
    if choice == "fold":
        return Fold()
    if choice == "show":
        return Show()
    assert choice == "bet", f"malformed reply, no action set: {reply}"
    assert reply.bet.HasField("amount"), f"malformed reply, a bet without an amount: {reply}"
    return Bet(read_amount(reply.bet.amount))


def _last_index(events: Sequence[object], kind: type, test: Callable[[object], bool] = lambda _: True) -> int:
    for index in range(len(events) - 1, -1, -1):
        if isinstance(events[index], kind) and test(events[index]):
            return index
    raise AssertionError(f"no {kind.__name__} event")


def _seats(state: SessionState, names: Sequence[str]) -> list[pb.Seat]:
    return [pb.Seat(seat=seat, bot=name) for seat, name in enumerate(names)]


def _entry(event: Entered) -> pb.SvaraEntry:
    fault = _FAULTS[event.fault.value] if event.fault is not None else pb.FAULT_UNSPECIFIED
    return pb.SvaraEntry(seat=event.seat, accepted=event.accepted, fault=fault)


def turn_request(state: SessionState, names: Sequence[str], session_id: str) -> pb.TurnRequest:
    events = state.events
    deal_start = _last_index(events, Dealt)
    pot_start = _last_index(events, Dealt, lambda event: event.replay == 0)  # type: ignore[attr-defined]
    legal = state.legal_actions()
    seat = legal.seat
    svaras: list[pb.SvaraRound] = []
    for event in events[pot_start:deal_start]:
        if isinstance(event, SvaraDeclared):
            svaras.append(pb.SvaraRound(frozen_pot=amount(event.frozen_pot), price=amount(event.price),
                                        tied=event.tied, eligible=event.eligible))
        elif isinstance(event, Entered):
            svaras[-1].entries.append(_entry(event))
    request = pb.TurnRequest(
        session_id=session_id,
        pot_number=state.pot_number,
        replay=state.replay,
        dealer=state.dealer,
        seat=seat,
        cards=[str(card) for card in state.hands[seat]],
        seats=_seats(state, names),
        in_deal=state.in_deal,
        pot=amount(state.pot),
        balances=[amount(balance) for balance in state.balances],
        actions=[pb.PublicAction(seat=event.seat, kind=_KINDS[event.kind], amount=amount(event.amount),
                                 fault=_FAULTS[event.fault.value] if event.fault else pb.FAULT_UNSPECIFIED)
                 for event in events[deal_start:] if isinstance(event, Acted)],
        svaras=svaras,
        actions_count=state.actions_in_deal,
        max_actions=state.rules.max_actions,
        legal=pb.LegalActions(min_bet=amount(legal.min_bet), max_bet=amount(legal.max_bet), can_show=legal.can_show),
    )
    if state.previous_bet is not None:
        request.previous_bet.CopyFrom(amount(state.previous_bet))
    if legal.show_amount is not None:
        request.legal.show_amount.CopyFrom(amount(legal.show_amount))
    return request


def svara_offer(state: SessionState, session_id: str) -> pb.SvaraOffer:
    events = state.events
    declared_at = _last_index(events, SvaraDeclared)
    declared = events[declared_at]
    assert isinstance(declared, SvaraDeclared) and state.to_act is not None
    return pb.SvaraOffer(
        session_id=session_id,
        pot_number=state.pot_number,
        replay=state.replay + 1,
        seat=state.to_act,
        frozen_pot=amount(declared.frozen_pot),
        price=amount(declared.price),
        tied=declared.tied,
        eligible=declared.eligible,
        answers=[_entry(event) for event in events[declared_at + 1 :] if isinstance(event, Entered)],
        balances=[amount(balance) for balance in state.balances],
        dealer=state.dealer,
    )


def notices(state: SessionState, events: Sequence[object], seat: int, names: Sequence[str], session_id: str,
            deal: tuple[int, int]) -> list[pb.Notice]:
    """What `seat` is told about `events`, the batch that just happened in `deal` (pot, replay).

    `state` is after the batch, which ends with the antes of a new deal when one was dealt.
    """
    told: list[pb.Notice] = []
    pot_number, replay = deal
    for event in events:
        if isinstance(event, Dealt) and seat in event.hands:
            told.append(pb.Notice(session_id=session_id, deal=pb.DealNotice(
                pot_number=event.pot, replay=event.replay, dealer=event.dealer, seat=seat,
                cards=[str(card) for card in event.hands[seat]], seats=_seats(state, names),
                players=sorted(event.hands), balances=[amount(balance) for balance in state.balances],
                pot=amount(state.pot))))
        elif isinstance(event, (ShowdownHeld, Revealed)):
            showdown = pb.ShowdownNotice(
                pot_number=pot_number, replay=replay,
                kind=pb.SHOWDOWN_KIND_HEADS_UP if isinstance(event, ShowdownHeld) else pb.SHOWDOWN_KIND_ACTION_CAP,
                hands=[pb.ShownHand(seat=shown, cards=[str(card) for card in event.hands[shown]],
                                    value=event.values[shown].label) for shown in event.seats])
            if event.winner is not None:
                showdown.winner = event.winner
            told.append(pb.Notice(session_id=session_id, showdown=showdown))
        elif isinstance(event, PotWon):
            balances = list(state.balances)
            if not state.is_finished:  # the next deal's antes are already paid: take them back
                balances = [balance + state.rules.ante for balance in balances]
            told.append(pb.Notice(session_id=session_id, pot_result=pb.PotResultNotice(
                pot_number=event.pot, winner=event.seat, amount=amount(event.amount), shown=event.shown,
                balances=[amount(balance) for balance in balances])))
        elif isinstance(event, SessionEnded):
            told.append(pb.Notice(session_id=session_id, session_end=pb.SessionEndNotice(
                balances=[amount(balance) for balance in event.balances], winners=event.winners)))
    return told


def random_local(state: SessionState, rng: random.Random) -> Action | bool:
    """A seeded random local player that also pays fractional amounts, to exercise fractions."""
    if state.phase is Phase.SVARA_OFFER:
        return rng.random() < 0.5
    legal = state.legal_actions()
    roll = rng.random()
    if roll < 0.15:
        return Fold()
    if roll < 0.45 and legal.can_show:
        return Show()
    low, high = Fraction(legal.min_bet), Fraction(legal.max_bet)
    if roll < 0.6 and low + Fraction(1, 2) <= high:
        return Bet(low + Fraction(1, 2))
    return Bet(rng.randint(math.ceil(low), math.floor(high)))


def calling_local(state: SessionState, rng: random.Random) -> Action | bool:
    if state.phase is Phase.SVARA_OFFER:
        return False
    return Bet(state.legal_actions().min_bet)


@dataclass
class Report:
    decisions: int = 0
    svara_offers: int = 0
    notices: dict[str, int] = field(default_factory=dict)
    """Every notice told, by kind, inside a request or by Notify."""
    nested: int = 0
    """How many of them went inside a request: an Act, a Svara or the session's end."""
    slowest: float = 0.0
    """Seconds of the slowest decision call."""


def play(stub: pb_grpc.SekaBotStub, state: SessionState, *, seat: int, names: Sequence[str],
         local: LocalPolicy, session_id: str = "test-session", seed: int = 0, timeout: float = 5.0) -> Report:
    """Play `state` to the end with the bot behind `stub` at `seat`; every reply must be legal.

    As the arena does, the notices go inside the bot's next Act or Svara request, oldest first;
    at the end one Notify sends the session's end, carrying those left.
    """
    rng = random.Random(seed)
    report = Report()
    hello = stub.Hello(pb.HelloRequest(
        protocol_version="seka.v1", profile=state.rules.name,
        table=pb.TableSettings(ante=amount(state.rules.ante), opening_stake=amount(state.rules.opening_stake),
                               max_bet=amount(state.rules.max_bet), max_actions=state.rules.max_actions,
                               pots_per_session=state.rules.pots_per_session, seats=state.seats),
        limits=pb.TimeLimits(decision_ms=100, time_bank_ms=0, start_deadline_ms=10_000),
        session_id=session_id, seat=seat), timeout=timeout)
    assert hello.protocol_version == "seka.v1" and hello.name
    names = list(names)
    names[seat] = hello.name

    pending: list[pb.Notice] = []  # told inside the bot's next Act or Svara, or by Notify at the end

    def tell(events: Sequence[object], deal: tuple[int, int]) -> None:
        for notice in notices(state, events, seat, names, session_id, deal):
            pending.append(notice)
            kind = notice.WhichOneof("notice")
            report.notices[kind] = report.notices.get(kind, 0) + 1

    def take() -> list[pb.Notice]:
        taken = list(pending)
        pending.clear()
        report.nested += len(taken)
        return taken

    tell(state.events, (state.pot_number, state.replay))
    while not state.is_finished:
        deal = (state.pot_number, state.replay)
        if state.to_act != seat:
            decision = local(state, rng)
            events = state.answer_svara(decision) if isinstance(decision, bool) else state.apply(decision)
        elif state.phase is Phase.BETTING:
            request = turn_request(state, names, session_id)
            request.notices.extend(take())
            started = time.perf_counter()
            reply = stub.Act(request, timeout=timeout)
            report.slowest = max(report.slowest, time.perf_counter() - started)
            report.decisions += 1
            action = action_from_reply(reply)
            try:
                events = state.apply_mix(action) if isinstance(action, Mix) else state.apply(action)
            except IllegalActionError as error:
                raise AssertionError(f"illegal reply {reply} to {request}: {error}") from None
        else:
            request = svara_offer(state, session_id)
            request.notices.extend(take())
            started = time.perf_counter()
            answer = stub.Svara(request, timeout=timeout)
            report.slowest = max(report.slowest, time.perf_counter() - started)
            report.svara_offers += 1
            events = state.answer_svara(answer.accept)
        tell(events, deal)
    *left, end = pending
    end.session_end.notices.extend(left)  # the session's end, carrying what is left
    report.nested += len(left)
    assert stub.Notify(end, timeout=timeout) == pb.NoticeReply()
    return report
