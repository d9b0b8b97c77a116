"""Every sample bot, started as a real process on a unix socket and on TCP, answers legally."""

from __future__ import annotations

import math
from collections.abc import Iterator
from fractions import Fraction

import grpc
import pytest
from grpc_health.v1 import health_pb2

from arena._proto.seka.v1 import seka_pb2 as pb
from arena.engine import GEORGIAN, SessionState, parse_cards, seeded_shuffler, stacked_shuffler

from ._launch import BOT_COMMANDS, RunningBot, free_tcp_address, launched, skip_unless_runnable
from ._referee import amount, calling_local, play, random_local, read_amount

# Unix sockets get the address through SEKA_BOT_ADDRESS, TCP through --address (with a decoy in
# the environment), so both halves of the launch contract are exercised for every bot.
CASES = [(name, transport) for name in BOT_COMMANDS for transport in ("unix", "tcp")]
TIMEOUT = 5.0
DECISION_BUDGET = 1.0  # seconds: the arena's default decision limit (speed itself is measured in benchmarks/)


@pytest.fixture(scope="module", params=CASES, ids=[f"{name}-{transport}" for name, transport in CASES])
def bot(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningBot]:
    name, transport = request.param
    skip_unless_runnable(name)
    directory = tmp_path_factory.mktemp(f"{name}-{transport}")
    log = directory / f"{name}.log"
    if transport == "unix":
        with launched(name, f"unix:{directory / 'bot.sock'}", log, via="env") as running:
            yield running
    else:
        with launched(name, free_tcp_address(), log, via="argv") as running:
            assert not log.with_suffix(".decoy.sock").exists(), "--address must win over SEKA_BOT_ADDRESS"
            yield running


def legal_bounds(request: pb.TurnRequest) -> tuple[Fraction, Fraction]:
    return Fraction(read_amount(request.legal.min_bet)), Fraction(read_amount(request.legal.max_bet))


def assert_legal(reply: pb.TurnReply, request: pb.TurnRequest) -> None:
    """A legal action, or a well-formed mix of legal actions (docs/protocol.md, "Mixed replies")."""
    if reply.WhichOneof("action") == "mix":
        entries = reply.mix.entries
        assert 1 <= len(entries) <= 64 and all(math.isfinite(e.probability) and e.probability >= 0 for e in entries)
        assert abs(math.fsum(entry.probability for entry in entries) - 1) <= 1e-9, reply
        for entry in entries:
            _assert_legal_action(entry, request)
    else:
        _assert_legal_action(reply, request)


def kinds(reply: pb.TurnReply) -> set[str | None]:
    """The actions a reply names: its own, or every entry of its mix."""
    if reply.WhichOneof("action") == "mix":
        return {entry.WhichOneof("action") for entry in reply.mix.entries}
    return {reply.WhichOneof("action")}


def _assert_legal_action(reply: pb.TurnReply | pb.WeightedAction, request: pb.TurnRequest) -> None:
    choice = reply.WhichOneof("action")
    assert choice in ("fold", "bet", "show"), f"no action in {reply}"
    if choice == "show":
        assert request.legal.can_show, f"showed when not allowed: {request}"
    if choice == "bet":
        assert reply.bet.HasField("amount")
        assert reply.bet.amount.denominator >= 0
        low, high = legal_bounds(request)
        assert low <= read_amount(reply.bet.amount) <= high, f"bet {reply.bet.amount} outside [{low}, {high}]"


def turn(cards: str, *, previous: Fraction | int | None = None, in_deal: tuple[int, ...] = (0, 1, 2),
         pot: Fraction | int = 3, actions_count: int = 0, max_bet: int = 10) -> pb.TurnRequest:
    request = pb.TurnRequest(
        session_id="s-1", pot_number=1, replay=0, dealer=2, seat=0, cards=[str(c) for c in parse_cards(cards)],
        seats=[pb.Seat(seat=seat, bot=f"bot{seat}") for seat in range(3)], in_deal=in_deal, pot=amount(pot),
        balances=[amount(-1), amount(-1), amount(-1)], actions_count=actions_count, max_actions=200,
        legal=pb.LegalActions(min_bet=amount(1 if previous is None else previous), max_bet=amount(max_bet)))
    if previous is not None:
        request.previous_bet.CopyFrom(amount(previous))
        request.actions.append(pb.PublicAction(seat=2, kind=pb.ACTION_KIND_BET, amount=amount(previous)))
        if len(in_deal) == 2:
            request.legal.can_show = True
            request.legal.show_amount.CopyFrom(amount(previous))
    return request


