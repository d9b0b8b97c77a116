"""A connection to one bot: launch or connect, readiness, calls under deadlines, faults, telemetry."""

from __future__ import annotations

import dataclasses
import json
import logging
import math
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import grpc
import trio
from grpc_health.v1 import health_pb2, health_pb2_grpc

from .._proto.seka.v1 import seka_pb2 as pb
from .._proto.seka.v1 import seka_pb2_grpc as pb_grpc
from ..engine import Action, ArenaError, Fault, Mix, Rules, SvaraAnswer, SvaraView, TurnView
from ..isolation import BotProcess, CallTime, Isolation, ProcessLimits, sandbox_env, seal_socket_folder
from ..protocol import ADDRESS_ENV, SERVICE_NAME
from ._bridge import PendingCall
from ._convert import (
    HelloInfo,
    action_from_reply,
    answer_from_reply,
    hello_from_reply,
    hello_request,
    svara_offer,
    turn_request,
)
from ._faults import BotFault
from ._notices import Notices, closing_notice

LOGGER = logging.getLogger(__name__)
_Request = TypeVar("_Request")
_Reply = TypeVar("_Reply")
_NO_NOTICES = Notices()
"""The default of a call that tells no notices (never posted to: a board holds its own)."""

MAX_REPLY_BYTES = 1 << 20
"""A reply larger than this is refused (RESOURCE_EXHAUSTED) and counts as malformed."""

CHANNEL_OPTIONS = [
    ("grpc.max_receive_message_length", MAX_REPLY_BYTES),
    # Defaults wait a second or more before reconnecting; a bot that is starting needs ~100 ms.
    ("grpc.initial_reconnect_backoff_ms", 50),
    ("grpc.min_reconnect_backoff_ms", 50),
    ("grpc.max_reconnect_backoff_ms", 250),
    ("grpc.enable_retries", 0),
]
"""The options of every channel the arena opens to a bot."""
# Seconds a call that found the bot unreachable waits for its process to exit.
_EXIT_WAIT = 0.2
# Seconds of new credit below which a call past its extended limit is not extended again.
_CREDIT_STEP = 0.001
_SOCKET = "bot.sock"
"""The socket of a launched bot, in a folder of its own."""
_CLOSE_SECONDS = 5.0
"""How long shutting a bot down waits for grpcio to close its channel before it goes on."""
_MIN_GRACE_MS = 2000
"""The least default grace: a short limit on a busy machine needs more than a few times itself."""
_POLL = 0.25
"""Seconds one health check may take while the bot starts."""
_FIRST_PAUSE, _LAST_PAUSE = 0.001, 0.02
"""Seconds between health checks of a starting bot that is not ready yet: the pause doubles from
the first to the last, so a bot that becomes ready just after a check waits at most about as long
again as it had already waited (at most `_LAST_PAUSE`), and one that loads for seconds is asked
50 times a second."""
_READY_NAMES = ("", SERVICE_NAME)
"""The health service's names that must report SERVING (docs/protocol.md, launch contract 3)."""
_SERVING = health_pb2.HealthCheckResponse.ServingStatus.Name(health_pb2.HealthCheckResponse.SERVING)
_UNKNOWN_NAME = "NOT_FOUND"
"""What a stock health service answers for a name never set: that name is then not waited for."""
_ADDRESS = re.compile(r"^(unix:.+|unix-abstract:.+|\[?[\w.:-]+\]?:\d+)$")


def is_address(text: str) -> bool:
    """Whether a `play` argument names a running bot (`host:port`, `unix:PATH`) rather than a command.

    >>> is_address("127.0.0.1:50051"), is_address("unix:/tmp/bot.sock"), is_address("python3 bot.py")
    (True, True, False)
    """
    return bool(_ADDRESS.match(text))


def with_our_python(command: Sequence[str]) -> tuple[str, ...]:
    """A command whose `python`/`python3` is replaced by the interpreter running the arena.

    Bots written with the Python SDK then find `arena` installed, whatever `python3` is on PATH.

    >>> with_our_python(["python3", "bot.py"])[1:], with_our_python(["node", "index.js"])
    (('bot.py',), ('node', 'index.js'))
    """
    words = tuple(command)
    if words and words[0] in ("python", "python3"):
        return (sys.executable, *words[1:])
    return words


