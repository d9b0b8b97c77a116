"""Hostile bot (raw grpcio): answers every Act with 16 MiB, far over the arena's 1 MiB reply limit.

The reply is a fold field repeated (protobuf merges repeated copies of a message field), so only
its size is wrong. Hello, Notify and Svara are answered properly.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import grpc
from _hostile import report
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from arena._proto.seka.v1 import seka_pb2 as pb

_FOLD = pb.TurnReply(fold=pb.FoldAction()).SerializeToString()
_HUGE = _FOLD * ((16 << 20) // len(_FOLD))


def _act(request: bytes, context: Any) -> bytes:
    report("huge-reply", bytes=len(_HUGE))
    return _HUGE


def _svara(request: bytes, context: Any) -> bytes:
    return pb.SvaraReply(accept=True).SerializeToString()


def _hello(request: bytes, context: Any) -> bytes:
    return pb.HelloReply(name="huge-reply", version="1", protocol_version="seka.v1").SerializeToString()


def _notify(request: bytes, context: Any) -> bytes:
    return pb.NoticeReply().SerializeToString()


def main() -> None:
    handlers = {name: grpc.unary_unary_rpc_method_handler(handler)
                for name, handler in (("Hello", _hello), ("Act", _act), ("Svara", _svara), ("Notify", _notify))}
    # The server may send as much as it likes; only the arena's receiving limit applies.
    server = grpc.server(ThreadPoolExecutor(max_workers=4), options=[("grpc.max_send_message_length", -1)])
    server.add_generic_rpc_handlers([grpc.method_handlers_generic_handler("seka.v1.SekaBot", handlers)])
    servicer = health.HealthServicer()
    for service in ("", "seka.v1.SekaBot"):
        servicer.set(service, health_pb2.HealthCheckResponse.SERVING)
    health_pb2_grpc.add_HealthServicer_to_server(servicer, server)
    server.add_insecure_port(os.environ["SEKA_BOT_ADDRESS"])
    server.start()
    server.wait_for_termination(60)


if __name__ == "__main__":
    main()
