"""Serving a `Bot` over gRPC: the `SekaBot` service, the health service, the launch contract."""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from types import FrameType
from typing import Any, TypeVar

import grpc
from google.protobuf import text_format
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from .._proto.seka.v1 import seka_pb2 as pb
from .._proto.seka.v1 import seka_pb2_grpc as pb_grpc
from ..engine import GEORGIAN_EVALUATOR, ArenaError, Bet, HandEvaluator, Mix, RulesError, Show
from ..protocol import ADDRESS_ENV, PROTOCOL_VERSION, SERVICE_NAME
from ._bot import Bot
from ._convert import action_to_proto, hello_from_proto, notice_from_proto, svara_offer_from_proto, turn_from_proto

LOGGER = logging.getLogger("arena.sdk")

_T = TypeVar("_T")


class BotServerError(ArenaError, RuntimeError):
    """The bot could not start serving (for example, the address is taken or malformed)."""


_HANDLERS = {"deal": "on_deal", "showdown": "on_showdown", "pot_result": "on_pot_result",
             "session_end": "on_session_end", "look": "on_look", "comparison": "on_comparison",
             "short_of_chips": "on_short_of_chips", "returned_chips": "on_returned_chips", "split": "on_split"}
"""Each kind of notice (the `Notice.notice` case) and the `Bot` method it goes to."""


def _brief(message: Any) -> str:
    return str(text_format.MessageToString(message, as_one_line=True))


class _Servicer(pb_grpc.SekaBotServicer):
    """Turns calls into `Bot` method calls, one at a time; a bot's exception becomes INTERNAL."""

    def __init__(self, bot: Bot) -> None:
        self._bot = bot
        # A notice whose `on_*` method the bot leaves as Bot's (which ignores it) is not even
        # converted: most bots play from the turn alone, and notices ride inside every turn.
        self._handled = {kind for kind, name in _HANDLERS.items() if getattr(type(bot), name) is not getattr(Bot, name)}
        # One call at a time, so bot authors never meet threads. The arena sends one call at a
        # time anyway; the lock matters only when it gave up on a slow call and sent the next.
        self._lock = threading.Lock()
        self._grace = 0.0  # seconds every gRPC deadline lies past the bot's own limit (the Hello says)
        self._evaluator: HandEvaluator | None = GEORGIAN_EVALUATOR  # the session's hand values (the Hello says)

    def _time_left(self, context: grpc.ServicerContext) -> float | None:
        remaining = context.time_remaining()
        return None if remaining is None else max(0.0, remaining - self._grace)

    def _guarded(self, context: grpc.ServicerContext, method: str, request: Any, answer: Callable[[], _T]) -> _T:
        if LOGGER.isEnabledFor(logging.DEBUG):
            LOGGER.debug("%s <- %s", method, _brief(request))
        with self._lock:
            try:
                reply = answer()
            except Exception as error:
                LOGGER.exception("%s failed", method)
                context.abort(grpc.StatusCode.INTERNAL, f"{method}: {type(error).__name__}: {error}")
        if LOGGER.isEnabledFor(logging.DEBUG):
            LOGGER.debug("%s -> %s", method, _brief(reply))
        return reply

    def Hello(self, request: pb.HelloRequest, context: grpc.ServicerContext) -> pb.HelloReply:
        def answer() -> pb.HelloReply:
            if request.protocol_version != PROTOCOL_VERSION:
                LOGGER.warning("the arena speaks %r; this SDK speaks %r", request.protocol_version, PROTOCOL_VERSION)
            self._grace = request.limits.grace_ms / 1000
            hello = hello_from_proto(request)
            try:
                self._evaluator = hello.hand_evaluator()
            except RulesError as error:  # a profile newer than this SDK: the bot may still play it
                LOGGER.warning("Turn.hand_value() will not work in this session: %s", error)
                self._evaluator = None
            self._bot.on_hello(hello)
            bot = self._bot
            return pb.HelloReply(name=bot.name or type(bot).__name__, version=str(bot.version),
                                 protocol_version=PROTOCOL_VERSION)

        return self._guarded(context, "Hello", request, answer)

    def _tell(self, notice: pb.Notice) -> None:
        """Pass one notice to its `on_*` method; a kind this SDK does not know is ignored."""
        kind = notice.WhichOneof("notice")
        if kind == "session_end":
            for earlier in notice.session_end.notices:  # what happened before the end, oldest first
                self._tell(earlier)
        if kind not in _HANDLERS:
            LOGGER.debug("ignoring a notice this SDK does not know: %s", kind)
        elif kind in self._handled:
            getattr(self._bot, _HANDLERS[kind])(notice_from_proto(notice))

    def Act(self, request: pb.TurnRequest, context: grpc.ServicerContext) -> pb.TurnReply:
        def answer() -> pb.TurnReply:
            for notice in request.notices:  # what happened before this turn, oldest first
                self._tell(notice)
            turn = turn_from_proto(request, time_left=self._time_left(context), evaluator=self._evaluator)
            action = self._bot.act(turn)
            # The arena is the judge; this only tells the author why the bot is about to be folded.
            if isinstance(action, Bet) and not turn.min_bet <= action.amount <= turn.max_bet:
                LOGGER.warning("illegal bet %s: allowed %s to %s", action.amount, turn.min_bet, turn.max_bet)
            elif isinstance(action, Show) and not turn.can_show:
                LOGGER.warning("illegal show: showing needs two players in the deal and a previous bet")
            elif isinstance(action, Mix) and (problem := action.problem()) is not None:
                LOGGER.warning("malformed mix: %s", problem)
            return action_to_proto(action)

        return self._guarded(context, "Act", request, answer)

    def Svara(self, request: pb.SvaraOffer, context: grpc.ServicerContext) -> pb.SvaraReply:
        def answer() -> pb.SvaraReply:
            for notice in request.notices:  # what happened before this offer, oldest first
                self._tell(notice)
            accept = self._bot.svara(svara_offer_from_proto(request, time_left=self._time_left(context)))
            if not isinstance(accept, bool):
                raise TypeError(f"svara must return True or False, not {accept!r}")
            return pb.SvaraReply(accept=accept)

        return self._guarded(context, "Svara", request, answer)

    def Notify(self, request: pb.Notice, context: grpc.ServicerContext) -> pb.NoticeReply:
        def answer() -> pb.NoticeReply:
            self._tell(request)
            return pb.NoticeReply()

        return self._guarded(context, "Notify", request, answer)