def test_health_reports_serving(bot: RunningBot) -> None:
    for service in ("", "seka.v1.SekaBot"):
        reply = bot.health.Check(health_pb2.HealthCheckRequest(service=service), timeout=TIMEOUT)
        assert reply.status == health_pb2.HealthCheckResponse.SERVING
    with pytest.raises(grpc.RpcError) as raised:
        bot.health.Check(health_pb2.HealthCheckRequest(service="no.such.Service"), timeout=TIMEOUT)
    assert raised.value.code() == grpc.StatusCode.NOT_FOUND


def test_health_watch_sends_current_status(bot: RunningBot) -> None:
    stream = bot.health.Watch(health_pb2.HealthCheckRequest(service=""), timeout=TIMEOUT)
    assert next(stream).status == health_pb2.HealthCheckResponse.SERVING
    stream.cancel()


def test_hello_names_the_bot(bot: RunningBot) -> None:
    reply = bot.stub.Hello(pb.HelloRequest(
        protocol_version="seka.v1", profile="georgian",
        table=pb.TableSettings(ante=amount(1), opening_stake=amount(1), max_bet=amount(10), max_actions=200,
                               pots_per_session=8, seats=3),
        limits=pb.TimeLimits(decision_ms=100, time_bank_ms=0, start_deadline_ms=10_000),
        session_id="s-1", seat=0), timeout=TIMEOUT)
    assert reply.protocol_version == "seka.v1"
    assert reply.name


@pytest.mark.parametrize("cards", ["AcAdAh", "AhKhQh", "Td8d6d", "AhAs7d", "Kh9d7s", "6c7d8s"])
@pytest.mark.parametrize("situation", ["opening", "call", "heads-up", "fractional", "late"])
def test_act_replies_legally(bot: RunningBot, cards: str, situation: str) -> None:
    request = {
        "opening": lambda: turn(cards),
        "call": lambda: turn(cards, previous=4, pot=7),
        "heads-up": lambda: turn(cards, previous=3, in_deal=(0, 2), pot=9),
        "fractional": lambda: turn(cards, previous=Fraction(15, 2), in_deal=(0, 1), pot=Fraction(51, 2)),
        "late": lambda: turn(cards, previous=10, in_deal=(0, 1), pot=123, actions_count=150),
    }[situation]()
    assert_legal(bot.stub.Act(request, timeout=TIMEOUT), request)


def test_act_replies_legally_when_max_bet_is_huge(bot: RunningBot) -> None:
    # A table may allow bets up to 2^62 (the protocol's integers are 64-bit): a bot must still
    # answer at once, not build a list of every amount it could bet.
    bets = 0
    for situation in range(12):
        request = turn("Kh9d7s", previous=None if situation % 2 else Fraction(7, 2), max_bet=2**62)
        reply = bot.stub.Act(request, timeout=TIMEOUT)
        assert_legal(reply, request)
        bets += "bet" in kinds(reply)
    assert bets, "no bet in 12 turns: the huge bound was never exercised"


def test_act_reads_svaras_and_faults(bot: RunningBot) -> None:
    request = turn("Td8d6d", previous=2, in_deal=(0, 1), pot=Fraction(31, 2))
    request.replay = 1
    request.svaras.append(pb.SvaraRound(
        frozen_pot=amount(7), price=amount(Fraction(7, 2)), tied=[0, 1], eligible=[2],
        entries=[pb.SvaraEntry(seat=2, accepted=False, fault=pb.FAULT_TIMEOUT)]))
    request.actions.insert(0, pb.PublicAction(seat=2, kind=pb.ACTION_KIND_FOLD, amount=amount(0),
                                              fault=pb.FAULT_CRASH))
    assert_legal(bot.stub.Act(request, timeout=TIMEOUT), request)


