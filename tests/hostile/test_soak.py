"""Arena load: a sandboxed tournament of 24 sessions, 8 at a time, with hostile bots mixed in.

A fork bomb, a memory hog and a bot that ignores every signal play a round robin with the call
bot (every pair twice, duplicate dealing). Every session must be recorded, every history must
pass `seka-arena replay`'s check, the call bot must never fault, and (conftest) nothing may be
left running afterwards.
"""

from __future__ import annotations

import sys
from pathlib import Path

from arena.replay import replay_file
from arena.tournament import TournamentRunner, load_config

from ..match._support import SAMPLE_BOTS
from ._support import HOSTILE, tournament_file

_SESSIONS = 24


async def test_24_sandboxed_sessions_8_at_a_time_with_hostile_bots_all_recorded_and_replayable(
        tmp_path: Path) -> None:
    path = tournament_file(tmp_path / "soak.yaml", [
        {"name": "call", "command": f"python3 {SAMPLE_BOTS / 'call_bot.py'}"},
        {"name": "bomb", "command": f"python3 {HOSTILE / 'fork_bomb.py'}"},
        {"name": "hog", "command": f"python3 {HOSTILE / 'memory_hog.py'}", "limits": {"memory_mb": 128}},
        {"name": "immune", "command": f"python3 {HOSTILE / 'signal_immune.py'}"},
    ], pots=2, sessions_per_table=2, concurrency=8)
    runner = TournamentRunner(load_config(path, python=sys.executable), out=tmp_path / "out")
    try:
        assert await runner.run()
        finished = runner.store.finished_results()
        assert len(finished) == _SESSIONS and not runner.store.unfinished()
        runner.write_results()
    finally:
        runner.close()
    for record in finished:
        assert record.history_path is not None
        replay_file(runner.directory / record.history_path)  # raises at the first broken rule
        faults = record.faults or {}
        if "call" in record.table:
            assert faults["call"] == {}, (record.id, faults)
        if "hog" in record.table:  # killed at its first turn, at the memory limit
            assert faults["hog"].get("crash", 0) >= 1, (record.id, faults)
        for kinds in faults.values():
            assert set(kinds) <= {"timeout", "crash", "malformed", "illegal"}
