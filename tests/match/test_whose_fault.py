"""Whose fault it is: an engine error raised by the arena's own code is never scored as a bot's."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from arena.engine import Amount, IllegalActionError, SessionState
from arena.match import _session, play_session
from arena.transport import BotConnection, open_bot

from ._support import RELAXED, TWO_POTS, sample_spec


@asynccontextmanager
async def two_callers(tmp_path: Path) -> AsyncIterator[list[BotConnection]]:
    async with open_bot(sample_spec("a", "call_bot.py", limit=RELAXED), log_dir=tmp_path / "logs",
                        socket_dir=tmp_path) as a, \
            open_bot(sample_spec("b", "call_bot.py", limit=RELAXED), log_dir=tmp_path / "logs",
                     socket_dir=tmp_path) as b:
        yield [a, b]


def _arena_bug(*args: Any, **kwargs: Any) -> Any:
    raise IllegalActionError("a bug of the arena's own")


@pytest.mark.parametrize("breaks", [
    lambda monkeypatch: monkeypatch.setattr(SessionState, "bet", _arena_bug),  # applying a legal bet
    lambda monkeypatch: monkeypatch.setattr(_session, "turn_view", _arena_bug),  # building the seat's view
], ids=["applying", "building-the-view"])
async def test_an_engine_error_of_the_arena_propagates_and_folds_no_bot(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, breaks: Callable[[pytest.MonkeyPatch], None]) -> None:
    async with two_callers(tmp_path) as bots:
        breaks(monkeypatch)
        with pytest.raises(IllegalActionError, match="a bug of the arena's own"):
            await play_session(TWO_POTS, bots, seed="whose", session_id="whose")
        assert all(bot.telemetry.faults == {} for bot in bots)


async def test_a_reply_the_rules_refuse_is_the_bots_illegal_fault(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    # The same path with the refusal in the rules' check of the bot's bet: the bot's fault, and play goes on.
    verify_bet = SessionState.verify_bet

    def refuse_seat_1(state: SessionState, amount: Amount) -> None:
        if state.to_act == 1:
            raise IllegalActionError("seat 1 may not bet today")
        verify_bet(state, amount)

    async with two_callers(tmp_path) as bots:
        monkeypatch.setattr(SessionState, "verify_bet", refuse_seat_1)
        result = await play_session(TWO_POTS, bots, seed="whose", session_id="whose")
    assert result.seats[1].telemetry["faults"] == {"illegal": 2}  # one fold per pot
    assert result.seats[0].telemetry["faults"] == {}
