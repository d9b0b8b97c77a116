"""Whole sessions among real sample-bot processes over real gRPC."""

from __future__ import annotations

import sys
from pathlib import Path

from arena.engine import GEORGIAN
from arena.history import history_text, write_history
from arena.match import run_session
from arena.replay import replay_file
from arena.transport import BotSpec, TimeLimit

ROOT = Path(__file__).resolve().parents[2]


def _spec(name: str, script: str) -> BotSpec:
    return BotSpec(name=name, command=(sys.executable, str(ROOT / "sample_bots" / script)),
                   limit=TimeLimit(decision_ms=2000))


async def test_a_session_among_sample_bots_completes_and_replays(tmp_path: Path) -> None:
    specs = [_spec("random", "random_bot.py"), _spec("threshold", "threshold_bot.py"), _spec("strong", "strong_bot.py")]
    result = await run_session(GEORGIAN, specs, seed="match-1", session_id="m1", log_dir=tmp_path / "logs")
    assert sum(result.balances) == 0
    assert all(report.telemetry["faults"] == {} and report.dead is None for report in result.seats)
    assert all(report.telemetry["decisions"] > 0 for report in result.seats)
    history = write_history(tmp_path / "m1.jsonl", result.events)
    assert replay_file(history).state.balances == list(result.balances)


async def test_same_seed_and_deterministic_bots_give_identical_histories(tmp_path: Path) -> None:
    texts = []
    for run in range(2):
        specs = [_spec("call", "call_bot.py"), _spec("threshold", "threshold_bot.py")]
        result = await run_session(GEORGIAN, specs, seed="same", session_id="same", log_dir=tmp_path / str(run))
        texts.append(history_text(result.events))
    assert texts[0] == texts[1]
