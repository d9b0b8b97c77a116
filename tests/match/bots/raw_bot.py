"""A bot written against raw grpcio (no SDK) that answers with the wrong bytes, one way per `--mode`.

    garbage        Act and Svara return bytes that are no protobuf message
    wrong-message  Act returns a serialized HelloReply (which does not parse as a TurnReply), Svara
                   a serialized TurnReply
    other-message  Act returns a serialized SvaraReply, which parses as a TurnReply with only an
                   unknown field
    empty          Act returns an empty TurnReply (no action chosen)
    huge           Act returns a valid fold past the arena's 1 MiB reply limit (the fold field
                   repeated: a parser merges the copies, so only the size is wrong)
    never-ready    serves SekaBot like a caller but no health service, so it is never ready
    unknown-field  Act returns a legal bet of min_bet and Svara an acceptance, each followed by a
                   field no reply message has (number 99): well-formed, but not our message
    half-ready     plays like a caller; its health service reports "" SERVING but "seka.v1.SekaBot"
                   NOT_SERVING, for ever, so it is never ready either
    only-root      plays like a caller; its health service reports "" SERVING and does not know
                   "seka.v1.SekaBot" (what a C++ server's default health service does by itself)

Hello and Notify are answered properly in every mode, and the health service reports SERVING
for both names (except in never-ready, half-ready and only-root), so only the decisions go wrong.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

import grpc
from _serve import NOT_SERVING, READY, SERVING, serve_forever

from arena._proto.seka.v1 import seka_pb2 as pb

_GARBAGE = bytes(range(255, 0, -7)) * 3
# Field 99 as a varint holding 1: the tag (99 << 3 | 0) is the varint 0x98 0x06.
_UNKNOWN_FIELD = b"\x98\x06\x01"


def _act(mode: str) -> Callable[[bytes, Any], bytes]:
    def act(request: bytes, context: Any) -> bytes:
        if mode == "garbage":
            return _GARBAGE
        if mode == "wrong-message":
            return pb.HelloReply(name="raw", version="1", protocol_version="seka.v1").SerializeToString()
        if mode == "other-message":
            return pb.SvaraReply(accept=True).SerializeToString()
        if mode == "empty":
            return b""
        if mode == "huge":
            return pb.TurnReply(fold=pb.FoldAction()).SerializeToString() * 600_000
        turn = pb.TurnRequest.FromString(request)
        reply = pb.TurnReply(bet=pb.BetAction(amount=turn.legal.min_bet)).SerializeToString()
        return reply + _UNKNOWN_FIELD if mode == "unknown-field" else reply
    return act


def _svara(mode: str) -> Callable[[bytes, Any], bytes]:
    def svara(request: bytes, context: Any) -> bytes:
        if mode == "garbage":
            return _GARBAGE
        if mode == "wrong-message":
            return pb.TurnReply(bet=pb.BetAction(amount=pb.Amount(numerator=3))).SerializeToString()
        reply = pb.SvaraReply(accept=True).SerializeToString()
        return reply + _UNKNOWN_FIELD if mode == "unknown-field" else reply
    return svara


def _hello(request: bytes, context: Any) -> bytes:
    return pb.HelloReply(name="raw", version="1", protocol_version="seka.v1").SerializeToString()


def _notify(request: bytes, context: Any) -> bytes:
    return pb.NoticeReply().SerializeToString()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", required=True)
    args = parser.parse_args()
    # No (de)serializers: the handlers read and write raw bytes.
    handlers = {
        "Hello": grpc.unary_unary_rpc_method_handler(_hello),
        "Act": grpc.unary_unary_rpc_method_handler(_act(args.mode)),
        "Svara": grpc.unary_unary_rpc_method_handler(_svara(args.mode)),
        "Notify": grpc.unary_unary_rpc_method_handler(_notify),
    }
    health_status = {"never-ready": None, "half-ready": {"": SERVING, "seka.v1.SekaBot": NOT_SERVING},
                     "only-root": {"": SERVING}}.get(args.mode, READY)
    serve_forever(lambda server: server.add_generic_rpc_handlers(
        [grpc.method_handlers_generic_handler("seka.v1.SekaBot", handlers)]), health_status=health_status)


if __name__ == "__main__":
    main()
