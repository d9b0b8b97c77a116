"""A fault is the bot's own: on a machine kept busy, with many sessions in flight, bots that
answer at once are never charged a timeout (the arena's lateness and the CPU others took are not
theirs)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import trio

from arena.cli import main
from arena.tournament import Progress, TournamentRunner, _runner, load_config

ROOT = Path(__file__).resolve().parents[2]

LOADED = """\
name: loaded
participants:
%(participants)s
table: {pots: 2, max_actions: 12}
table_size: 3
sessions_per_table: 3
duplicate: false
seed: 2cab953f2b3607b36259abeb3703329d
concurrency: 8
limits: {decision_ms: 200}
"""


@contextmanager
def busy_machine(seconds: float = 120) -> Iterator[None]:
    """One spinning process per CPU for as long as the block runs (and at most `seconds`)."""
    spin = f"import time\nend = time.monotonic() + {seconds}\nwhile time.monotonic() < end: pass\n"
    spinners = [subprocess.Popen([sys.executable, "-c", spin]) for _ in os.sched_getaffinity(0)]
    try:
        yield
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()


def test_a_loaded_tournament_charges_no_timeout_to_bots_that_answer_at_once(tmp_path: Path) -> None:
    participants = "\n".join(f"  - {{name: call{n}, command: python3 sample_bots/call_bot.py, cwd: {ROOT}}}"
                             for n in range(4))
    definition = tmp_path / "loaded.yaml"
    definition.write_text(LOADED % {"participants": participants})
    with busy_machine():
        assert main(["run", str(definition), "--out", str(tmp_path / "out")]) == 0
    results = tmp_path / "out" / "results" / "loaded"
    standings = json.loads((results / "standings.json").read_text())
    assert standings["complete"] and standings["sessions"] == 12
    assert {row["name"]: row["faults"] for row in standings["standings"]} == {f"call{n}": 0 for n in range(4)}, (
        [row["fault_reasons"] for row in standings["standings"]])


SMALL = """\
name: small
participants:
  - {name: a, command: python3 sample_bots/call_bot.py, cwd: %(root)s}
  - {name: b, command: python3 sample_bots/call_bot.py, cwd: %(root)s}
table: {pots: 2}
seed: 81db8ebbbbc69c6c6ad4a6aa92b76e0c
"""


async def test_without_a_concurrency_the_runner_fits_sessions_to_the_cores_and_warns_when_its_loop_lags(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_runner, "_LAG_WATCH", 0.2)
    definition = tmp_path / "small.yaml"
    definition.write_text(SMALL % {"root": ROOT})
    runner = TournamentRunner(load_config(definition), out=tmp_path / "out")
    seen: list[Progress] = []
    try:
        assert runner.config.concurrency is None and runner.executor.governor.limit == runner.executor.governor.cores
        async with trio.open_nursery() as nursery:
            async def hold_up_the_loop() -> None:
                while True:
                    await trio.sleep(0.3)
                    time.sleep(0.3)  # in the loop's own thread: everything waits

            nursery.start_soon(hold_up_the_loop)
            assert await runner.run(on_progress=seen.append)
            nursery.cancel_scope.cancel()
        sessions = runner.store.finished_results()
    finally:
        runner.close()
    # What the bots cost is measured, session by session, and sets how many may be in flight.
    assert all(record.telemetry[bot]["cpu_ms"] > 0 for record in sessions for bot in record.table)
    assert runner.executor.governor.per_session is not None and runner.executor.governor.per_session > 0
    assert 1 <= runner.executor.governor.limit <= 16 * runner.executor.governor.cores
    warnings = [progress.warning for progress in seen if progress.warning is not None]
    assert warnings and all("event loop ran" in warning and "ms late" in warning for warning in warnings), warnings
    assert sum(progress.last is not None for progress in seen) == len(sessions) == 2
