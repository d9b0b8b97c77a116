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
from arena.transport import IllegalReplyError, MalformedReplyError, verify_reply
from arena.transport._convert import action_from_reply, turn_request


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
    (pb.TurnReply(), "the reply sets none of fold, bet, show, dark_bet, look"),
])
def test_a_reply_that_names_no_action_properly_is_malformed(reply: pb.TurnReply, detail: str) -> None:
    with pytest.raises(MalformedReplyError, match=detail):
        action_from_reply(reply)


def test_an_action_of_another_profile_is_the_bots_illegal_move() -> None:
    georgian = _state("georgian", {})
    for action in (Support(), Raise(2), Open(), Call(), Look(), DarkBet(1), MultiwayOpen()):
        with pytest.raises(IllegalReplyError):
            verify_reply(georgian, action)
