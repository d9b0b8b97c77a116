"""One session among connected bots: the engine decides, bots only answer.

Every decision goes to the seat's bot under its deadline. A late, malformed, illegal or failed
answer folds the bot at that turn (or declines its svara offer) with the fault recorded in the
history; the session always runs to its end. Each bot receives only its seat's form of every
event, as notices: they wait in the seat's queue and travel inside its next decision request (Act
or Svara); at the session's end each bot gets one Notify, the session's end carrying what is left.
"""

from __future__ import annotations

import tempfile
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio

from .._proto.seka.v1 import seka_pb2 as pb
from ..engine import (Action, Amount, Event, Fault, IllegalActionError, Phase, Rules, SessionState, Shuffler,
                      svara_view, turn_view)
from ..transport import BotConnection, BotFault, BotSpec, MalformedReplyError, open_bot
from ..transport._convert import (action_from_reply, answer_from_reply, closing_notice, hello_request, notices_for,
                                 svara_offer, turn_request)


@dataclass(frozen=True)
class SeatReport:
    """One seat's bot in a finished session: its telemetry and why it failed, if it did."""

    seat: int
    bot: str
    telemetry: dict[str, Any]
    dead: str | None


@dataclass(frozen=True)
class SessionResult:
    session_id: str
    seed: str
    events: tuple[Event, ...]
    balances: tuple[Amount, ...]
    winners: tuple[int, ...]
    seats: tuple[SeatReport, ...]


async def _each_bot(bots: Sequence[BotConnection], call: Callable[[int, BotConnection], Awaitable[None]]) -> None:
    """Run `call` for every seat's bot at once; a bot's failure is counted in its telemetry."""

    async def guarded(seat: int, bot: BotConnection) -> None:
        try:
            await call(seat, bot)
        except BotFault as fault:
            bot.telemetry.faults[fault.kind.value] += 1

    async with trio.open_nursery() as nursery:
        for seat, bot in enumerate(bots):
            nursery.start_soon(guarded, seat, bot)


def _queue_notices(pending: Sequence[list[pb.Notice]], bots: Sequence[BotConnection], state: SessionState,
                   events: Sequence[Event], session_id: str) -> None:
    """Add to each seat's pending notices its form of `events`, the batch that just happened.

    Built at once, since `notice_for` reads the balances and pot right after the batch. A dead
    bot will never be asked again: it gets nothing.
    """
    listening = [seat for seat, bot in enumerate(bots) if bot.dead is None]
    for event in events:
        told = notices_for(event, listening, session_id=session_id, bots=state.bots, balances=state.balances,
                           pot=state.pot)
        for seat, notice in told.items():
            pending[seat].append(notice)


async def _notify_the_end(bots: Sequence[BotConnection], pending: Sequence[list[pb.Notice]]) -> None:
    """Send every bot, concurrently, one Notify: the session's end, carrying its notices still pending."""

    async def tell(seat: int, bot: BotConnection) -> None:
        # A bot still working on an abandoned call would time the Notify out as well.
        if pending[seat] and bot.dead is None and not bot.behind:
            await bot.call("Notify", closing_notice(pending[seat]))

    await _each_bot(bots, tell)


async def _hello(bots: Sequence[BotConnection], rules: Rules, session_id: str) -> None:
    async def greet(seat: int, bot: BotConnection) -> None:
        limit = bot.spec.limit
        await bot.call("Hello", hello_request(
            rules, seats=len(bots), seat=seat, session_id=session_id, decision_ms=limit.decision_ms,
            time_bank_ms=limit.time_bank_ms, start_ms=limit.start_ms))

    await _each_bot(bots, greet)


async def _decide(bot: BotConnection, state: SessionState, session_id: str,
                  notices: Sequence[pb.Notice] = ()) -> list[Event]:
    """Ask the bot to act, telling it `notices` first, and apply its answer; any failure becomes the
    fault's fold or decline."""
    try:
        action: Action
        if state.phase is Phase.SVARA_OFFER:
            offer = svara_offer(svara_view(state), session_id=session_id, dealer=state.dealer, notices=notices)
            action = answer_from_reply(await bot.decide("Svara", offer))
        else:
            turn = turn_request(turn_view(state), session_id=session_id, notices=notices)
            action = action_from_reply(await bot.decide("Act", turn))
        return state.apply(action)
    except BotFault as fault:
        kind = fault.kind
    except MalformedReplyError:
        kind = Fault.MALFORMED
    except IllegalActionError:
        kind = Fault.ILLEGAL
    bot.telemetry.faults[kind.value] += 1
    return state.apply(None, fault=kind)


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

    `session_id` names the session in the history; bots are told `public_id` (default: the same).
    """
    state = SessionState(rules, bots=[bot.name for bot in bots], seed=seed, session=session_id, shuffler=shuffler)
    told_id = session_id if public_id is None else public_id
    await _hello(bots, rules, told_id)
    events: Sequence[Event] = list(state.events)
    pending: list[list[pb.Notice]] = [[] for _ in bots]
    while True:
        if on_events is not None:
            on_events(state, events)
        _queue_notices(pending, bots, state, events, told_id)
        if state.is_finished:
            break
        seat = state.to_act
        assert seat is not None
        # The seat's pending notices go inside its request: delivered, even if the call then fails.
        notices, pending[seat] = pending[seat], []
        events = await _decide(bots[seat], state, told_id, notices)
    await _notify_the_end(bots, pending)
    end = state.events[-1]
    return SessionResult(
        session_id=session_id,
        seed=seed,
        events=tuple(state.events),
        balances=tuple(state.balances),
        winners=end.winners,  # type: ignore[union-attr]
        seats=tuple(SeatReport(seat, bot.name, bot.telemetry.summary(), str(bot.dead) if bot.dead else None)
                    for seat, bot in enumerate(bots)),
    )


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
) -> SessionResult:
    """Launch (or connect to) every bot afresh, play one session, and stop them all.

    `hidden`: what no sandboxed bot may be shown (the results, the tournament file); a bot whose
    command would show it any part of them, or of `log_dir`, is refused (SandboxError).
    """
    done = trio.Event()
    ready_send, ready_receive = trio.open_memory_channel[tuple[int, BotConnection]](len(specs))

    async def hold(seat: int, spec: BotSpec, sockets: Path) -> None:
        # Each bot lives in its own task so that its context is entered and left by the same task.
        async with open_bot(spec, log_dir=log_dir, socket_dir=sockets, hidden=hidden) as connection:
            await ready_send.send((seat, connection))
            await done.wait()

    with tempfile.TemporaryDirectory(prefix="seka-") as sockets:
        async with trio.open_nursery() as nursery:
            for seat, spec in enumerate(specs):  # started together: readiness dominates set-up time
                nursery.start_soon(hold, seat, spec, Path(sockets))
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
