"""A sandboxed bot can see neither the tournament's secret nor another bot's cards.

A tournament with a known secret is run with two bots: the snooper, told the secret and the
marker the other bot writes next to its cards, and where the tournament file and results are;
and the leaky bot, which writes its cards to /tmp, to its socket folder and to a folder of
the test's, and keeps them in memory. The two sessions run at the same time. The snooper searches
every file it can read and every process it can see. Under `none` (the control) it finds both.
"""

from __future__ import annotations

import json
import secrets
import sys
from pathlib import Path
from typing import Any

import arena
from arena.isolation import Isolation
from arena.isolation._sandbox import sandbox_uids
from arena.storage import SessionRecord
from arena.tournament import TournamentRunner, load_config

from ._support import HOSTILE, NONE, SANDBOX, reports, tournament_file

# What a sandboxed bot finds at the root of its file system: the system folders, and the top folders that
# hold the interpreter, the arena and the bots (wherever the checkout is), and in its environment.
_SANDBOX_ROOT = {"bin", "dev", "etc", "lib", "lib32", "lib64", "libx32", "proc", "root", "sbin", "tmp", "usr",
                 *(Path(folder).resolve().parts[1]
                   for folder in (sys.prefix, sys.base_prefix, HOSTILE, arena.__file__))}
_SANDBOX_ENV = {"HOME", "LANG", "PATH", "PWD", "SEKA_BOT_ADDRESS", "SNOOP_NEEDLES", "SNOOP_TARGETS", "SNOOP_BUDGET"}


def _tournament(tmp_path: Path, *, isolation: Isolation, pots: int, budget: float) -> tuple[Path, str]:
    secret = secrets.token_hex(16)  # a written secret needs 128 random bits (and the snooper looks for it)
    marker = f"seka-leak-{secrets.token_hex(8)}"  # in no file: the leaky bot gets it from its environment
    path = tmp_path / "secret-tournament.yaml"
    out = tmp_path / "out"
    leak = tmp_path / "leak"
    leak.mkdir()
    tournament_file(path, [
        {"name": "snooper", "command": f"python3 {HOSTILE / 'snooper.py'}",
         "env": {"SNOOP_NEEDLES": json.dumps({"secret": secret, "cards": marker}),
                 "SNOOP_TARGETS": ":".join(map(str, [path, out, leak])), "SNOOP_BUDGET": str(budget)},
         "limits": {"decision_ms": round(budget * 1000) + 10_000}},
        {"name": "leaky", "command": f"python3 {HOSTILE / 'leaky.py'}",
         "env": {"LEAK_DIR": str(leak), "LEAK_MARKER": marker}},
    ], pots=pots, sessions_per_table=1, concurrency=2, isolation=isolation, seed=secret)
    return path, secret


async def _run(path: Path) -> tuple[Path, list[SessionRecord]]:
    runner = TournamentRunner(load_config(path, python=sys.executable), out=path.parent / "out")
    try:
        assert await runner.run()
        return runner.directory, runner.store.finished_results()
    finally:
        runner.close()


def _hands(directory: Path, record: SessionRecord, seat: int) -> list[dict[str, Any]]:
    assert record.history_path is not None
    lines = (directory / record.history_path).read_text().splitlines()
    events = [json.loads(line) for line in lines]
    return [{"pot": event["pot"], "replay": event["replay"], "cards": event["hands"][str(seat)]}
            for event in events if event["event"] == "deal" and str(seat) in event["hands"]]


async def test_a_sandboxed_bot_finds_neither_the_secret_nor_another_bots_cards(tmp_path: Path) -> None:
    path, _ = _tournament(tmp_path, isolation=SANDBOX, pots=2, budget=20)
    directory, finished = await _run(path)
    assert len(finished) == 2
    for record in finished:
        logs = directory / "logs" / record.id
        assert record.faults == {"snooper": {}, "leaky": {}}, record.faults
        # There was something to find: the leaky bot wrote its cards where it could, which is its
        # private /tmp alone (its socket folder was taken back once it listened).
        leaks = reports(logs, "leaky", "leaky")
        assert leaks and all(leak["written"] == ["/tmp"] for leak in leaks), leaks
        searches = reports(logs, "snooper", "snooper")
        assert len(searches) >= 1
        for search in searches:
            assert search["found"] == {}, search["found"]
            assert not search["out_of_time"] and search["files"] > 100, search  # it did read everything it could
            assert search["uid"] in sandbox_uids(), search
            assert search["neighbours"] == [] and search["visible_pids"] <= 2, search
            assert set(search["refused"]) >= {str(path), str(tmp_path / "out"), str(tmp_path / "leak")}, search
            assert set(search["root"]) <= _SANDBOX_ROOT and set(search["env"]) <= _SANDBOX_ENV, search
        # Its own hand only: exactly the cards the history deals to its seat.
        seat = record.table.index("snooper")
        assert reports(logs, "snooper", "snooper-hand") == _hands(directory, record, seat)


async def test_without_isolation_the_same_snooper_finds_both(tmp_path: Path) -> None:
    # The control: the search works, so finding nothing in the sandbox means something.
    path, _ = _tournament(tmp_path, isolation=NONE, pots=1, budget=1)
    directory, finished = await _run(path)
    for record in finished:
        searches = reports(directory / "logs" / record.id, "snooper", "snooper")
        assert searches and all({"secret", "cards"} <= search["found"].keys() for search in searches), searches
        assert str(path) in searches[0]["found"]["secret"]
