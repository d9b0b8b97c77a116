"""Whole sessions of every profile among real sample-bot processes over real gRPC: legal play, no
faults, zero-sum balances, and histories that pass `replay`."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from arena.engine import profile
from arena.history import write_history
from arena.match import run_session
from arena.replay import replay_file
from arena.transport import BotSpec, TimeLimit

ROOT = Path(__file__).resolve().parents[2]
LIMIT = TimeLimit(decision_ms=3000)
GO_BOT = ROOT / "sample_bots/go_bot/go_bot"
PYTHON_BOTS = ["random_bot.py", "threshold_bot.py", "strong_bot.py", "call_bot.py", "minimal_bot.py"]

# Each profile and option set, with the seats it is played at (every option of PROFILES.md at least once).
CASES = [
    ("georgian", {"deck": "32", "dark": "true"}, 3),
    ("georgian", {"tie": "split"}, 4),
    ("classic", {}, 5),
    ("classic", {"wild": "black7", "cards": "2", "open": "multiway", "dark": "true"}, 4),
    ("classic", {"wild": "none", "deck": "24", "tie": "split"}, 3),
    ("seka36", {"dark": "true", "tie": "split"}, 2),
    ("svara32", {}, 2),
    ("seka21", {"dark": "true", "stack": "20"}, 2),
]


def _spec(name: str, number: int) -> BotSpec:
    if name == "go":
        return BotSpec(name=f"go-{number}", command=(str(GO_BOT),), limit=LIMIT)
    if name == "js":
        return BotSpec(name=f"js-{number}", command=("node", str(ROOT / "sample_bots/js_bot/index.js")), limit=LIMIT)
    return BotSpec(name=f"{name.removesuffix('_bot.py')}-{number}",
                   command=(sys.executable, str(ROOT / "sample_bots" / name), *(["--seed", str(number)]
                                                                               if name == "random_bot.py" else [])),
                   limit=LIMIT)


@pytest.mark.parametrize("name, options, seats", CASES, ids=[f"{n}-{'-'.join(o.values()) or 'default'}"
                                                             for n, o, _ in CASES])
async def test_sample_bots_play_a_whole_session_of_the_profile(name: str, options: dict[str, str], seats: int,
                                                                tmp_path: Path) -> None:
    if shutil.which("node") is None or not (ROOT / "sample_bots/js_bot/node_modules").is_dir():
        pytest.fail("node and sample_bots/js_bot/node_modules are needed: run `make test`, which installs them")
    rules = profile(name, options).with_table(pots_per_session=4, max_actions=40)
    # The random bot everywhere (it tries every legal action), the JS bot, then the Python ones in turn.
    lineup = ["random_bot.py", "js", *PYTHON_BOTS[1:]][:seats]
    specs = [_spec(bot, number) for number, bot in enumerate(lineup)]
    result = await run_session(rules, specs, seed=f"profile-{name}", session_id=f"p-{name}", log_dir=tmp_path / "logs")
    for report in result.seats:
        assert report.dead is None and report.telemetry["faults"] == {}, report
        assert report.telemetry["decisions"] > 0, report
    assert sum(result.balances) == 0
    history = write_history(tmp_path / "p.jsonl", result.events)
    assert replay_file(history).state.balances == list(result.balances)
    kinds = {event.KIND for event in result.events}
    if options.get("dark") == "true":
        assert "look" in kinds


@pytest.mark.parametrize("name, options, seats", CASES, ids=[f"{n}-{'-'.join(o.values()) or 'default'}"
                                                             for n, o, _ in CASES])
async def test_the_go_bot_plays_a_whole_session_of_the_profile(name: str, options: dict[str, str], seats: int,
                                                               tmp_path: Path) -> None:
    if not GO_BOT.is_file():
        pytest.fail("sample_bots/go_bot/go_bot is not built: run `make go_bot` (make test does)")
    rules = profile(name, options).with_table(pots_per_session=4, max_actions=40)
    lineup = ["random_bot.py", "go", *PYTHON_BOTS[1:]][:seats]
    specs = [_spec(bot, number) for number, bot in enumerate(lineup)]
    result = await run_session(rules, specs, seed=f"go-{name}", session_id=f"g-{name}", log_dir=tmp_path / "logs")
    for report in result.seats:
        assert report.dead is None and report.telemetry["faults"] == {}, report
        assert report.telemetry["decisions"] > 0, report
    assert sum(result.balances) == 0
    assert replay_file(write_history(tmp_path / "g.jsonl", result.events)).state.balances == list(result.balances)
