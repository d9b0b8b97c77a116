"""One time-limit type in milliseconds, from the tournament's limits to the Hello on the wire."""

from __future__ import annotations

from pathlib import Path

import pytest
from google.protobuf import text_format

from arena._proto.seka.v1 import seka_pb2 as pb
from arena.engine import ArenaError
from arena.match import run_session
from arena.tournament import BotLimits, Isolation, Participant
from arena.tournament._runner import bot_spec
from arena.transport import TimeLimit

from ..match._support import TWO_POTS, sample_spec, spec


@pytest.mark.parametrize("field", ["decision_ms", "time_bank_ms", "start_ms", "slack_ms"])
@pytest.mark.parametrize("value", [0.2, -1, "200"])
def test_a_time_limit_is_whole_milliseconds(field: str, value: object) -> None:
    with pytest.raises(ArenaError, match=f"TimeLimit.{field} is a whole number of milliseconds"):
        TimeLimit(**{field: value})  # type: ignore[arg-type]


def test_seconds_only_where_trio_and_grpc_take_them() -> None:
    limit = TimeLimit(decision_ms=250, time_bank_ms=1500, start_ms=7000, slack_ms=20)
    assert (limit.decision_seconds, limit.time_bank_seconds, limit.start_seconds, limit.slack_seconds) == (
        0.25, 1.5, 7.0, 0.02)


def test_a_participants_limits_become_its_time_limit_unchanged() -> None:
    participant = Participant(name="p", command=("python3", "bot.py"), cwd=Path("/"),
                              limits=BotLimits(TimeLimit(decision_ms=123, time_bank_ms=4567, start_ms=8901)))
    assert bot_spec(participant, Isolation.NONE).limit == TimeLimit(decision_ms=123, time_bank_ms=4567,
                                                                    start_ms=8901)


async def test_the_hello_tells_the_bot_its_limits_in_milliseconds(tmp_path: Path) -> None:
    record = tmp_path / "record.txt"
    limit = TimeLimit(decision_ms=2345, time_bank_ms=1500, start_ms=9876)
    specs = [spec("recorder", "recording_bot.py", "--record", str(record), "--play", "call", limit=limit),
             sample_spec("call", "call_bot.py", limit=limit)]
    await run_session(TWO_POTS.with_table(pots_per_session=1, max_actions=4), specs, seed="limits",
                      session_id="limits", log_dir=tmp_path / "logs")
    hello = next(text_format.Parse(line.removeprefix("Hello "), pb.HelloRequest())
                 for line in record.read_text().splitlines() if line.startswith("Hello "))
    assert (hello.limits.decision_ms, hello.limits.time_bank_ms, hello.limits.start_deadline_ms) == (2345, 1500, 9876)
