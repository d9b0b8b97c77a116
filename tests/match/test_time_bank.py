"""Deadlines from the per-decision limit plus the time bank, and the telemetry a session reports."""

from __future__ import annotations

from pathlib import Path

from arena.engine import GEORGIAN, SessionState, turn_view
from arena.match import run_session
from arena.transport import BotFault, TimeLimit, open_bot

from ._support import RELAXED, TWO_POTS, sample_spec, seat_actions, spec

SHORT = TWO_POTS.with_table(max_actions=12)


async def test_a_slow_bot_lives_on_its_time_bank_until_it_runs_out(tmp_path: Path) -> None:
    # 0.3 s a decision against 0.1 s + a 0.45 s bank: the first two decisions draw 0.2 s each
    # from the bank, the third is allowed only the 0.05 s left on top of 0.1 s and times out.
    # (Time the bot could not use is not drawn from its bank: on a busy machine a little less is.)
    limit = TimeLimit(decision_ms=100, time_bank_ms=450, start_ms=5000)
    specs = [sample_spec("call", "call_bot.py", limit=RELAXED),
             spec("slow", "faulty_bot.py", "--mode", "slow", "--seconds", "0.3", limit=limit)]
    result = await run_session(SHORT, specs, seed="bank", session_id="bank", log_dir=tmp_path / "logs")
    actions = seat_actions(result.events, 1)
    assert [action["kind"] for action in actions[:2]] == ["bet", "bet"]
    assert all("fault" not in action for action in actions[:2])
    assert len(actions) >= 3
    assert all(action["kind"] == "fold" and action["fault"] == "timeout" for action in actions[2:])

    slow = result.seats[1].telemetry
    assert slow["decisions"] == 2  # only answered decisions are timed
    latency = slow["latency_ms"]
    assert 300 <= latency["median"] <= latency["p99"] <= latency["max"] < 500
    # Every folded turn is a timeout; a notice sent while the late answer is still being worked
    # out may time out as well.
    assert slow["faults"].keys() == {"timeout"} and slow["faults"]["timeout"] >= len(actions) - 2

    call = result.seats[0].telemetry
    assert call["faults"] == {} and call["decisions"] > 0
    assert 0 < call["latency_ms"]["median"] <= call["latency_ms"]["p99"] <= call["latency_ms"]["max"] < 3000


async def test_a_decision_that_times_out_spends_the_rest_of_the_time_bank(tmp_path: Path) -> None:
    # 0.45 s against 0.1 s + a 0.2 s bank times out: the bot used the whole bank, so its next
    # 0.25 s decision has only the 0.1 s limit and times out too.
    limit = TimeLimit(decision_ms=100, time_bank_ms=200, start_ms=5000)
    slow = spec("slow", "faulty_bot.py", "--mode", "slow", "--seconds", "0.45,0.25", limit=limit)
    view = turn_view(SessionState(GEORGIAN, bots=["a", "b"], seed="bank"))
    async with open_bot(slow, log_dir=tmp_path / "logs", socket_dir=tmp_path) as bot:
        assert bot.dead is None
        for _ in range(2):
            try:
                await bot.act(view, session_id="bank")
            except BotFault as fault:
                assert fault.kind.value == "timeout"
            else:
                raise AssertionError("the decision should have timed out")
            assert bot.bank_left == 0
