"""What each decision cost (wall time, the bot's own CPU) and each bot's peak memory, measured on
real bot processes under isolation `none` and `sandbox`, and kept out of the history."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.history import history_text
from arena.isolation import CallTime, Isolation, isolation_problem
from arena.match import SessionResult, run_session
from arena.transport import TimeLimit

from ._support import RELAXED, TWO_POTS, records, sample_spec, spec

LEVELS = pytest.mark.parametrize("isolation", [Isolation.NONE, Isolation.SANDBOX], ids=["none", "sandbox"])
SHORT = TWO_POTS.with_table(max_actions=8)


def needs(isolation: Isolation) -> None:
    if (problem := isolation_problem(isolation)) is not None:
        pytest.skip(f"isolation `{isolation.value}` is not available here: {problem}")


def seat_costs(result: SessionResult, seat: int) -> list[dict[str, object]]:
    return [decision.to_json() for decision in result.decisions if decision.seat == seat]


@LEVELS
async def test_a_busy_bot_uses_clearly_more_cpu_per_decision_than_one_that_waits_idle(
        tmp_path: Path, isolation: Isolation) -> None:
    needs(isolation)
    # Both take about 80 ms a decision: one computing, the other asleep.
    specs = [spec("burn", "faulty_bot.py", "--mode", "burn", "--seconds", "0.08", limit=RELAXED, isolation=isolation),
             spec("sleep", "faulty_bot.py", "--mode", "slow", "--seconds", "0.08", limit=RELAXED,
                  isolation=isolation)]
    result = await run_session(SHORT, specs, seed="cpu", session_id="cpu", log_dir=tmp_path / "logs")
    burn, sleep = seat_costs(result, 0), seat_costs(result, 1)
    history = records(result.events)
    assert burn and sleep
    for cost in burn + sleep:  # each keyed by the line of the record the decision made, its seat's
        made = history[int(cost["line"]) - 1]  # type: ignore[call-overload]
        assert made["event"] in ("action", "entry", "look") and made["seat"] == cost["seat"], (cost, made)
        assert "fault" not in made and "timeout" not in cost
        assert float(cost["wall_ms"]) >= 80  # type: ignore[arg-type]
    burnt = sorted(float(cost["cpu_ms"]) for cost in burn)  # type: ignore[arg-type]
    slept = sorted(float(cost["cpu_ms"]) for cost in sleep)  # type: ignore[arg-type]
    assert burnt[0] >= 60, burnt  # its 80 ms of CPU, less a clock tick's rounding at most
    assert slept[-1] < 30, slept
    assert len({cost["line"] for cost in burn + sleep}) == len(burn) + len(sleep)


@LEVELS
async def test_a_bot_that_holds_n_megabytes_peaks_at_n_megabytes_or_more(tmp_path: Path, isolation: Isolation) -> None:
    needs(isolation)
    specs = [spec("big", "faulty_bot.py", "--mode", "allocate", "--bytes", str(120 << 20), limit=RELAXED,
                  isolation=isolation),
             sample_spec("call", "call_bot.py", limit=RELAXED, isolation=isolation)]
    result = await run_session(SHORT, specs, seed="memory", session_id="memory", log_dir=tmp_path / "logs")
    peaks = result.resources()[-1]["peak_memory_kb"]
    assert peaks["0"] >= 120 << 10, peaks
    # the caller holds no such block; both hold an interpreter and grpcio, whose size varies with the
    # machine's load and the group's page cache (26-49 MiB seen), so the margin is well below 120 MiB
    assert 0 < peaks["1"] < peaks["0"] - (80 << 10), peaks
    assert result.seats[0].telemetry["peak_memory_kb"] == peaks["0"]


async def test_a_timeout_says_it_was_the_bots_own(tmp_path: Path) -> None:
    specs = [spec("hang", "faulty_bot.py", "--mode", "hang",
                  limit=TimeLimit(decision_ms=150, start_ms=5000, grace_ms=2000)),
             sample_spec("call", "call_bot.py", limit=RELAXED)]
    result = await run_session(TWO_POTS.with_table(pots_per_session=1), specs, seed="late", session_id="late",
                               log_dir=tmp_path / "logs")
    hung = seat_costs(result, 0)
    assert hung and all(cost["timeout"] == "bot" for cost in hung), hung
    assert float(hung[0]["wall_ms"]) >= 150  # type: ignore[arg-type]
    assert all("timeout" not in cost for cost in seat_costs(result, 1))
    history = records(result.events)
    assert all(history[int(cost["line"]) - 1].get("fault") == "timeout" for cost in hung)  # type: ignore[call-overload]


async def test_the_figures_stay_out_of_the_history_whose_bytes_the_seed_and_decisions_fix(tmp_path: Path) -> None:
    specs = [sample_spec("a", "call_bot.py", limit=RELAXED), sample_spec("b", "threshold_bot.py", limit=RELAXED)]
    played = [await run_session(SHORT, specs, seed="same", session_id="same", log_dir=tmp_path / f"logs{run}")
              for run in range(2)]
    assert history_text(played[0].events) == history_text(played[1].events)
    assert all(result.decisions for result in played)
    assert "wall_ms" not in history_text(played[0].events) and "cpu_ms" not in history_text(played[0].events)


async def test_a_timeout_the_arena_held_up_past_the_grace_says_it_was_the_arenas(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The fairness code decides whose time it was: here it finds the bot kept from the CPU for the whole
    # grace (as on a machine swamped by others), so the time ran out in the arena's hands.
    monkeypatch.setattr(CallTime, "credit", lambda self: self.grace)
    specs = [spec("hang", "faulty_bot.py", "--mode", "hang",
                  limit=TimeLimit(decision_ms=100, start_ms=5000, grace_ms=300)),
             sample_spec("call", "call_bot.py", limit=RELAXED)]
    result = await run_session(TWO_POTS.with_table(pots_per_session=1), specs, seed="held", session_id="held",
                               log_dir=tmp_path / "logs")
    hung = seat_costs(result, 0)
    assert hung and hung[0]["timeout"] == "arena" and float(hung[0]["credit_ms"]) >= 300, hung  # type: ignore[arg-type]
    assert float(hung[0]["wall_ms"]) >= 100 + 300  # type: ignore[arg-type]
