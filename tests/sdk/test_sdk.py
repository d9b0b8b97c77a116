"""The Python SDK: conversions, the served `Bot` over a real channel, and `run`'s launch contract."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from arena._proto.seka.v1 import seka_pb2 as pb
from arena._proto.seka.v1 import seka_pb2_grpc as pb_grpc
from arena.engine import RulesError, hand_evaluator
from arena.sdk import (
    Bet,
    Bot,
    BotServerError,
    Deal,
    Fold,
    Hello,
    PotResult,
    SessionEnd,
    Show,
    Showdown,
    SvaraOffer,
    Turn,
    amount_from_proto,
    amount_to_proto,
    hand_evaluator_for,
    hand_value,
    resolve_address,
    serve,
)

from ._launch import CHANNEL_OPTIONS, REPO, wait_until_serving
from ._referee import amount

TIMEOUT = 5.0


# ------------------------------------------------------------------ conversions


def test_amount_denominator_zero_reads_as_one() -> None:
    assert amount_from_proto(pb.Amount(numerator=7)) == 7
    assert amount_from_proto(pb.Amount(numerator=7, denominator=0)) == 7
    assert type(amount_from_proto(pb.Amount(numerator=6, denominator=2))) is int


def test_amount_fractions_are_exact() -> None:
    assert amount_from_proto(pb.Amount(numerator=30, denominator=4)) == Fraction(15, 2)
    assert amount_from_proto(pb.Amount(numerator=-19, denominator=2)) == Fraction(-19, 2)


def test_amount_negative_denominator_is_malformed() -> None:
    with pytest.raises(ValueError, match="negative"):
        amount_from_proto(pb.Amount(numerator=1, denominator=-2))


def test_amount_to_proto_is_lowest_terms_and_refuses_inexact_numbers() -> None:
    assert amount_to_proto(Fraction(10, 4)) == pb.Amount(numerator=5, denominator=2)
    assert amount_to_proto(3) == pb.Amount(numerator=3, denominator=1)
    for inexact in (2.5, True, "3"):
        with pytest.raises(TypeError):
            amount_to_proto(inexact)  # type: ignore[arg-type]


def test_hand_value_helper() -> None:
    assert hand_value(["Td", "8d", "6d"]).label == "24"
    assert hand_value(["6c", "6d", "6h"]) > hand_value(["Ah", "Kh", "Qh"])


def test_address_flag_wins_over_environment() -> None:
    env = {"SEKA_BOT_ADDRESS": "127.0.0.1:1"}
    assert resolve_address(["--address", "unix:/tmp/a.sock"], env) == "unix:/tmp/a.sock"
    assert resolve_address(["--seed", "3", "--address=127.0.0.1:2"], env) == "127.0.0.1:2"
    assert resolve_address(["--seed", "3"], env) == "127.0.0.1:1"
    assert resolve_address([], {}) is None


# ------------------------------------------------------------------ a served bot, in process


class RecordingBot(Bot):
    """Remembers what it was given; misbehaves on request, through its cards."""

    def __init__(self) -> None:
        self.seen: list[Any] = []

    def on_hello(self, hello: Hello) -> None:
        self.seen.append(hello)

    def act(self, turn: Turn) -> Any:
        self.seen.append(turn)
        if turn.cards[0] == "6c":
            raise RuntimeError("boom")
        if turn.cards[0] == "7c":
            return "fold"
        if turn.cards[0] == "8c":
            return Bet(2.5)  # type: ignore[arg-type]
        if turn.can_show:
            return Show()
        return Bet(turn.min_bet) if turn.previous_bet is None else Fold()

    def on_deal(self, deal: Deal) -> None:
        self.seen.append(deal)

    def on_showdown(self, showdown: Showdown) -> None:
        self.seen.append(showdown)

    def on_pot_result(self, result: PotResult) -> None:
        self.seen.append(result)

    def on_session_end(self, end: SessionEnd) -> None:
        self.seen.append(end)


class Served:
    def __init__(self, bot: Bot, address: str) -> None:
        self.bot = bot
        self.server = serve(bot, address)
        self.channel = grpc.insecure_channel(address, options=CHANNEL_OPTIONS)
        self.stub = pb_grpc.SekaBotStub(self.channel)
        self.health = health_pb2_grpc.HealthStub(self.channel)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    running = Served(RecordingBot(), f"unix:{tmp_path / 'bot.sock'}")
    yield running
    running.channel.close()
    running.server.stop(grace=None)


def turn_request(cards: list[str], **fields: Any) -> pb.TurnRequest:
    request = pb.TurnRequest(
        session_id="s", pot_number=2, replay=1, dealer=1, seat=0, cards=cards,
        seats=[pb.Seat(seat=1, bot="b"), pb.Seat(seat=0, bot="a")], in_deal=[0, 1], pot=amount(Fraction(31, 2)),
        balances=[amount(Fraction(-15, 2)), amount(-4)],
        actions=[pb.PublicAction(seat=1, kind=pb.ACTION_KIND_BET, amount=amount(2)),
                 pb.PublicAction(seat=2, kind=pb.ACTION_KIND_FOLD, amount=amount(0), fault=pb.FAULT_TIMEOUT)],
        svaras=[pb.SvaraRound(frozen_pot=amount(7), price=amount(Fraction(7, 2)), tied=[0, 1], eligible=[2],
                              entries=[pb.SvaraEntry(seat=2, accepted=True)])],
        actions_count=2, max_actions=200,
        legal=pb.LegalActions(min_bet=amount(2), max_bet=amount(10), can_show=True, show_amount=amount(2)),
        **fields)
    request.previous_bet.CopyFrom(amount(2))
    return request


def test_served_bot_reports_serving_for_both_names(served: Served) -> None:
    for service in ("", "seka.v1.SekaBot"):
        reply = served.health.Check(health_pb2.HealthCheckRequest(service=service), timeout=TIMEOUT)
        assert reply.status == health_pb2.HealthCheckResponse.SERVING


def test_hello_reply_and_conversion(served: Served) -> None:
    reply = served.stub.Hello(pb.HelloRequest(
        protocol_version="seka.v1", profile="georgian",
        table=pb.TableSettings(ante=amount(1), opening_stake=amount(1), max_bet=amount(10), max_actions=200,
                               pots_per_session=8, seats=4),
        limits=pb.TimeLimits(decision_ms=100, time_bank_ms=2000, start_deadline_ms=10_000),
        session_id="s", seat=3), timeout=TIMEOUT)
    assert (reply.name, reply.version, reply.protocol_version) == ("RecordingBot", "0", "seka.v1")
    hello = served.bot.seen[-1]  # type: ignore[attr-defined]
    assert isinstance(hello, Hello)
    assert (hello.seat, hello.table.seats, hello.table.max_bet, hello.limits.time_bank_ms) == (3, 4, 10, 2000)


def test_turn_conversion(served: Served) -> None:
    reply = served.stub.Act(turn_request(["Ah", "Kh", "Qh"]), timeout=TIMEOUT)
    assert reply.WhichOneof("action") == "show"
    turn = served.bot.seen[-1]  # type: ignore[attr-defined]
    assert isinstance(turn, Turn)
    assert turn.cards == ("Ah", "Kh", "Qh") and turn.hand_value().label == "31"
    assert turn.bots == ("a", "b")  # by seat, whatever order the seats came in
    assert turn.pot == Fraction(31, 2) and turn.balances == (Fraction(-15, 2), -4)
    assert turn.previous_bet == 2 and turn.min_bet == 2 and turn.max_bet == 10
    assert turn.can_show and turn.show_amount == 2 and turn.opponents == (1,)
    actions = [(a.seat, a.kind, a.amount, a.fault) for a in turn.actions]
    assert actions == [(1, "bet", 2, None), (2, "fold", 0, "timeout")]
    assert turn.svaras[0].price == Fraction(7, 2) and turn.svaras[0].entries[0].accepted
    assert turn.time_left is not None and 0 < turn.time_left <= TIMEOUT + 0.1  # the wire rounds deadlines


@pytest.mark.parametrize(("profile", "options", "cards", "label"), [
    ("georgian", {}, ["6h", "6d", "7c"], "7"),
    ("seka36", {}, ["6h", "6d", "7c"], "34"),  # the wild 7♣ completes three sixes, the top hand
    ("svara32", {}, ["8d", "8c", "7c"], "27"),
    ("seka21", {}, ["Kh", "Kd", "Qs"], "20"),
    ("classic", {}, ["Th", "9h", "7c"], "30"),
    ("classic", {"wild": "none", "dark": "true"}, ["Th", "9h", "7c"], "19"),  # the greeting's options count
])
def test_turn_hand_value_follows_the_profile_of_the_hello(served: Served, profile: str, options: dict[str, str],
                                                          cards: list[str], label: str) -> None:
    served.stub.Hello(pb.HelloRequest(protocol_version="seka.v1", profile=profile, options=options, session_id="s"),
                      timeout=TIMEOUT)
    assert served.bot.seen[-1].hand_evaluator() is hand_evaluator_for(profile, options)  # type: ignore[attr-defined]
    served.stub.Act(turn_request(cards), timeout=TIMEOUT)
    assert served.bot.seen[-1].hand_value().label == label  # type: ignore[attr-defined]


def test_a_profile_the_sdk_does_not_know_leaves_the_bot_playing(served: Served) -> None:
    served.stub.Hello(pb.HelloRequest(protocol_version="seka.v1", profile="poker", session_id="s"), timeout=TIMEOUT)
    assert served.stub.Act(turn_request(["Ah", "Kh", "Qh"]), timeout=TIMEOUT).WhichOneof("action") == "show"
    with pytest.raises(RulesError, match="no hand values for the session's profile"):
        served.bot.seen[-1].hand_value()  # type: ignore[attr-defined]


def test_hand_evaluator_for_reads_the_greetings_text_options() -> None:
    options = {"wild": "black7", "cards": "2", "deck": "24", "dark": "true", "open": "multiway"}
    assert hand_evaluator_for("classic", options) is hand_evaluator("classic", wild="black7", cards=2, deck=24)
    assert hand_value(["7s", "Ah"], profile_name="classic", options=options).label == "22"
    assert hand_evaluator_for("georgian", {"deck": "32", "tie": "split"}).hand_count == 4960
    assert hand_evaluator_for("seka36", {"tie": "split", "stack": "50"}) is hand_evaluator("seka36")
    with pytest.raises(RulesError, match="deck of profile 'georgian' is one of 36, 32, not '33'"):
        hand_evaluator_for("georgian", {"deck": "33"})
    with pytest.raises(RulesError, match="unknown profile 'poker'"):
        hand_evaluator_for("poker")


def test_time_left_leaves_out_the_grace_the_hello_announced(served: Served) -> None:
    # The arena's gRPC deadline lies `grace_ms` past the bot's own limit: time_left is the limit's.
    served.stub.Hello(pb.HelloRequest(protocol_version="seka.v1", profile="georgian",
                                      limits=pb.TimeLimits(decision_ms=1000, grace_ms=3000), session_id="s"),
                      timeout=TIMEOUT)
    assert served.bot.seen[-1].limits.grace_ms == 3000  # type: ignore[attr-defined]
    served.stub.Act(turn_request(["Ah", "Kh", "Qh"]), timeout=TIMEOUT)
    turn = served.bot.seen[-1]  # type: ignore[attr-defined]
    assert turn.time_left is not None and 0 <= turn.time_left <= TIMEOUT - 3.0 + 0.1


def test_turn_without_previous_bet(served: Served) -> None:
    request = turn_request(["Ah", "Kh", "Qh"])
    request.ClearField("previous_bet")
    request.legal.can_show = False
    request.legal.ClearField("show_amount")
    reply = served.stub.Act(request, timeout=TIMEOUT)
    assert reply.bet.amount == pb.Amount(numerator=2, denominator=1)
    turn = served.bot.seen[-1]  # type: ignore[attr-defined]
    assert turn.previous_bet is None and turn.show_amount is None and not turn.can_show


@pytest.mark.parametrize("cards, message", [
    (["6c", "6d", "6h"], "RuntimeError: boom"),
    (["7c", "7d", "7h"], "act must return Fold(), Bet(amount), Show(), DarkBet(amount)"),
    (["8c", "8d", "8h"], "an amount is an int or a fractions.Fraction"),
])
def test_a_failing_act_is_an_internal_error(served: Served, cards: list[str], message: str) -> None:
    with pytest.raises(grpc.RpcError) as raised:
        served.stub.Act(turn_request(cards), timeout=TIMEOUT)
    assert raised.value.code() == grpc.StatusCode.INTERNAL
    assert message in raised.value.details()
    # The bot keeps serving after a failed call.
    assert served.stub.Act(turn_request(["Ah", "Kh", "Qh"]), timeout=TIMEOUT).WhichOneof("action") == "show"


def test_svara_declines_by_default(served: Served) -> None:
    reply = served.stub.Svara(pb.SvaraOffer(seat=0, frozen_pot=amount(9), price=amount(Fraction(9, 2)), tied=[1, 2],
                                            eligible=[0]), timeout=TIMEOUT)
    assert reply.accept is False


def test_svara_answer_must_be_a_bool(tmp_path: Path) -> None:
    class Sloppy(Bot):
        def act(self, turn: Turn) -> Fold:
            return Fold()

        def svara(self, offer: SvaraOffer) -> bool:
            return 1  # type: ignore[return-value]

    running = Served(Sloppy(), f"unix:{tmp_path / 'sloppy.sock'}")
    try:
        with pytest.raises(grpc.RpcError) as raised:
            running.stub.Svara(pb.SvaraOffer(price=amount(1)), timeout=TIMEOUT)
        assert raised.value.code() == grpc.StatusCode.INTERNAL
    finally:
        running.channel.close()
        running.server.stop(grace=None)


def test_notices_reach_their_methods(served: Served) -> None:
    seats = [pb.Seat(seat=0, bot="a"), pb.Seat(seat=1, bot="b")]
    served.stub.Notify(pb.Notice(session_id="s", deal=pb.DealNotice(
        pot_number=1, dealer=1, seat=0, cards=["Th", "Ts", "6c"], seats=seats, players=[0, 1],
        balances=[amount(-1), amount(-1)], pot=amount(2))), timeout=TIMEOUT)
    served.stub.Notify(pb.Notice(session_id="s", showdown=pb.ShowdownNotice(
        pot_number=1, kind=pb.SHOWDOWN_KIND_ACTION_CAP,
        hands=[pb.ShownHand(seat=0, cards=["Ac", "As", "6c"], value="22"),
               pb.ShownHand(seat=1, cards=["Ah", "Ad", "6h"], value="22")])), timeout=TIMEOUT)
    served.stub.Notify(pb.Notice(session_id="s", showdown=pb.ShowdownNotice(
        pot_number=1, replay=1, kind=pb.SHOWDOWN_KIND_HEADS_UP, winner=0,
        hands=[pb.ShownHand(seat=0, cards=["Ac", "Kc", "6c"], value="27")])), timeout=TIMEOUT)
    served.stub.Notify(pb.Notice(session_id="s", pot_result=pb.PotResultNotice(
        pot_number=1, winner=0, amount=amount(Fraction(25, 2)), shown=True,
        balances=[amount(Fraction(9, 2)), amount(Fraction(-9, 2))])), timeout=TIMEOUT)
    served.stub.Notify(pb.Notice(session_id="s", session_end=pb.SessionEndNotice(
        balances=[amount(0), amount(0)], winners=[0, 1])), timeout=TIMEOUT)
    served.stub.Notify(pb.Notice(session_id="s"), timeout=TIMEOUT)  # a kind of notice from the future
    deal, tie, win, result, end = served.bot.seen  # type: ignore[attr-defined]
    assert isinstance(deal, Deal) and deal.cards == ("Th", "Ts", "6c") and deal.bots == ("a", "b") and deal.pot == 2
    assert isinstance(tie, Showdown) and tie.is_svara and tie.kind == "action_cap" and tie.hands[1].value == "22"
    assert isinstance(win, Showdown) and win.winner == 0 and win.kind == "heads_up" and win.replay == 1
    assert isinstance(result, PotResult) and result.amount == Fraction(25, 2) and result.shown
    assert isinstance(end, SessionEnd) and end.winners == (0, 1)


def test_notices_inside_a_request_reach_their_methods_in_order_before_the_decision_or_the_end(served: Served) -> None:
    seats = [pb.Seat(seat=0, bot="a"), pb.Seat(seat=1, bot="b")]
    showdown = pb.Notice(session_id="s", showdown=pb.ShowdownNotice(
        pot_number=1, kind=pb.SHOWDOWN_KIND_HEADS_UP, winner=1,
        hands=[pb.ShownHand(seat=0, cards=["Ac", "Kc", "6d"], value="21"),
               pb.ShownHand(seat=1, cards=["Ah", "Kh", "6h"], value="27")]))
    result = pb.Notice(session_id="s", pot_result=pb.PotResultNotice(
        pot_number=1, winner=1, amount=amount(6), shown=True, balances=[amount(-3), amount(3)]))
    deal = pb.Notice(session_id="s", deal=pb.DealNotice(
        pot_number=2, dealer=1, seat=0, cards=["Ah", "Kh", "Qh"], seats=seats, players=[0, 1],
        balances=[amount(-4), amount(2)], pot=amount(2)))
    future = pb.Notice(session_id="s")  # a kind of notice from the future: ignored
    assert served.stub.Act(turn_request(["Ah", "Kh", "Qh"], notices=[showdown, result, future, deal]),
                           timeout=TIMEOUT).WhichOneof("action") == "show"
    told_showdown, told_result, told_deal, turn = served.bot.seen  # type: ignore[attr-defined]
    assert isinstance(told_showdown, Showdown) and told_showdown.winner == 1
    assert isinstance(told_result, PotResult) and told_result.amount == 6
    assert isinstance(told_deal, Deal) and told_deal.pot_number == 2
    assert isinstance(turn, Turn) and turn.pot_number == 2

    tie = pb.Notice(session_id="s", showdown=pb.ShowdownNotice(
        pot_number=2, kind=pb.SHOWDOWN_KIND_ACTION_CAP,
        hands=[pb.ShownHand(seat=1, cards=["As", "Ks", "6s"], value="27"),
               pb.ShownHand(seat=2, cards=["Ad", "Kd", "6d"], value="27")]))
    offer = pb.SvaraOffer(session_id="s", pot_number=2, replay=1, seat=0, frozen_pot=amount(9),
                          price=amount(Fraction(9, 2)), tied=[1, 2], eligible=[0], notices=[tie])
    assert served.stub.Svara(offer, timeout=TIMEOUT).accept is False
    told_tie = served.bot.seen[-1]  # type: ignore[attr-defined]
    assert isinstance(told_tie, Showdown) and told_tie.pot_number == 2 and told_tie.kind == "action_cap"

    end = pb.Notice(session_id="s", session_end=pb.SessionEndNotice(
        balances=[amount(1), amount(-1)], winners=[0], notices=[showdown, result]))
    assert served.stub.Notify(end, timeout=TIMEOUT) == pb.NoticeReply()
    told_showdown, told_result, told_end = served.bot.seen[-3:]  # type: ignore[attr-defined]
    assert isinstance(told_showdown, Showdown) and isinstance(told_result, PotResult)
    assert isinstance(told_end, SessionEnd) and told_end.winners == (0,)


def test_only_the_notices_a_bot_handles_are_converted(served: Served, tmp_path: Path) -> None:
    # A notice the SDK cannot convert (a negative denominator) shows whether it was converted.
    unreadable = pb.Notice(session_id="s", pot_result=pb.PotResultNotice(
        pot_number=1, winner=0, amount=pb.Amount(numerator=3, denominator=-2)))
    with pytest.raises(grpc.RpcError) as raised:  # RecordingBot handles pot results
        served.stub.Notify(unreadable, timeout=TIMEOUT)
    assert raised.value.code() == grpc.StatusCode.INTERNAL and "denominator" in str(raised.value.details())

    class TurnsOnly(Bot):
        def act(self, turn: Turn) -> Fold:
            return Fold()

    running = Served(TurnsOnly(), f"unix:{tmp_path / 'turns-only.sock'}")
    try:
        end = pb.Notice(session_id="s", session_end=pb.SessionEndNotice(winners=[0], notices=[unreadable]))
        assert running.stub.Notify(end, timeout=TIMEOUT) == pb.NoticeReply()
        reply = running.stub.Act(turn_request(["Ah", "Kh", "Qh"], notices=[unreadable]), timeout=TIMEOUT)
        assert reply.WhichOneof("action") == "fold"
    finally:
        running.channel.close()
        running.server.stop(grace=None)


def test_serve_refuses_an_address_it_cannot_bind(tmp_path: Path) -> None:
    with pytest.raises(BotServerError, match="cannot listen"):
        serve(RecordingBot(), f"unix:{tmp_path / 'missing-directory' / 'bot.sock'}")


# ------------------------------------------------------------------ run(), as a process


def _run_minimal(*args: str, env: dict[str, str], stderr: Any = subprocess.PIPE) -> subprocess.Popen[bytes]:
    clean = {key: value for key, value in os.environ.items() if key != "SEKA_BOT_ADDRESS"}
    return subprocess.Popen([sys.executable, "sample_bots/minimal_bot.py", *args], cwd=REPO,
                            env={**clean, "PYTHONPATH": str(REPO), **env}, stdout=subprocess.DEVNULL,
                            stderr=stderr)


def test_run_without_an_address_exits_2() -> None:
    process = _run_minimal(env={})
    _, stderr = process.communicate(timeout=TIMEOUT)
    assert process.returncode == 2
    assert b"SEKA_BOT_ADDRESS" in stderr


def test_run_on_an_unusable_address_exits_1(tmp_path: Path) -> None:
    process = _run_minimal(env={"SEKA_BOT_ADDRESS": f"unix:{tmp_path / 'missing-directory' / 'bot.sock'}"})
    _, stderr = process.communicate(timeout=TIMEOUT)
    assert process.returncode == 1
    assert b"cannot listen" in stderr


def test_run_stops_cleanly_on_sigint(tmp_path: Path) -> None:
    address = f"unix:{tmp_path / 'bot.sock'}"
    log = tmp_path / "bot.log"
    with log.open("wb") as sink:
        process = _run_minimal(env={"SEKA_BOT_ADDRESS": address}, stderr=sink)
    with grpc.insecure_channel(address, options=CHANNEL_OPTIONS) as channel:
        try:
            wait_until_serving(process, health_pb2_grpc.HealthStub(channel), log)
        except BaseException:
            process.kill()
            raise
    process.send_signal(signal.SIGINT)
    assert process.wait(timeout=TIMEOUT) == 0, log.read_text()
    stderr = log.read_text()
    assert f"serving seka.v1 on {address}" in stderr
    assert "stopping" in stderr
