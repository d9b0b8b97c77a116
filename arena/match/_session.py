"""One session among connected bots: the engine decides, bots only answer.

Every decision goes to the seat's bot under its deadline. A late, malformed, illegal or failed
answer folds the bot at that turn (or declines its svara offer) with the fault recorded in the
history; the session always runs to its end. Only a `BotFault` is the bot's: an engine error while
the arena builds a view or applies a decision is the arena's own bug, and propagates. Each bot
receives only its seat's form of every event, as notices: they wait on the session's notice board
and travel inside the seat's next decision request (Act or Svara); at the session's end each bot
gets one Notify, the session's end carrying what is left.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio

from ..engine import (
    Action,
    Amount,
    Event,
    Fault,
    Mix,
    Phase,
    Rules,
    SessionEnded,
    SessionState,
    Shuffler,
    svara_view,
    turn_view,
)
from ..isolation import session_folder
from ..transport import (
    BotConnection,
    BotFault,
    BotPool,
    BotSpec,
    DecisionCost,
    NoticeBoard,
    Notices,
    open_bot,
    verify_reply,
)
from ._ids import public_session_id, session_key


@dataclass(frozen=True)
class SeatReport:
    """One seat's bot in a finished session: its telemetry and why it failed, if it did."""

    seat: int
    bot: str
    telemetry: dict[str, Any]
    dead_kind: Fault | None
    """How the bot failed for good (it exited, or never became ready), or None."""
    dead_reason: str | None
    """What happened then, in words (the exit status, the last lines of its stderr)."""
    fault_reasons: tuple[tuple[str, str, int], ...] = ()
    """(type, reason, count) of every distinct fault the bot made, most frequent first."""

    @property
    def dead(self) -> str | None:
        """`kind: reason`, for people, or None while the bot lived to the end."""
        return None if self.dead_kind is None else f"{self.dead_kind.value}: {self.dead_reason}"


@dataclass(frozen=True)
class DecisionResources:
    """What one decision of a seat's bot cost: a line of the history's resources file (docs/history.md)."""

    line: int
    """The history line (1-based) of the record the decision made: its action, look or entry."""
    seat: int
    cost: DecisionCost

    def to_json(self) -> dict[str, Any]:
        cost = self.cost
        record: dict[str, Any] = {"line": self.line, "seat": self.seat, "wall_ms": _ms(cost.wall),
                                  "cpu_ms": None if cost.cpu is None else _ms(cost.cpu), "credit_ms": _ms(cost.credit)}
        if cost.timeout is not None:
            record["timeout"] = cost.timeout
        return record


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 3)


@dataclass(frozen=True)
class SessionResult:
    session_id: str
    seed: str
    events: tuple[Event, ...]
    balances: tuple[Amount, ...]
    winners: tuple[int, ...]
    seats: tuple[SeatReport, ...]
    decisions: tuple[DecisionResources, ...] = ()
    """What each decision cost, in the order asked (measured, so never part of the history)."""

    def resources(self) -> list[dict[str, Any]]:
        """The records of the history's resources file: one per decision, then each seat's peak memory."""
        peaks = {str(seat.seat): seat.telemetry.get("peak_memory_kb") for seat in self.seats}
        return [*(decision.to_json() for decision in self.decisions), {"peak_memory_kb": peaks}]


async def _each_bot(bots: Sequence[BotConnection], call: Callable[[int, BotConnection], Awaitable[None]]) -> None:
    """Run `call` for every seat's bot at once; a bot's failure is counted in its telemetry."""

    async def guarded(seat: int, bot: BotConnection) -> None:
        try:
            await call(seat, bot)
        except BotFault as fault:
            bot.telemetry.record_fault(fault.kind, fault.detail)

    async with trio.open_nursery() as nursery:
        for seat, bot in enumerate(bots):
            nursery.start_soon(guarded, seat, bot)


def _post_notices(board: NoticeBoard, bots: Sequence[BotConnection], state: SessionState,
                  events: Sequence[Event]) -> None:
    """Give each seat its form of `events`, the batch that just happened (a dead bot will never be
    asked again: it gets nothing)."""
    board.post(state, events, [seat for seat, bot in enumerate(bots) if bot.dead is None])


async def _notify_the_end(bots: Sequence[BotConnection], board: NoticeBoard) -> None:
    """Send every bot, concurrently, one Notify: the session's end, carrying its notices still pending."""

    async def tell(seat: int, bot: BotConnection) -> None:
        notices = board.take(seat)
        # A bot still working on an abandoned call would time the Notify out as well.
        if notices and bot.dead is None and not bot.behind:
            await bot.notify_end(notices)

    await _each_bot(bots, tell)


async def _hello(bots: Sequence[BotConnection], rules: Rules, session_id: str) -> None:
    async def greet(seat: int, bot: BotConnection) -> None:
        await bot.hello(rules, seats=len(bots), seat=seat, session_id=session_id)

    await _each_bot(bots, greet)


async def _ask(bot: BotConnection, state: SessionState, session_id: str, notices: Notices) -> Action | Mix:
    """The bot's decision (an action, or a mix of actions), one the rules allow now, `notices` told first.

    Raises:
        BotFault: the bot has no such decision (an illegal one included); any other error is the arena's.
    """
    if state.phase is Phase.SVARA_OFFER:
        action: Action | Mix = await bot.svara(svara_view(state), notices, session_id=session_id)
    else:
        action = await bot.act(turn_view(state), notices, session_id=session_id)
    verify_reply(state, action)
    return action