@dataclass(frozen=True)
class TimeLimit:
    """The time a bot is allowed, in whole milliseconds: the unit of the YAML, the CLI and the wire.

    Seconds exist only where trio and gRPC take them: the `*_seconds` properties.
    """

    decision_ms: int = 1000
    """For one decision (Act or Svara), and for one Hello or Notify."""
    time_bank_ms: int = 0
    """Extra time for the whole session, drawn on when a decision runs over `decision_ms`."""
    start_ms: int = 10_000
    """From launch until the health service reports SERVING (the Hello's `start_deadline_ms`)."""
    slack_ms: int = 50
    """Transport allowance on top of each call's limit."""
    grace_ms: int | None = None
    """The most a call's limit is extended for time the bot could not use (see `arena.isolation.CallTime`),
    slack included; None: four times `decision_ms`, and at least `_MIN_GRACE_MS`. Told in the Hello."""

    def __post_init__(self) -> None:
        for name in ("decision_ms", "time_bank_ms", "start_ms", "slack_ms", "grace_ms"):
            value = getattr(self, name)
            if (value is not None or name != "grace_ms") and (type(value) is not int or value < 0):
                # a float here is most likely seconds
                raise ArenaError(f"TimeLimit.{name} is a whole number of milliseconds >= 0, not {value!r}")

    @property
    def granted_grace_ms(self) -> int:
        """`grace_ms`, or its default when None.

        >>> TimeLimit(decision_ms=200).granted_grace_ms, TimeLimit(decision_ms=5000).granted_grace_ms
        (2000, 20000)
        """
        return self.grace_ms if self.grace_ms is not None else max(4 * self.decision_ms, _MIN_GRACE_MS)

    @property
    def decision_seconds(self) -> float:
        return self.decision_ms / 1000

    @property
    def time_bank_seconds(self) -> float:
        return self.time_bank_ms / 1000

    @property
    def start_seconds(self) -> float:
        return self.start_ms / 1000

    @property
    def slack_seconds(self) -> float:
        return self.slack_ms / 1000

    @property
    def grace_seconds(self) -> float:
        return self.granted_grace_ms / 1000


@dataclass(frozen=True)
class BotSpec:
    """How to reach a bot: a command to launch, or the address of one already running."""

    name: str
    command: tuple[str, ...] | None = None
    address: str | None = None
    cwd: str | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    limit: TimeLimit = TimeLimit()
    process: ProcessLimits = ProcessLimits()
    isolation: Isolation = Isolation.NONE
    """How the launched bot is fenced in (ignored for a bot given by address)."""
    disabled: str | None = None
    """Why this bot is not to be started at all; it then folds every turn as crashed."""
    confined: bool = False
    """A stranger's bot (a submission): it sees only its `cwd` and the runtime, and a command that
    names anything outside its `cwd` is refused at launch (see `arena.isolation.confinement_problem`)."""

    def __post_init__(self) -> None:
        if (self.command is None) == (self.address is None):
            raise ArenaError(f"bot {self.name!r} needs exactly one of a command and an address")


@dataclass(frozen=True)
class DecisionCost:
    """What one decision call cost, as the arena measured it (never part of the history: see
    `arena.history.resources_path`)."""

    wall: float
    """Seconds from handing the request to grpcio to the reply (or to the fault)."""
    cpu: float | None
    """CPU seconds the bot's threads ran meanwhile (its control group's threads, or under isolation
    `none` its process tree's); None for a bot given by its address."""
    credit: float
    """Seconds of the call not charged to the bot: time it was kept from the CPU, or the arena was late."""
    timeout: str | None = None
    """For a timeout, whose time ran out: `bot` (it had the CPU it could use), or `arena` (the time it
    could not use reached the grace, so the arena or the machine held it up); None otherwise."""


