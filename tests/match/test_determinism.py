"""The same seed and the same deterministic bots give byte-identical histories, however many
sessions run at once."""

from __future__ import annotations

from pathlib import Path

import trio

from arena.history import history_text
from arena.match import run_session
from arena.transport import BotSpec

from ._support import RELAXED, TWO_POTS, sample_spec

RULES = TWO_POTS.with_table(max_actions=30)
_BOTS = {
    "call": ("call_bot.py",),
    "threshold": ("threshold_bot.py",),
    "random": ("random_bot.py", "--seed", "7"),
}
# Eight sessions: each seed with its own table of deterministic bots (the random bot is seeded).
_TABLES = [
    ["call", "threshold"], ["random", "call"], ["threshold", "random", "call"], ["random", "threshold"],
    ["call", "random", "threshold"], ["threshold", "call"], ["random", "call", "threshold"], ["call", "random"],
]


def _specs(table: list[str]) -> list[BotSpec]:
    return [sample_spec(f"{name}{seat}", *_BOTS[name], limit=RELAXED) for seat, name in enumerate(table)]


async def _history(index: int, log_dir: Path) -> str:
    result = await run_session(RULES, _specs(_TABLES[index]), seed=f"det-{index}", session_id=f"det-{index}",
                               log_dir=log_dir)
    assert all(report.telemetry["faults"] == {} for report in result.seats), result.seats
    return history_text(result.events)


async def test_histories_are_byte_identical_one_at_a_time_or_eight_at_once(tmp_path: Path) -> None:
    alone = [await _history(index, tmp_path / "alone" / str(index)) for index in range(len(_TABLES))]
    together: dict[int, str] = {}

    async def play(index: int) -> None:
        together[index] = await _history(index, tmp_path / "together" / str(index))

    async with trio.open_nursery() as nursery:
        for index in range(len(_TABLES)):
            nursery.start_soon(play, index)
    assert len(set(alone)) == len(alone)  # eight different sessions
    for index, text in enumerate(alone):
        assert together[index].encode() == text.encode(), f"session det-{index} differs when run concurrently"
