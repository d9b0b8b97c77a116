"""Side channels: no sandboxed bot learns what it must not through the kernel, its command line
or its socket, and none can reach what the arena keeps on the host."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import trio

from arena.engine import GEORGIAN
from arena.match import SessionResult, run_session
from arena.transport import BotSpec

from ..match._support import records
from ._support import RELAXED, caller, hostile, reports


def _deals(result: SessionResult, seat: int) -> dict[int, list[str]]:
    """The cards of `seat` at each pot's first deal."""
    return {record["pot"]: record["hands"][str(seat)] for record in records(result.events)
            if record["event"] == "deal" and record["replay"] == 0 and str(seat) in record["hands"]}


async def test_two_copies_of_a_bot_in_mirrored_sessions_at_once_cannot_signal_through_a_per_user_counter(
        tmp_path: Path) -> None:
    # The two mirrors of a duplicate block, played at the same time: the signaller sends from seat 0
    # of the first the cards that its opponent holds in seat 0 of the second, where its copy sits in seat 1.
    rules = GEORGIAN.with_table(pots_per_session=4, max_actions=12)
    signaller = hostile("signaller", "inotify_signaller.py", limit=RELAXED)
    results: dict[int, SessionResult] = {}

    async def play(mirror: int, seating: list[BotSpec]) -> None:
        results[mirror] = await run_session(rules, seating, seed="mirrored", session_id=f"mirror-{mirror}",
                                            log_dir=tmp_path / f"mirror-{mirror}")

    async with trio.open_nursery() as nursery:
        nursery.start_soon(play, 0, [signaller, caller()])
        nursery.start_soon(play, 1, [caller(), signaller])
    for result in results.values():
        assert all(seat.telemetry["faults"] == {} and seat.dead is None for seat in result.seats), result.seats
    opponent_cards = _deals(results[1], 0)
    assert opponent_cards == _deals(results[0], 0)  # the same deals: what the sender knows is worth knowing
    guesses: list[dict[str, Any]] = reports(tmp_path / "mirror-1", "signaller", "inotify")
    assert {guess["pot"] for guess in guesses} == set(opponent_cards), guesses
    assert all(guess["guessed"] is None for guess in guesses), (guesses, opponent_cards)