@dataclass
class Telemetry:
    """What the arena measured of one bot in one session."""

    latencies: list[float] = field(default_factory=list)
    """Seconds per answered decision."""
    faults: Counter[Fault] = field(default_factory=Counter)
    """Fault counts by kind."""
    calls: Counter[str] = field(default_factory=Counter)
    """RPCs made, answered or not, by method (`Hello`, `Act`, `Svara`, `Notify`): what the
    benchmarks count RPCs per decision with."""
    hello: HelloInfo | None = None
    """What the bot said of itself in its HelloReply (None if it did not answer): kept for the
    organiser's information, never used as its name (results use the participant's name)."""

    reasons: Counter[tuple[Fault, str]] = field(default_factory=Counter)
    """Fault counts by kind and reason (what happened, as the arena saw it)."""
    credited: list[float] = field(default_factory=list)
    """Seconds past the per-decision limit not charged to the bot, per call answered that way:
    time it could not use (see `arena.isolation.CallTime`)."""
    ready_seconds: float | None = None
    """From the start of its launch until its health service reported SERVING (None: not launched
    for this session, or never ready)."""
    socket_seconds: float | None = None
    """From the start of its launch until its socket appeared (None: not launched for this session,
    or no socket seen)."""
    ready_checks: int = 0
    """Rounds of health checks until it was ready."""
    process_session: int | None = None
    """Which session of its process this is: 1 for a process launched for it, 2 and more for a warm
    process serving again (`bot_processes: reuse`); None for a bot given by its address."""

    def record_fault(self, kind: Fault, reason: str) -> None:
        """Count one fault of the bot's, with its reason."""
        self.faults[kind] += 1
        self.reasons[(kind, reason)] += 1

    def summary(self) -> dict[str, Any]:
        """Median, p99 and max decision latency in milliseconds, fault counts, the time credited, and
        what the bot said of itself."""
        ordered = sorted(self.latencies)
        def ms(value: float) -> float:
            return round(value * 1000, 3)
        return {
            "decisions": len(ordered),
            "latency_ms": {
                "median": ms(statistics.median(ordered)) if ordered else None,
                "p99": ms(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]) if ordered else None,
                "max": ms(ordered[-1]) if ordered else None,
            },
            "faults": dict(sorted((kind.value, count) for kind, count in self.faults.items())),
            "hello": None if self.hello is None else {"name": self.hello.name, "version": self.hello.version},
            "credited": {"calls": len(self.credited), "ms": ms(sum(self.credited))},
            "launch": None if self.ready_seconds is None else {
                "ready_ms": ms(self.ready_seconds),
                "socket_ms": None if self.socket_seconds is None else ms(self.socket_seconds),
                "checks": self.ready_checks},
            "process_session": self.process_session,
        }