class BotServer:
    """A bot served on one address with the health service; `serve` creates and starts one."""

    def __init__(self, bot: Bot, address: str, *, max_workers: int = 4) -> None:
        self.address = address
        """Where the bot listens: `unix:/path/to.sock` or `host:port`."""
        self._server = grpc.server(ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="seka-bot"))
        pb_grpc.add_SekaBotServicer_to_server(_Servicer(bot), self._server)
        self._health = health.HealthServicer()
        self._health.set("", health_pb2.HealthCheckResponse.NOT_SERVING)
        health_pb2_grpc.add_HealthServicer_to_server(self._health, self._server)
        try:
            self.port = self._server.add_insecure_port(address)
            """The TCP port bound (useful with port 0); 1 for a unix socket."""
        except RuntimeError as error:
            raise BotServerError(f"cannot listen on {address!r}: {error}") from None

    def start(self) -> None:
        """Start taking calls and report SERVING to health checks."""
        self._server.start()
        for service in ("", SERVICE_NAME):
            self._health.set(service, health_pb2.HealthCheckResponse.SERVING)

    def stop(self, grace: float | None = 0.5) -> None:
        """Report NOT_SERVING, let calls in flight finish for `grace` seconds, then stop."""
        self._health.enter_graceful_shutdown()
        self._server.stop(grace).wait()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the server stops; False if `timeout` seconds passed first."""
        return bool(self._server.wait_for_termination(timeout))


def serve(bot: Bot, address: str, *, max_workers: int = 4) -> BotServer:
    """Serve `bot` on `address` (`unix:/tmp/bot.sock` or `127.0.0.1:50051`) and return at once.

    Raises:
        BotServerError: the address cannot be bound.
    """
    server = BotServer(bot, address, max_workers=max_workers)
    server.start()
    return server


def resolve_address(argv: Sequence[str], environ: Mapping[str, str]) -> str | None:
    """The address from `--address ADDR` (or `--address=ADDR`) in `argv`, else from SEKA_BOT_ADDRESS.

    >>> resolve_address(["--address", "unix:/tmp/b.sock"], {"SEKA_BOT_ADDRESS": "127.0.0.1:5000"})
    'unix:/tmp/b.sock'
    >>> resolve_address(["--seed", "7"], {"SEKA_BOT_ADDRESS": "127.0.0.1:5000"})
    '127.0.0.1:5000'
    """
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--address")
    known, _ = parser.parse_known_args(list(argv))
    return known.address or environ.get(ADDRESS_ENV) or None


def run(bot: Bot, *, argv: Sequence[str] | None = None, address: str | None = None) -> None:
    """Serve `bot` until SIGTERM or SIGINT: the one call a bot script makes.

    The address comes from `address`, else `--address ADDR` on the command line, else the
    SEKA_BOT_ADDRESS environment variable. Other command-line arguments are left to the bot.
    Logs go to stderr; set SEKA_BOT_LOG_LEVEL=DEBUG to see every message in and out.
    Must be called from the main thread (it installs signal handlers).
    """
    argv = sys.argv[1:] if argv is None else argv
    logging.basicConfig(stream=sys.stderr, level=os.environ.get("SEKA_BOT_LOG_LEVEL", "INFO").upper(),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    address = address or resolve_address(argv, os.environ)
    if not address:
        LOGGER.error("no address to listen on: set %s or pass --address ADDR", ADDRESS_ENV)
        raise SystemExit(2)
    stopping = threading.Event()

    def request_stop(signum: int, frame: FrameType | None) -> None:
        stopping.set()

    previous = {signum: signal.signal(signum, request_stop) for signum in (signal.SIGTERM, signal.SIGINT)}
    try:
        server = serve(bot, address)
    except BotServerError as error:
        LOGGER.error("%s", error)
        raise SystemExit(1) from None
    try:
        LOGGER.info("%s %s serving %s on %s", bot.name or type(bot).__name__, bot.version, PROTOCOL_VERSION,
                    address)
        while not stopping.wait(0.5):
            pass
        LOGGER.info("stopping")
    finally:
        # Well inside the arena's one second between SIGTERM and SIGKILL.
        server.stop(grace=0.5)
        for signum, handler in previous.items():
            signal.signal(signum, handler)
