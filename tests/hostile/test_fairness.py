"""A fault is the bot's own: another bot's CPU use or output never makes a fair bot time out,
and a bot that is slow with the CPU there for it is still charged its timeouts.

The fair bot burns a fixed amount of CPU at each decision, well inside its limit on an idle core;
its neighbour answers at once but keeps the machine busy (processes spinning on every core it may
use, stderr flooded so that reading it costs the arena CPU).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from arena.engine import GEORGIAN
from arena.isolation import Isolation
from arena.match import run_session
from arena.transport import BotSpec, TimeLimit

from ..match._support import BOTS as MATCH_BOTS
from ._support import NONE, RELAXED, SANDBOX, hostile, reports

SHORT = GEORGIAN.with_table(pots_per_session=2, max_actions=8)
DECISION = TimeLimit(decision_ms=500, start_ms=10_000, grace_ms=10_000)
"""A grace far past the default, for a test machine busy with other work besides."""
BURN_MS = 450
"""CPU per decision of the fair bot: 90 % of its limit, so that sharing a core with anyone makes it late
(on main, before the fix, it then timed out at every decision; alone it never did)."""


@pytest.mark.parametrize("isolation", [NONE, SANDBOX], ids=["none", "sandbox"])
async def test_a_noisy_neighbour_does_not_make_a_fair_bot_time_out(tmp_path: Path, isolation: Isolation) -> None:
    fair = hostile("fair", "fair_burner.py", str(BURN_MS), isolation=isolation, limit=DECISION)
    noisy = hostile("noisy", "noisy_neighbour.py", "--spin", "3", "--stderr", isolation=isolation, limit=RELAXED)
    result = await run_session(SHORT, [fair, noisy], seed="noisy", session_id="noisy", log_dir=tmp_path / "logs")
    seat = result.seats[0]
    assert seat.telemetry["faults"] == {} and seat.dead is None, seat
    assert seat.telemetry["decisions"] >= 8, seat  # it called each time, to the action cap
    assert reports(tmp_path / "logs", "noisy", "noisy") == [{"spinners": 3}]  # it did attack


async def test_a_bot_that_sleeps_past_its_limit_is_still_charged_its_timeouts(tmp_path: Path) -> None:
    # The same generous grace: it covers only time the bot could not use, and a sleeping bot
    # had all of it.
    slow = BotSpec(name="slow", command=(sys.executable, str(MATCH_BOTS / "faulty_bot.py"), "--mode", "slow",
                                         "--seconds", "1.5"), limit=DECISION)
    fair = hostile("fair", "fair_burner.py", "0", isolation=NONE, limit=RELAXED)
    result = await run_session(SHORT, [fair, slow], seed="slow", session_id="slow", log_dir=tmp_path / "logs")
    seat = result.seats[1]
    assert seat.telemetry["faults"].get("timeout", 0) >= 2 and seat.telemetry["decisions"] == 0, seat
    for kind, reason, _ in seat.fault_reasons:
        assert kind == "timeout" and reason.startswith("Act not answered within 500 ms"), reason
    assert result.seats[0].telemetry["faults"] == {}