class BotConnection:
    """Calls to one bot, one at a time, each under a deadline the arena enforces.

    Its methods speak engine types: each builds its request, makes the call and converts the
    reply, and a bot that fails the call raises a `BotFault` saying how.
    """

    def __init__(self, spec: BotSpec, address: str, process: BotProcess | None) -> None:
        self.spec = spec
        self.name = spec.name
        self.address = address
        self.process = process
        self._channel = grpc.insecure_channel(address, options=CHANNEL_OPTIONS)
        stub = pb_grpc.SekaBotStub(self._channel)
        self._hello: grpc.UnaryUnaryMultiCallable[pb.HelloRequest, pb.HelloReply] = stub.Hello
        self._act: grpc.UnaryUnaryMultiCallable[pb.TurnRequest, pb.TurnReply] = stub.Act
        self._svara: grpc.UnaryUnaryMultiCallable[pb.SvaraOffer, pb.SvaraReply] = stub.Svara
        self._notify: grpc.UnaryUnaryMultiCallable[pb.Notice, pb.NoticeReply] = stub.Notify
        self._health = health_pb2_grpc.HealthStub(self._channel)
        self.telemetry = Telemetry(process_session=None if process is None else 1)
        self.cpu_base = 0.0
        """CPU seconds the bot's processes had used when its session began (0 for a process launched for it)."""
        # Seconds, for trio and gRPC; read on every call, so converted once.
        self._decision = spec.limit.decision_seconds
        self._slack = spec.limit.slack_seconds
        self._grace = spec.limit.grace_seconds
        # The last answered call: seconds from making it to its reply, and of its time the bot's own.
        self._elapsed = self._charged = 0.0
        self._callback_thread: int | None = None  # grpcio's thread that takes in this bot's replies
        self.bank_left = spec.limit.time_bank_seconds
        """Seconds of the time bank not drawn on yet."""
        self.last_cost: DecisionCost | None = None
        """What the last decision call cost (None before any, or when the bot was not called)."""
        self.dead: BotFault | None = None
        """Set once the bot cannot answer any more (it exited, or never became ready)."""
        self.behind = False
        """True after a call timed out, until the bot answers again: the session's closing Notify
        calls skip it meanwhile, since a bot that is still working on an abandoned call would time
        each of them out too. (Notices inside decision requests still reach it.)"""
        self._watch: Any = None
        """A Health.Watch stream held open while the bot is ready (see `wait_ready`)."""
        self.health: dict[str, str] = {}
        """What the health service said of `""` and `"seka.v1.SekaBot"` when the bot became ready:
        `SERVING`, or `NOT_FOUND` for a name it does not know (check-bot warns of that)."""
        self.seen = f"nothing listening at {address}"
        """What the last readiness check saw, named in the fault of a bot that is not ready in time."""
        self.folder: Path | None = None
        """A launched bot's private socket folder, removed once it is stopped."""
        self.ready_at: float | None = None
        """time.monotonic() when the bot was found ready."""
        self.checked_at: float | None = None
        """time.monotonic() when the first health check was sent."""

    def begin_session(self, served: int) -> None:
        """Make a warm process's connection ready for the `served`-th session of its process: nothing
        the arena knew of its earlier sessions carries over (telemetry and faults, the time bank,
        being behind, the last call's times, the grpcio thread that took its replies in, the CPU it
        used), so every fault and every figure of this session is this session's own."""
        self.telemetry = Telemetry(process_session=served)
        self.bank_left = self.spec.limit.time_bank_seconds
        self.behind = False
        self._elapsed = self._charged = 0.0
        self._callback_thread = None
        self.cpu_base = self.process.cpu.cpu_seconds() if self.process is not None else 0.0

    def is_clean(self) -> bool:
        """Whether the bot got through its session without any fault, alive and answering: only
        such a process may serve another session."""
        return (self.dead is None and not self.behind and not self.telemetry.faults
                and (self.process is None or self.process.returncode is None))

    def close(self) -> None:
        if self._watch is not None:
            self._watch.cancel()
        self._channel.close()

    # ------------------------------------------------------------ readiness

    async def wait_ready(self) -> None:
        """Poll the health service until `""` and `"seka.v1.SekaBot"` are SERVING (a name it does not
        know is not waited for); on failure mark the bot dead with the reason.

        A bot given by its address where nothing listens is a crash at once: nobody is starting it.
        """
        started = time.monotonic()
        pause = _FIRST_PAUSE
        try:
            with trio.fail_after(self.spec.limit.start_seconds):
                while True:
                    if self.process is not None and self.process.returncode is not None:
                        await self._settle_stderr()
                    self._raise_if_exited("exited before it was ready")
                    self.telemetry.ready_checks += 1
                    if await self._is_ready():
                        self.ready_at = time.monotonic()
                        LOGGER.debug("%s ready after %.3fs: %s", self.name, self.ready_at - started, self.health)
                        if self.process is not None:
                            launched = self.process.launched_at
                            self.telemetry.ready_seconds = self.ready_at - launched
                            if self.process.socket_seen is not None:
                                self.telemetry.socket_seconds = self.process.socket_seen - launched
                        # grpcio starts a thread per channel whenever a call begins on an
                        # idle channel and stops it when the last call ends; one long-lived
                        # Watch stream keeps it running, which saves ~100 us of CPU per call.
                        self._watch = self._health.Watch(health_pb2.HealthCheckRequest(service=""))
                        return
                    await trio.sleep(pause)
                    pause = min(2 * pause, _LAST_PAUSE)
        except trio.TooSlowError:
            self.dead = self.not_ready()
        except BotFault as fault:
            self.dead = fault

    def not_ready(self) -> BotFault:
        """The fault of a bot not ready by its start deadline, naming what the arena saw last."""
        return BotFault(Fault.TIMEOUT, f"not ready within {self.spec.limit.start_seconds:g}s: {self.seen}"
                                       f"{self._stderr_note()}")

    async def _is_ready(self) -> bool:
        """One round of health checks, both names; what stands in the way goes to `seen`.

        Raises:
            BotFault: a bot given by its address refused the connection.
        """
        statuses: dict[str, str] = {}
        # Both names at once: a second round trip after the first would be waiting of the arena's own.
        if self.checked_at is None:
            self.checked_at = time.monotonic()
        calls = [(name, PendingCall(self._health.Check, health_pb2.HealthCheckRequest(service=name), timeout=_POLL))
                 for name in _READY_NAMES]
        try:
            for _, call in calls:
                await call.wait(math.inf)  # each ends by its gRPC deadline
        except BaseException:
            for _, call in calls:
                call.cancel()
            raise
        for name, call in calls:
            try:
                reply = call.result()
            except grpc.RpcError as error:
                code, details = error.code(), error.details() or ""
                if code == grpc.StatusCode.NOT_FOUND:
                    statuses[name] = _UNKNOWN_NAME
                    continue
                self.seen = self._unreachable(code, details)
                if code == grpc.StatusCode.UNAVAILABLE and self.process is None:
                    raise BotFault(Fault.CRASH, f"cannot connect: {self.seen}") from None
                return False
            statuses[name] = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)
        if set(statuses.values()) <= {_SERVING, _UNKNOWN_NAME} and _SERVING in statuses.values():
            self.health = statuses
            return True
        self.seen = "the health service reports " + ", ".join(
            f"{json.dumps(name)} {status}{' (a name it does not know)' if status == _UNKNOWN_NAME else ''}"
            for name, status in statuses.items())
        return False

    def _unreachable(self, code: grpc.StatusCode, details: str) -> str:
        """In words, why a health check got no status: what gRPC saw."""
        if code == grpc.StatusCode.UNAVAILABLE:
            return f"nothing listening at {self.address} ({details})"
        if code == grpc.StatusCode.UNIMPLEMENTED:
            return "no health service: grpc.health.v1.Health/Check is not implemented"
        if code == grpc.StatusCode.DEADLINE_EXCEEDED:
            return f"the health service did not answer within {_POLL * 1000:.0f} ms"
        return f"the health check failed: {code.name} {details}".rstrip()

    # ------------------------------------------------------------ calls

    async def hello(self, rules: Rules, *, seats: int, seat: int, session_id: str) -> HelloInfo:
        """Tell the bot the table, its seat and its time limits; what it says of itself."""
        limit = self.spec.limit
        request = hello_request(rules, seats=seats, seat=seat, session_id=session_id, decision_ms=limit.decision_ms,
                                time_bank_ms=limit.time_bank_ms, start_ms=limit.start_ms,
                                grace_ms=limit.granted_grace_ms)
        self.telemetry.hello = hello_from_reply(await self._call(self._hello, "Hello", request, timeout=self._decision))
        return self.telemetry.hello

    async def act(self, view: TurnView, notices: Notices = _NO_NOTICES, *, session_id: str) -> Action | Mix:
        """The bot's action at its turn, or its well-formed mix, `notices` told first: not yet checked
        against the rules (`verify_reply` does, against the state).

        Raises:
            BotFault: no action: late, crashed, or a malformed reply (`MalformedReplyError`).
        """
        request = turn_request(view, session_id=session_id, notices=notices._pending)
        return action_from_reply(await self._decide(self._act, "Act", request))

    async def svara(self, view: SvaraView, notices: Notices = _NO_NOTICES, *, session_id: str) -> SvaraAnswer:
        """The bot's answer to a svara offer, `notices` told first.

        Raises:
            BotFault: no answer: late, crashed, or a malformed reply (`MalformedReplyError`).
        """
        request = svara_offer(view, session_id=session_id, notices=notices._pending)
        return answer_from_reply(await self._decide(self._svara, "Svara", request))

    async def notify_end(self, notices: Notices) -> None:
        """One Notify: `notices` end with the session's end, which carries the ones before it.

        Raises:
            BotFault: the bot did not acknowledge it in time, or failed.
        """
        await self._call(self._notify, "Notify", closing_notice(notices), timeout=self._decision)

    async def _decide(self, rpc: grpc.UnaryUnaryMultiCallable[_Request, _Reply], method: str,
                      request: _Request) -> _Reply:
        """An Act or Svara call: its limit is the per-decision limit plus the time bank left."""
        decision = self._decision
        self.last_cost = None
        try:
            reply = await self._call(rpc, method, request, timeout=decision + self.bank_left, measure=True)
        except BotFault as fault:
            if fault.kind is Fault.TIMEOUT:
                self.bank_left = 0.0  # it ran past the limit by the whole bank
                if (cost := self.last_cost) is not None:  # the grace caps the credit: reaching it is the arena's
                    held_up = cost.credit > 0 and cost.credit >= self._grace - 1e-9
                    self.last_cost = dataclasses.replace(cost, timeout="arena" if held_up else "bot")
            raise
        self.telemetry.latencies.append(self._elapsed)
        if self._charged > decision:  # time it could not use is not taken from its bank either
            self.bank_left = max(0.0, self.bank_left - (self._charged - decision))
        return reply

    async def _call(self, rpc: grpc.UnaryUnaryMultiCallable[_Request, _Reply], method: str, request: _Request, *,
                    timeout: float, measure: bool = False) -> _Reply:
        """One call, held to `timeout` (plus the slack) extended by the time the bot could not use.

        The gRPC deadline is `timeout` plus the grace, the most that extension may reach; the
        arena judges the reply by when grpcio took it in. When the limit passes without a reply,
        the time the bot could not use so far (`CallTime.credit`: kept from the CPU, or grpcio's
        threads kept from it) extends it; again when that passes, until the credit stops growing:
        then it is a timeout. A bot's control group has the default CPU weight during its call and
        a small one otherwise (`Cgroup.set_waiting`). With `measure`, `last_cost` is what the call cost.
        """
        if self.dead is not None:
            raise self.dead
        self.telemetry.calls[method] += 1
        LOGGER.debug("%s %s -> %s", self.name, method, request)
        cgroup = self.process.cgroup if self.process is not None else None
        if self.process is not None:
            self.process.quote_stderr_from_here()
        if cgroup is not None:
            cgroup.set_waiting(False)
        clock = CallTime(self.process.cpu if self.process is not None else None, grace=self._grace,
                         callback_thread=self._callback_thread)
        limit, credit = timeout + self._slack, 0.0
        call: PendingCall[_Request, _Reply] | None = None
        try:
            call = PendingCall(rpc, request, timeout=timeout + self._grace)
            clock.start()
            try:
                # The gRPC deadline ends the call by `timeout + grace`; `slack` past it is the backstop.
                while not await call.wait(clock.at(min(limit + credit, timeout + self._grace + self._slack))):
                    more = clock.credit()
                    if more < credit + _CREDIT_STEP or limit + credit >= timeout + self._grace + self._slack:
                        credit = max(credit, more)
                        call.cancel()
                        self.behind = True
                        raise BotFault(Fault.TIMEOUT, _late(method, timeout, more))
                    credit = more
            except BaseException:
                call.cancel()
                raise
            assert call.arrived is not None
            self._callback_thread = call.thread
            elapsed = call.arrived - clock.started
            reply = call.result()
            # Past the per-decision limit (into the bank, the slack or beyond): how much of its time
            # could it not use? (Read only then: it costs a read per thread of the bot.)
            credit = clock.credit() if elapsed > self._decision else 0.0
            if elapsed > limit + credit:
                self.behind = False  # it did answer, late
                raise BotFault(Fault.TIMEOUT, _late(method, timeout, credit))
        except grpc.RpcError as error:
            if error.code() == grpc.StatusCode.UNAVAILABLE and self.process is not None:
                # A bot that dies mid-call closes its socket a moment before it can be reaped:
                # give it that moment, so the fault names its exit status and marks it dead.
                with trio.move_on_after(_EXIT_WAIT):
                    await self.process.wait()
                    await self._settle_stderr()
            def credit_now() -> float:
                nonlocal credit
                credit = max(credit, clock.credit())
                return credit
            fault = self._fault_from(method, error, timeout, credit=credit_now)
            self.behind = fault.kind is Fault.TIMEOUT
            raise fault from None
        finally:
            if measure:  # one read per thread of the bot (a figure, not the history's: see DecisionCost)
                arrived = call.arrived if call is not None and call.arrived is not None else time.monotonic()
                self.last_cost = DecisionCost(arrived - clock.created, clock.cpu(), credit)
            if cgroup is not None:
                cgroup.set_waiting(True)
        self.behind = False
        self._elapsed = call.arrived - clock.created  # the latency the bot showed, hand-off included
        self._charged = max(0.0, elapsed - credit)
        if credit > 0:
            self.telemetry.credited.append(min(credit, elapsed - self._decision))
        LOGGER.debug("%s %s <- %s", self.name, method, reply)
        return reply

    def _fault_from(self, method: str, error: grpc.RpcError, timeout: float, *,
                    credit: Callable[[], float]) -> BotFault:
        code = error.code()
        details = error.details() or ""
        if code in (grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.CANCELLED):
            return BotFault(Fault.TIMEOUT, _late(method, timeout, credit()))
        if code == grpc.StatusCode.RESOURCE_EXHAUSTED:
            return BotFault(Fault.MALFORMED, f"{method} reply too large: {details}")
        if code == grpc.StatusCode.INTERNAL and "deserializ" in details.lower():
            return BotFault(Fault.MALFORMED, f"{method} reply is not a valid message: {details}")
        if code == grpc.StatusCode.UNIMPLEMENTED:
            return BotFault(Fault.MALFORMED, f"{method} is not implemented by the bot")
        try:
            self._raise_if_exited(f"exited during {method}")
        except BotFault as exited:
            self.dead = exited
            return exited
        if code == grpc.StatusCode.UNAVAILABLE:
            unreachable = BotFault(Fault.CRASH, f"{method}: unreachable ({details})")
            if self.process is None:
                self.dead = unreachable
            return unreachable
        return BotFault(Fault.CRASH, f"{method} failed in the bot: {code.name} {details}")

    async def _settle_stderr(self) -> None:
        # A bot that just exited may have stderr lines still in the pipe: read them, so the fault
        # can quote them (briefly: a child of the bot may hold the pipe open).
        if self.process is not None:
            with trio.move_on_after(_EXIT_WAIT):
                await self.process.stderr_closed.wait()

    def _raise_if_exited(self, what: str) -> None:
        if self.process is not None and self.process.returncode is not None:
            raise BotFault(Fault.CRASH, f"{what} ({self.process.exit_description()}){self._stderr_note()}")

    def _stderr_note(self) -> str:
        excerpt = self.process.stderr_excerpt() if self.process is not None else ""
        return f"; its stderr:\n{excerpt}" if excerpt else ""