def test_svara_offer_gets_an_answer(bot: RunningBot) -> None:
    offer = pb.SvaraOffer(
        session_id="s-1", pot_number=3, replay=1, seat=0, dealer=1, frozen_pot=amount(15),
        price=amount(Fraction(15, 2)),
        tied=[2, 1], eligible=[3, 0], answers=[pb.SvaraEntry(seat=3, accepted=True)],
        balances=[amount(-4), amount(-6), amount(-6), amount(Fraction(-19, 2))])
    reply = bot.stub.Svara(offer, timeout=TIMEOUT)
    assert reply.accept in (True, False)


def test_every_notice_gets_an_empty_reply(bot: RunningBot) -> None:
    seats = [pb.Seat(seat=0, bot="me"), pb.Seat(seat=1, bot="you")]
    notices = [
        pb.Notice(session_id="s-1", deal=pb.DealNotice(
            pot_number=1, replay=0, dealer=1, seat=0, cards=["Th", "Ts", "6c"], seats=seats, players=[0, 1],
            balances=[amount(-1), amount(-1)], pot=amount(2))),
        pb.Notice(session_id="s-1", showdown=pb.ShowdownNotice(
            pot_number=1, replay=0, kind=pb.SHOWDOWN_KIND_HEADS_UP, winner=1,
            hands=[pb.ShownHand(seat=0, cards=["Th", "Ts", "6c"], value="10"),
                   pb.ShownHand(seat=1, cards=["Ah", "Kh", "6h"], value="27")])),
        pb.Notice(session_id="s-1", showdown=pb.ShowdownNotice(
            pot_number=1, replay=0, kind=pb.SHOWDOWN_KIND_ACTION_CAP,
            hands=[pb.ShownHand(seat=0, cards=["Ac", "As", "6c"], value="22"),
                   pb.ShownHand(seat=1, cards=["Ah", "Ad", "6h"], value="22")])),
        pb.Notice(session_id="s-1", pot_result=pb.PotResultNotice(
            pot_number=1, winner=1, amount=amount(8), shown=True, balances=[amount(-4), amount(4)])),
        pb.Notice(session_id="s-1", session_end=pb.SessionEndNotice(
            balances=[amount(-4), amount(4)], winners=[1])),
    ]
    for notice in notices:
        assert bot.stub.Notify(notice, timeout=TIMEOUT) == pb.NoticeReply()
    # As the arena sends it: the session's end carrying the notices before it.
    end = notices[-1]
    end.session_end.notices.extend(notices[:-1])
    assert bot.stub.Notify(end, timeout=TIMEOUT) == pb.NoticeReply()


def test_plays_a_whole_session_legally(bot: RunningBot) -> None:
    rules = GEORGIAN.with_table(max_actions=12)  # a low cap, so forced reveals and svaras happen
    state = SessionState(rules, bots=["bot", "left", "right"], seed=f"sdk-{bot.name}")
    report = play(bot.stub, state, seat=0, names=["bot", "left", "right"],
                  local=random_local, seed=1)
    assert report.decisions > 0
    assert report.notices["deal"] >= 8 and report.notices["pot_result"] == 8 and report.notices["session_end"] == 1
    assert report.nested >= 8  # most of them inside requests
    assert report.slowest < DECISION_BUDGET, f"slowest decision took {report.slowest * 1000:.0f} ms"


def test_svara_offer_in_play(bot: RunningBot) -> None:
    # Seats 1 and 2 hold equal 31s and always call; seat 0 (the bot) holds 8. Whatever the bot
    # does, the action cap makes the others reveal, they tie, and the bot is offered re-entry.
    rules = GEORGIAN.with_table(max_actions=9, pots_per_session=1)
    stacked = {(1, 0): {0: parse_cards("6c7d8s"), 1: parse_cards("AhKhQh"), 2: parse_cards("AsKsQs")}}
    state = SessionState(rules, bots=["bot", "left", "right"], seed="svara", first_dealer=2,
                         shuffler=stacked_shuffler(stacked, seeded_shuffler("svara", rules.deck)))
    report = play(bot.stub, state, seat=0, names=["bot", "left", "right"], local=calling_local)
    assert report.svara_offers >= 1
    assert report.notices["showdown"] >= 1
    assert report.slowest < DECISION_BUDGET, f"slowest decision took {report.slowest * 1000:.0f} ms"
