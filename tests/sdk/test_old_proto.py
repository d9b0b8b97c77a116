"""A bot built from the `.proto` of before the profiles still plays `georgian` (docs/protocol.md,
"Changes to the protocol"): the profiles grew `seka.v1` compatibly."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from arena.engine import GEORGIAN
from arena.match import run_session
from arena.transport import BotSpec, TimeLimit

BOTS = Path(__file__).resolve().parent / "bots"
SAMPLE_BOTS = Path(__file__).resolve().parents[2] / "sample_bots"
LIMIT = TimeLimit(decision_ms=3000)


def _generate(folder: Path) -> None:
    subprocess.run([sys.executable, "-m", "grpc_tools.protoc", f"-I{BOTS}", f"--python_out={folder}",
                    f"--grpc_python_out={folder}", "seka_v1_georgian.proto"], check=True, capture_output=True,
                   timeout=60)


def test_the_old_proto_has_no_field_of_the_profiles() -> None:
    # The fixture is the file as it was: nothing numbered 50 or above in it.
    text = (BOTS / "seka_v1_georgian.proto").read_text()
    assert "dark_bet" not in text and "= 50;" not in text


async def test_a_bot_built_from_the_old_proto_plays_georgian(tmp_path: Path) -> None:
    _generate(tmp_path)
    report = tmp_path / "report.json"
    old = BotSpec(name="old", command=(sys.executable, str(BOTS / "old_proto_bot.py"), str(tmp_path), str(report)),
                  limit=LIMIT)
    sdk = BotSpec(name="threshold", command=(sys.executable, str(SAMPLE_BOTS / "threshold_bot.py")), limit=LIMIT)
    rules = GEORGIAN.with_table(pots_per_session=3)
    result = await run_session(rules, [old, sdk], seed="old-proto", session_id="old", log_dir=tmp_path / "logs")
    old_seat = result.seats[0]
    assert old_seat.dead is None and old_seat.telemetry["faults"] == {}, old_seat
    assert old_seat.telemetry["decisions"] > 0
    told = json.loads(report.read_text())
    assert told["profile"] == "georgian"
    assert told["requests"] > 0
    assert told["unknown"] == [], "a georgian table sent an old bot fields it does not know"