def _late(method: str, timeout: float, credit: float) -> str:
    """A timeout's reason: the limit, and the time added to it that the bot could not use.

    >>> _late("Act", 0.2, 0.0), _late("Act", 0.2, 0.0314)
    ('Act not answered within 200 ms', 'Act not answered within 200 ms (+31 ms it could not use)')
    """
    extra = f" (+{credit * 1000:.0f} ms it could not use)" if credit >= 0.0005 else ""
    return f"{method} not answered within {timeout * 1000:.0f} ms{extra}"


@asynccontextmanager
async def open_bot(spec: BotSpec, *, log_dir: Path, socket_dir: Path,
                   hidden: Sequence[Path] = ()) -> AsyncIterator[BotConnection]:
    """Launch (or connect to) a bot and wait until it is ready; stop it and reap it on exit.

    A launched bot listens in a private folder of its own under `socket_dir`, removed afterwards.
    A bot that fails to start is still yielded, with `dead` set, so a session can go on without it.
    A sandboxed bot whose command would show it any part of `hidden` or `log_dir` is refused.

    Raises:
        SandboxError: the machine cannot provide the bot's isolation level.
    """
    if spec.disabled is not None:
        connection = BotConnection(spec, "unix:/nonexistent", None)
        connection.dead = BotFault(Fault.CRASH, spec.disabled)
        try:
            yield connection
        finally:
            connection.close()
        return
    async with trio.open_nursery() as nursery:
        connection = await launch_bot(spec, nursery=nursery, log_dir=log_dir, socket_dir=socket_dir, hidden=hidden)
        try:
            yield connection
        finally:
            await shut_down(connection)


