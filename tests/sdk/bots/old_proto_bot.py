"""A bot built from the `.proto` of before the profiles (tests/sdk/bots/seka_v1_georgian.proto).

It imports nothing of the arena: its messages are generated from that older file into the folder
named on its command line. It calls (pays min_bet), shows heads-up after six actions, accepts
every svara, and writes to its report file, at the session's end, how many requests it got and
which of them carried fields its older messages do not know (at a `georgian` table: none may).

    python old_proto_bot.py GENERATED_DIR REPORT_FILE
"""

from __future__ import annotations

import json
import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import grpc
from google.protobuf.message import Message
from google.protobuf.unknown_fields import UnknownFieldSet
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

sys.path.insert(0, sys.argv[1])
import seka_v1_georgian_pb2 as pb  # noqa: E402  (generated at test time into argv[1])
import seka_v1_georgian_pb2_grpc as pb_grpc  # noqa: E402

REPORT = sys.argv[2]


def _unknown(message: Message, path: str = "") -> list[str]:
    """Where in `message` (and the messages inside it) fields unknown to this older code sit."""
    found = [path or message.DESCRIPTOR.name] if len(UnknownFieldSet(message)) else []
    for field, value in message.ListFields():
        if field.message_type is None:
            continue
        if field.is_repeated:
            for index, item in enumerate(value):
                if isinstance(item, Message):
                    found += _unknown(item, f"{path}{field.name}[{index}].")
        else:
            found += _unknown(value, f"{path}{field.name}.")
    return found


class OldBot(pb_grpc.SekaBotServicer):
    def __init__(self) -> None:
        self.requests = 0
        self.unknown: list[str] = []
        self.profile = ""

    def _saw(self, method: str, request: Message) -> None:
        self.requests += 1
        self.unknown += [f"{method}: {where}" for where in _unknown(request)]

    def Hello(self, request: Any, context: Any) -> Any:
        self.profile = request.profile
        return pb.HelloReply(name="old-proto", version="1", protocol_version="seka.v1")

    def Act(self, request: Any, context: Any) -> Any:
        self._saw("Act", request)
        legal = request.legal
        if legal.can_show and request.actions_count >= 6:
            return pb.TurnReply(show=pb.ShowAction())
        return pb.TurnReply(bet=pb.BetAction(amount=legal.min_bet))

    def Svara(self, request: Any, context: Any) -> Any:
        self._saw("Svara", request)
        return pb.SvaraReply(accept=True)

    def Notify(self, request: Any, context: Any) -> Any:
        self._saw("Notify", request)
        if request.WhichOneof("notice") == "session_end":
            with open(REPORT, "w") as report:
                json.dump({"profile": self.profile, "requests": self.requests, "unknown": self.unknown}, report)
        return pb.NoticeReply()


def main() -> None:
    server = grpc.server(ThreadPoolExecutor(max_workers=2))
    pb_grpc.add_SekaBotServicer_to_server(OldBot(), server)
    status = health.HealthServicer()
    for name in ("", "seka.v1.SekaBot"):
        status.set(name, health_pb2.HealthCheckResponse.SERVING)
    health_pb2_grpc.add_HealthServicer_to_server(status, server)
    server.add_insecure_port(os.environ["SEKA_BOT_ADDRESS"])
    server.start()
    threading.Event().wait()


if __name__ == "__main__":
    main()
