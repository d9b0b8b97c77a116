"""A bare gRPC client to a bot: the floor the benchmarks measure the arena's decision path against."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import grpc

from .._proto.seka.v1 import seka_pb2 as pb
from .._proto.seka.v1 import seka_pb2_grpc as pb_grpc
from ..engine import Action, Mix, TurnView
from ._bot import CHANNEL_OPTIONS
from ._bridge import call_unary
from ._convert import action_from_reply, turn_request


class RawClient:
    """Blocking Act calls to one bot with prebuilt requests, on one channel of its own.

    No deadline bookkeeping, telemetry, fault mapping or trio: what a decision costs with the
    arena's work taken away. Not for playing; `BotConnection` is. Its calls may be made from
    several threads at once.
    """

    def __init__(self, address: str, *, options: Sequence[tuple[str, Any]] = CHANNEL_OPTIONS) -> None:
        self.channel = grpc.insecure_channel(address, options=options)
        """The channel, for measuring what is held open on it."""
        self._act: grpc.UnaryUnaryMultiCallable[pb.TurnRequest, pb.TurnReply] = pb_grpc.SekaBotStub(self.channel).Act

    @staticmethod
    def prebuilt_turn(view: TurnView, *, session_id: str) -> pb.TurnRequest:
        """The request `BotConnection.act` would send for `view` with no notices, to send again and again."""
        return turn_request(view, session_id=session_id)

    @staticmethod
    def action(reply: pb.TurnReply) -> Action | Mix:
        """The action a reply asks for, as `BotConnection.act` converts it (`MalformedReplyError`)."""
        return action_from_reply(reply)

    def act(self, request: pb.TurnRequest, *, timeout: float) -> pb.TurnReply:
        """One Act call, blocking the calling thread (and trio's, if called from it) until the reply.

        Raises:
            grpc.RpcError: the call failed.
        """
        return self._act(request, timeout=timeout)

    async def act_bridged(self, request: pb.TurnRequest, *, timeout: float) -> pb.TurnReply:
        """One Act call through the arena's trio bridge (`call_unary`), with nothing else around it."""
        return await call_unary(self._act, request, timeout=timeout)

    def close(self) -> None:
        self.channel.close()


@contextmanager
def open_raw_client(address: str, *, options: Sequence[tuple[str, Any]] = CHANNEL_OPTIONS) -> Iterator[RawClient]:
    """A `RawClient` to the bot at `address` (channel `options`: the arena's unless given), closed on exit."""
    client = RawClient(address, options=options)
    try:
        yield client
    finally:
        client.close()