async def launch_bot(spec: BotSpec, *, nursery: trio.Nursery, log_dir: Path, socket_dir: Path,
                     hidden: Sequence[Path] = ()) -> BotConnection:
    """Launch (or connect to) a bot, its output drained in `nursery`, and wait until it is ready:
    `open_bot` without the stopping, for a caller that keeps the bot longer (`shut_down` stops it).

    Raises:
        SandboxError: the machine cannot provide the bot's isolation level.
    """
    address = spec.address
    private: Path | None = None
    process = None
    if spec.command is not None:
        # Short: a unix socket path has room for about 100 bytes.
        private = Path(tempfile.mkdtemp(prefix=f"{spec.name[:12]}-", dir=socket_dir))
        address = f"unix:{private / _SOCKET}"
        if spec.isolation is Isolation.SANDBOX:
            env = sandbox_env(spec.env, address_env=ADDRESS_ENV, address=address)
        else:
            env = {**os.environ, **spec.env, ADDRESS_ENV: address}
        try:
            process = BotProcess.launch(spec.command, name=spec.name, log_dir=log_dir, cwd=spec.cwd, env=env,
                                        limits=spec.process, isolation=spec.isolation, writable=private,
                                        private=hidden, confined=spec.confined)
        except BaseException:
            shutil.rmtree(private, ignore_errors=True)
            raise
        nursery.start_soon(process.drain_output)
    assert address is not None
    connection = BotConnection(spec, address, process)
    connection.folder = private
    try:
        if private is not None:
            await _claim_socket(connection, private / _SOCKET, seal=spec.isolation is Isolation.SANDBOX)
        else:
            await connection.wait_ready()
    except BaseException:
        await shut_down(connection)
        raise
    return connection


