"""A random-playing bot, written against the generated gRPC code (no SDK), that records every request.

Each call appends one line to `--record PATH`: the method name, a space, and the request in
one-line protobuf text format. With `--play random` (the default) the bot plays random legal
actions: fold, bet or (when allowed) show with equal chance, a whole-number bet between the
bounds, and accepts a svara offer half the time. Its random source is seeded from the session id
and its seat, so the same session gives the same play whatever ran before it in the same
process. With `--play call` it pays the least allowed amount and accepts every svara offer.
"""

from __future__ import annotations

import argparse
import math
import random
import threading
from pathlib import Path
from typing import Any

from _serve import serve_forever
from google.protobuf import text_format

from arena._proto.seka.v1 import seka_pb2 as pb
from arena._proto.seka.v1 import seka_pb2_grpc as pb_grpc


class RecordingBot(pb_grpc.SekaBotServicer):
    def __init__(self, record: Path, name: str, play: str) -> None:
        self._record = record.open("a", encoding="utf-8")
        self._name = name
        self._play = play
        self._lock = threading.Lock()
        self._rngs: dict[str, random.Random] = {}

    def _log(self, method: str, request: Any) -> None:
        with self._lock:
            self._record.write(f"{method} {text_format.MessageToString(request, as_one_line=True)}\n")
            self._record.flush()

    def _rng(self, session_id: str, seat: int) -> random.Random:
        return self._rngs.setdefault(session_id, random.Random(f"{session_id}|{seat}"))

    def Hello(self, request: pb.HelloRequest, context: Any) -> pb.HelloReply:
        self._log("Hello", request)
        return pb.HelloReply(name=self._name, version="1", protocol_version="seka.v1")

    def Act(self, request: pb.TurnRequest, context: Any) -> pb.TurnReply:
        self._log("Act", request)
        if self._play == "call":
            return pb.TurnReply(bet=pb.BetAction(amount=request.legal.min_bet))
        rng = self._rng(request.session_id, request.seat)
        kind = rng.choice(["fold", "bet", "show"] if request.legal.can_show else ["fold", "bet"])
        if kind == "fold":
            return pb.TurnReply(fold=pb.FoldAction())
        if kind == "show":
            return pb.TurnReply(show=pb.ShowAction())
        low = request.legal.min_bet.numerator / (request.legal.min_bet.denominator or 1)
        high = request.legal.max_bet.numerator // (request.legal.max_bet.denominator or 1)
        choices = [pb.Amount(numerator=value, denominator=1) for value in range(math.ceil(low), high + 1)]
        return pb.TurnReply(bet=pb.BetAction(amount=rng.choice(choices or [request.legal.min_bet])))

    def Svara(self, request: pb.SvaraOffer, context: Any) -> pb.SvaraReply:
        self._log("Svara", request)
        if self._play == "call":
            return pb.SvaraReply(accept=True)
        return pb.SvaraReply(accept=self._rng(request.session_id, request.seat).random() < 0.5)

    def Notify(self, request: pb.Notice, context: Any) -> pb.NoticeReply:
        self._log("Notify", request)
        return pb.NoticeReply()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--record", type=Path, required=True)
    parser.add_argument("--name", default="recorder")
    parser.add_argument("--play", choices=["random", "call"], default="random")
    args = parser.parse_args()
    serve_forever(lambda server: pb_grpc.add_SekaBotServicer_to_server(
        RecordingBot(args.record, args.name, args.play), server))


if __name__ == "__main__":
    main()