async def _decide(bot: BotConnection, state: SessionState, session_id: str, notices: Notices,
                  costs: list[DecisionResources]) -> list[Event]:
    """Ask the bot to act, telling it `notices` first, and apply its answer; the bot's failure becomes
    the fault's fold or decline. What the call cost joins `costs`, keyed by the line it makes."""
    seat, line = state.to_act, len(state.events) + 1
    assert seat is not None
    try:
        action = await _ask(bot, state, session_id, notices)
        # A mix is drawn from by the engine, from the session's seed and the decision's index (`arena.engine.mix_draw`).
        events = state.apply_mix(action) if isinstance(action, Mix) else state.apply(action)
    except BotFault as fault:
        bot.telemetry.record_fault(fault.kind, fault.detail)
        events = state.apply(None, fault=fault.kind)
    if bot.last_cost is not None:
        costs.append(DecisionResources(line, seat, bot.last_cost))
    return events


async def play_session(
    rules: Rules,
    bots: Sequence[BotConnection],
    *,
    seed: str,
    session_id: str,
    shuffler: Shuffler | None = None,
    public_id: str | None = None,
    on_events: Callable[[SessionState, Sequence[Event]], None] | None = None,
) -> SessionResult:
    """Play a whole session among connected bots, seat i played by `bots[i]`.

    `session_id` names the session in the history; bots are told `public_id`, by default one keyed
    by a fresh random key (`public_session_id`): never anything from which a bot could derive the seed.
    """
    state = SessionState(rules, bots=[bot.name for bot in bots], seed=seed, session=session_id, shuffler=shuffler)
    told_id = public_session_id(session_key(), session_id) if public_id is None else public_id
    await _hello(bots, rules, told_id)
    events: Sequence[Event] = list(state.events)
    board = NoticeBoard(len(bots), session_id=told_id)
    costs: list[DecisionResources] = []
    while True:
        if on_events is not None:
            on_events(state, events)
        _post_notices(board, bots, state, events)
        if state.is_finished:
            break
        seat = state.to_act
        assert seat is not None
        # The seat's pending notices go inside its request: delivered, even if the call then fails.
        events = await _decide(bots[seat], state, told_id, board.take(seat), costs)
    await _notify_the_end(bots, board)
    end = state.events[-1]
    assert isinstance(end, SessionEnded)
    return SessionResult(
        session_id=session_id,
        seed=seed,
        events=tuple(state.events),
        balances=tuple(state.balances),
        winners=end.winners,
        seats=tuple(_report(seat, bot) for seat, bot in enumerate(bots)),
        decisions=tuple(costs),
    )


def _report(seat: int, bot: BotConnection) -> SeatReport:
    dead = bot.dead
    # What its processes used in this session (from launch, for a process launched for it): what the
    # bot costs the machine.
    cpu = None if bot.process is None else round((bot.process.cpu.cpu_seconds() - bot.cpu_base) * 1000)
    peak = None if bot.process is None else bot.process.memory_peak()
    reasons = tuple((kind.value, reason, count) for (kind, reason), count in bot.telemetry.reasons.most_common())
    telemetry = {**bot.telemetry.summary(), "cpu_ms": cpu, "peak_memory_kb": None if peak is None else peak // 1024}
    return SeatReport(seat, bot.name, telemetry, None if dead is None else dead.kind,
                      None if dead is None else dead.detail, reasons)


async def run_session(
    rules: Rules,
    specs: Sequence[BotSpec],
    *,
    seed: str,
    session_id: str,
    log_dir: Path,
    shuffler: Shuffler | None = None,
    public_id: str | None = None,
    on_events: Callable[[SessionState, Sequence[Event]], None] | None = None,
    hidden: Sequence[Path] = (),
    pool: BotPool | None = None,
    last_of_block: bool = False,
) -> SessionResult:
    """Launch (or connect to) every bot afresh, play one session, and stop them all.

    `hidden`: what no sandboxed bot may be shown (the results, the tournament file); a bot whose
    command would show it any part of them, or of `log_dir`, is refused (SandboxError).
    With a `pool`, the bots are leased from it instead (launched for the session, or warm: see
    `arena.transport.BotPool`), keyed by `seed`, and it stops them, or keeps them warm when this is
    the `last_of_block`: no later session of the run deals from `seed`.
    """
    done = trio.Event()
    ready_send, ready_receive = trio.open_memory_channel[tuple[int, BotConnection]](len(specs))

    async def hold(seat: int, spec: BotSpec, sockets: Path | None) -> None:
        # Each bot lives in its own task so that its context is entered and left by the same task.
        opened: AbstractAsyncContextManager[BotConnection]
        if pool is not None:
            opened = pool.lease(spec, key=seed, log_dir=log_dir, final=last_of_block)
        else:
            assert sockets is not None
            opened = open_bot(spec, log_dir=log_dir, socket_dir=sockets, hidden=hidden)
        async with opened as connection:
            await ready_send.send((seat, connection))
            await done.wait()

    with session_folder() if pool is None else nullcontext(None) as sockets:
        async with trio.open_nursery() as nursery:
            for seat, spec in enumerate(specs):  # started together: readiness dominates set-up time
                nursery.start_soon(hold, seat, spec, sockets)
            bots: dict[int, BotConnection] = {}
            try:
                while len(bots) < len(specs):
                    seat, connection = await ready_receive.receive()
                    bots[seat] = connection
                return await play_session(rules, [bots[seat] for seat in range(len(specs))], seed=seed,
                                          session_id=session_id, shuffler=shuffler, public_id=public_id,
                                          on_events=on_events)
            finally:
                done.set()