async def shut_down(connection: BotConnection) -> None:
    """Close the connection, stop and reap a launched bot, and remove its socket folder; never cancelled.

    grpcio's channel close can wait on its own threads: seen waiting for ever when a run was interrupted
    (SIGINT) while processes were retired. It runs in a worker thread, given `_CLOSE_SECONDS`, so that the
    arena's loop never blocks on it and the bot is stopped either way."""
    with trio.CancelScope(shield=True):
        with trio.move_on_after(_CLOSE_SECONDS) as waiting:
            await trio.to_thread.run_sync(connection.close, abandon_on_cancel=True)
        if waiting.cancelled_caught:
            LOGGER.warning("closing the connection to %s took over %gs: left to a thread", connection.name,
                           _CLOSE_SECONDS)
        if connection.process is not None:
            await connection.process.stop()
    if connection.folder is not None:
        shutil.rmtree(connection.folder, ignore_errors=True)


async def _claim_socket(connection: BotConnection, socket: Path, *, seal: bool) -> None:
    """Wait for a launched bot's socket, then for the bot to be ready, all within its start limit.

    The arena connects only to a socket the bot made in its own folder, never through a symbolic
    link (which would be followed on the host, to any socket it names): a bot whose `bot.sock` is
    anything else is dead (a crash). A sandboxed bot's folder is taken back (`seal_socket_folder`)
    before the first connection, so that the socket checked is the socket connected to.
    """
    process = connection.process
    assert process is not None
    start = connection.spec.limit.start_seconds
    connection.seen = f"nothing listening at {connection.address} (the bot created no socket there)"
    with trio.move_on_after(start) as waiting:
        problem = await process.wait_for_socket(socket)
        if problem is None and seal and process.returncode is None:
            seal_socket_folder(socket.parent, socket)
            problem = await process.wait_for_socket(socket)  # as it stays, now that the bot cannot change it
        if problem is not None:
            connection.dead = BotFault(Fault.CRASH, f"{problem}: the arena connects only to a socket the bot "
                                                    "creates in its own folder")
            return
        await process.wait_listening(socket)
        await connection.wait_ready()
    if waiting.cancelled_caught and connection.dead is None:
        connection.dead = connection.not_ready()
