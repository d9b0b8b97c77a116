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
# Four sessions, each seed with its own table of deterministic bots (the random bot is seeded).
_TABLES = [["call", "threshold"], ["random", "call"], ["threshold", "random", "call"], ["random", "threshold"]]


def _specs(table: list[str]) -> list[BotSpec]:
    return [sample_spec(f"{name}{seat}", *_BOTS[name], limit=RELAXED) for seat, name in enumerate(table)]


async def _history(index: int, log_dir: Path) -> str:
    result = await run_session(RULES, _specs(_TABLES[index]), seed=f"det-{index}", session_id=f"det-{index}",
                               log_dir=log_dir)
    assert all(report.telemetry["faults"] == {} for report in result.seats), result.seats
    return history_text(result.events)


async def test_histories_are_byte_identical_one_at_a_time_or_eight_at_once(tmp_path: Path) -> None:
    alone = [await _history(index, tmp_path / "alone" / str(index)) for index in range(len(_TABLES))]
    assert len(set(alone)) == len(alone)  # different sessions
    together: dict[tuple[int, int], str] = {}

    async def play(index: int, copy: int) -> None:
        together[index, copy] = await _history(index, tmp_path / "together" / f"{index}-{copy}")

    async with trio.open_nursery() as nursery:  # each session twice: eight at once
        for copy in range(2):
            for index in range(len(_TABLES)):
                nursery.start_soon(play, index, copy)
    assert len(together) == 8
    for (index, copy), text in together.items():
        assert text.encode() == alone[index].encode(), f"session det-{index} (copy {copy}) differs run concurrently"
