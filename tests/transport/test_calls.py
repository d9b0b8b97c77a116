"""The transport's calls speak engine types: views and notices in, actions and bot facts out."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import trio

from arena.engine import GEORGIAN, Bet, Fold, SessionState, turn_view
from arena.protocol import PROTOCOL_VERSION
from arena.transport import HelloInfo, NoticeBoard, open_bot, open_raw_client

from ..match._support import RELAXED, sample_spec


async def test_a_call_bot_greets_acts_and_acknowledges_the_end(tmp_path: Path) -> None:
    state = SessionState(GEORGIAN.with_table(pots_per_session=1), bots=["call", "other"], seed="calls", session="c")
    board = NoticeBoard(2, session_id="c")
    board.post(state, state.events, [0, 1])
    async with open_bot(sample_spec("call", "call_bot.py", limit=RELAXED), log_dir=tmp_path / "logs",
                        socket_dir=tmp_path) as bot:
        info = await bot.hello(state.rules, seats=2, seat=0, session_id="c")
        assert info == HelloInfo(name="call", version=info.version, protocol_version=PROTOCOL_VERSION)
        seat = state.to_act
        assert seat is not None
        notices = board.take(seat)
        assert notices.kinds() == ["deal"] and len(board.take(seat)) == 0  # taken once
        assert await bot.act(turn_view(state), notices, session_id="c") == Bet(state.legal_actions().min_bet)
        while not state.is_finished:  # everyone folds to the end: the last notices carry the session's end
            board.post(state, state.apply(Fold()), [0, 1])
        notices = board.take(seat)
        assert notices.kinds()[-2:] == ["pot result", "session end"]
        await bot.notify_end(notices)
        assert bot.telemetry.summary()["faults"] == {} and bot.telemetry.summary()["decisions"] == 1


async def test_the_raw_client_makes_the_same_call_with_nothing_around_it(tmp_path: Path) -> None:
    state = SessionState(GEORGIAN, bots=["call", "other"], seed="raw")
    async with open_bot(sample_spec("call", "call_bot.py", limit=RELAXED), log_dir=tmp_path / "logs",
                        socket_dir=tmp_path) as bot:
        with open_raw_client(bot.address) as raw:
            request = raw.prebuilt_turn(turn_view(state), session_id="raw")
            blocking = raw.action(await trio.to_thread.run_sync(lambda: raw.act(request, timeout=5.0)))
            bridged = raw.action(await raw.act_bridged(request, timeout=5.0))
        assert blocking == bridged == await bot.act(turn_view(state), session_id="raw") == Bet(
            state.legal_actions().min_bet)


async def test_every_call_is_counted_by_method(tmp_path: Path) -> None:
    state = SessionState(GEORGIAN, bots=["call", "other"], seed="counted", session="n")
    async with open_bot(sample_spec("call", "call_bot.py", limit=RELAXED), log_dir=tmp_path / "logs",
                        socket_dir=tmp_path) as bot:
        await bot.hello(state.rules, seats=2, seat=0, session_id="n")
        for _ in range(2):
            await bot.act(turn_view(state), session_id="n")
        assert bot.telemetry.calls == Counter({"Hello": 1, "Act": 2})
