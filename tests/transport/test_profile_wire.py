"""The wire of the other profiles: what a turn request carries, every reply case, and whose fault a
bad one is (real engine states, real protobuf messages)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from arena._proto.seka.v1 import seka_pb2 as pb
from arena.engine import (
    Bet,
    Call,
    DarkBet,
    Fold,
    Look,
    MultiwayOpen,
    Open,
    Raise,
    SessionState,
    Show,
    Support,
    parse_cards,
    profile,
    seeded_shuffler,
    stacked_shuffler,
    turn_view,
)
from arena.protocol import amount_from_proto, amount_to_proto
from arena.transport import IllegalReplyError, MalformedReplyError, NoticeBoard, verify_reply
from arena.transport._convert import action_from_reply, hello_request, turn_request


def _state(name: str, options: dict[str, str], seats: int = 2,
           hands: dict[int, str] | None = None) -> SessionState:
    rules = profile(name, options)
    stacked = {(1, 0): {seat: parse_cards(cards) for seat, cards in (hands or {}).items()}}
    return SessionState(rules, bots=[f"b{seat}" for seat in range(seats)], seed="wire", first_dealer=0,
                        shuffler=stacked_shuffler(stacked, seeded_shuffler("wire", rules.deck), cards=rules.cards))


def test_a_dark_turn_sends_no_cards_and_says_what_the_bot_may_do() -> None:
    state = _state("georgian", {"dark": "true"})
    request = turn_request(turn_view(state), session_id="s")
    assert list(request.cards) == [] and request.cards_unseen and list(request.unseen) == [1]
    legal = request.legal
    assert not legal.HasField("min_bet") and not legal.HasField("max_bet")
    assert (amount_from_proto(legal.dark_bet.min), amount_from_proto(legal.dark_bet.max)) == (1, 5)
    assert legal.can_look and not legal.HasField("support")
    state.apply(Look())
    seen = turn_request(turn_view(state), session_id="s")
    assert len(seen.cards) == 3 and not seen.cards_unseen and not seen.legal.HasField("dark_bet")
    assert amount_from_proto(seen.legal.min_bet) == 1


def test_a_stake_turn_carries_stacks_stake_and_the_stake_actions() -> None:
    state = _state("seka36", {"stack": "20"})
    hello = hello_request(state.rules, seats=2, seat=1, session_id="s", decision_ms=1, time_bank_ms=0, start_ms=1)
    assert hello.table.betting == "stake" and amount_from_proto(hello.table.stack) == 20
    assert list(hello.table.wild) == ["7c"] and len(hello.table.deck) == 36 and hello.options["stack"] == "20"
    state.apply(Support())
    request = turn_request(turn_view(state), session_id="s")
    assert [amount_from_proto(stack) for stack in request.stacks] == [19, 18]
    assert amount_from_proto(request.stake) == 1
    legal = request.legal
    assert amount_from_proto(legal.support) == 1
    assert not legal.HasField("open")  # not before both players have acted
    assert (amount_from_proto(legal.raise_to.min), amount_from_proto(legal.raise_to.max)) == (2, 18)
    assert legal.stake_factor == 1 and not legal.HasField("min_bet") and not legal.HasField("call")
    assert [pb.ActionKind.Name(action.kind) for action in request.actions] == ["ACTION_KIND_SUPPORT"]
    state.apply(Raise(3))
    answer = turn_request(turn_view(state), session_id="s")
    assert amount_from_proto(answer.legal.open) == 3 and amount_from_proto(answer.stake) == 3
    assert amount_from_proto(answer.actions[-1].stake) == 3


def test_a_plain_georgian_turn_sets_no_field_of_the_profiles() -> None:
    request = turn_request(turn_view(_state("georgian", {})), session_id="s")
    assert not [field.name for field, _ in request.ListFields() if field.number >= 50]
    assert not [field.name for field, _ in request.legal.ListFields() if field.number >= 50]


@pytest.mark.parametrize(("reply", "action"), [
    (pb.TurnReply(dark_bet=pb.DarkBetAction(amount=amount_to_proto(Fraction(5, 2)))), DarkBet(Fraction(5, 2))),
    (pb.TurnReply(look=pb.LookAction()), Look()),
    (pb.TurnReply(support=pb.SupportAction()), Support()),
    (pb.TurnReply(raise_to=pb.RaiseToAction(stake=amount_to_proto(7))), Raise(7)),
    (pb.TurnReply(call=pb.CallAction()), Call()),
    (pb.TurnReply(open=pb.OpenAction()), Open()),
    (pb.TurnReply(multiway_open=pb.MultiwayOpenAction()), MultiwayOpen()),
    (pb.TurnReply(fold=pb.FoldAction()), Fold()),
    (pb.TurnReply(show=pb.ShowAction()), Show()),
    (pb.TurnReply(bet=pb.BetAction(amount=amount_to_proto(3))), Bet(3)),
])
def test_every_reply_case_becomes_its_engine_action(reply: pb.TurnReply, action: object) -> None:
    assert action_from_reply(pb.TurnReply.FromString(reply.SerializeToString())) == action


@pytest.mark.parametrize(("reply", "detail"), [
    (pb.TurnReply(dark_bet=pb.DarkBetAction()), "a dark bet without an amount"),
    (pb.TurnReply(raise_to=pb.RaiseToAction()), "a raise without a stake"),
    (pb.TurnReply(raise_to=pb.RaiseToAction(stake=pb.Amount(numerator=3, denominator=-1))), "cannot be negative"),
    (pb.TurnReply(), "the reply sets none of fold, bet, show, mix, dark_bet, look"),
])
def test_a_reply_that_names_no_action_properly_is_malformed(reply: pb.TurnReply, detail: str) -> None:
    with pytest.raises(MalformedReplyError, match=detail):
        action_from_reply(reply)


def test_an_action_of_another_profile_is_the_bots_illegal_move() -> None:
    georgian = _state("georgian", {})
    for action in (Support(), Raise(2), Open(), Call(), Look(), DarkBet(1), MultiwayOpen()):
        with pytest.raises(IllegalReplyError):
            verify_reply(georgian, action)
    stake = _state("svara32", {})
    with pytest.raises(IllegalReplyError, match="may not bet"):
        verify_reply(stake, Bet(1))
    with pytest.raises(IllegalReplyError, match="may not"):
        verify_reply(stake, Call())  # no payment yet in the deal


def test_a_raise_too_fine_for_the_wire_is_illegal() -> None:
    state = _state("seka36", {"stack": "20"})
    verify_reply(state, Raise(Fraction(5, 2)))
    with pytest.raises(IllegalReplyError, match="too fine for the protocol"):
        verify_reply(state, Raise(2 + Fraction(1, 2**61 - 1)))


def test_a_multiway_comparison_shows_the_hands_to_the_two_compared_only() -> None:
    state = _state("classic", {"open": "multiway"}, seats=3,
                   hands={1: "Ah Kh Qh", 2: "Td 8s 6c", 0: "9c 8d 6s"})
    board = NoticeBoard(3, session_id="s")
    board.post(state, state.events, [0, 1, 2])
    for seat in range(3):
        board.take(seat)
    for action in (Bet(1), Bet(2), Bet(2), MultiwayOpen()):  # seats 1, 2, 0, then 1 opens against 0
        board.post(state, state.apply(action), [0, 1, 2])
    told = {seat: [notice for notice in board.take(seat)._pending if notice.HasField("comparison")]
            for seat in range(3)}
    for seat in (0, 1):
        (notice,) = told[seat]
        assert [hand.seat for hand in notice.comparison.hands] == [1, 0]
        assert (notice.comparison.opener, notice.comparison.against, notice.comparison.loser) == (1, 0, 0)
    (outsider,) = told[2]
    assert not outsider.comparison.hands and outsider.comparison.loser == 0
