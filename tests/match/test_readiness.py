"""When a bot is ready, and what the fault says when it is not (issues 11.16 and 11.19).

A bot is ready when its health service reports SERVING for "" and for "seka.v1.SekaBot"; a name the
service does not know is not waited for (check-bot warns of it). A bot not ready in time is a
timeout naming what gRPC saw; a bot given by an address where nothing listens is a crash at once.
"""

from __future__ import annotations

import json
import socket
import sys
import time
from pathlib import Path

import pytest

from arena.cli import main
from arena.engine import Fault
from arena.storage import Store
from arena.transport import BotConnection, BotSpec, TimeLimit, open_bot

from ._support import ROOT, spec

SHORT_START = TimeLimit(decision_ms=1000, start_ms=3000)
"""Time enough, on a busy machine, for a bot to start listening."""
LONG_START = TimeLimit(decision_ms=1000, start_ms=20_000)


async def _start(bot: BotSpec, tmp_path: Path) -> tuple[BotConnection, float]:
    started = time.monotonic()
    async with open_bot(bot, log_dir=tmp_path / "logs", socket_dir=tmp_path) as connection:
        return connection, time.monotonic() - started


async def test_a_bot_serving_both_names_is_ready(tmp_path: Path) -> None:
    bot, _ = await _start(spec("raw", "raw_bot.py", "--mode", "empty", limit=LONG_START), tmp_path)
    assert bot.dead is None and bot.health == {"": "SERVING", "seka.v1.SekaBot": "SERVING"}


async def test_a_bot_whose_health_service_does_not_know_the_bot_service_is_ready_on_the_whole_server(
        tmp_path: Path) -> None:
    bot, _ = await _start(spec("root", "raw_bot.py", "--mode", "only-root", limit=LONG_START), tmp_path)
    assert bot.dead is None and bot.health == {"": "SERVING", "seka.v1.SekaBot": "NOT_FOUND"}


async def test_a_bot_that_reports_its_service_not_serving_is_not_ready(tmp_path: Path) -> None:
    bot, _ = await _start(spec("half", "raw_bot.py", "--mode", "half-ready", limit=SHORT_START), tmp_path)
    assert bot.dead is not None and bot.dead.kind is Fault.TIMEOUT
    assert str(bot.dead) == ('timeout: not ready within 3s: the health service reports "" SERVING, '
                             '"seka.v1.SekaBot" NOT_SERVING')


async def test_a_bot_without_a_health_service_is_not_ready_and_the_fault_says_so(tmp_path: Path) -> None:
    bot, _ = await _start(spec("never", "raw_bot.py", "--mode", "never-ready", limit=SHORT_START), tmp_path)
    assert str(bot.dead) == ("timeout: not ready within 3s: no health service: "
                             "grpc.health.v1.Health/Check is not implemented")


async def test_a_bot_that_never_listens_is_not_ready_and_the_fault_says_nothing_listens(tmp_path: Path) -> None:
    silent = BotSpec(name="silent", command=(sys.executable, "-c", "import time; time.sleep(60)"), limit=SHORT_START)
    bot, _ = await _start(silent, tmp_path)
    assert bot.dead is not None and bot.dead.kind is Fault.TIMEOUT
    assert str(bot.dead).startswith(f"timeout: not ready within 3s: nothing listening at {bot.address} "
                                    "(the bot created no socket there)")


def _closed_port() -> int:
    with socket.socket() as probe:  # bound, never listening, then closed: nothing listens there
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.parametrize("where", ["tcp", "unix"])
async def test_an_address_where_nothing_listens_is_a_crash_at_once(where: str, tmp_path: Path) -> None:
    address = f"127.0.0.1:{_closed_port()}" if where == "tcp" else f"unix:{tmp_path / 'nobody.sock'}"
    bot, elapsed = await _start(BotSpec(name="gone", address=address, limit=LONG_START), tmp_path)
    assert bot.dead is not None and bot.dead.kind is Fault.CRASH
    assert str(bot.dead).startswith(f"crash: cannot connect: nothing listening at {address} (")
    assert elapsed < LONG_START.start_seconds / 4, elapsed  # not the start deadline


TOURNAMENT = """\
name: absent
participants:
  - {name: absent, address: "127.0.0.1:%(port)d"}
  - {name: call, command: python3 sample_bots/call_bot.py, cwd: %(root)s}
table: {pots: 2}
sessions_per_table: 1
seed: a675b7726ccf170a15c903685aa75b7b
concurrency: 2
limits: {start_ms: 30000}
isolation: none
"""


def test_a_tournament_records_an_address_bot_that_is_not_running_as_a_crash_without_waiting(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    definition = tmp_path / "absent.yaml"
    definition.write_text(TOURNAMENT % {"port": _closed_port(), "root": ROOT})
    started = time.monotonic()
    assert main(["run", str(definition), "--out", str(tmp_path / "out")]) == 0
    assert time.monotonic() - started < 15  # each session would otherwise wait its 30 s start deadline
    standings = json.loads((tmp_path / "out" / "results" / "absent" / "standings.json").read_text())
    faults = {row["name"]: row["faults"] for row in standings["standings"]}
    assert faults["call"] == 0 and faults["absent"] > 0
    with Store.open(tmp_path / "out" / "results" / "absent" / "tournament.sqlite") as store:
        assert all(set(record.faults["absent"]) == {"crash"} for record in store.finished_results())
