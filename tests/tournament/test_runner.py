"""Running tournaments end to end: real bot processes, real SQLite, resume after SIGKILL."""

from __future__ import annotations

import hashlib
import json
import signal
import sqlite3
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
import trio

from arena.cli import main
from arena.executor import _jobs
from arena.history import read_resources
from arena.match import SessionResult, run_session
from arena.ratings import VALUE_FUNCTION, pair_score, session_terms, value_function_digest
from arena.replay import replay_file
from arena.storage import SessionStatus, StorageError, ValueFunction, commitment_of
from arena.tournament import TournamentRunner, _runner, load_config, parse_config

from ._support import ROOT, SECRET, standings_of
from ._support import definition as _write


def test_a_tournament_runs_to_standings_crosstable_and_histories(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    definition = _write(tmp_path)
    assert main(["run", str(definition), "--out", str(tmp_path / "out")]) == 0
    printed = " ".join(capsys.readouterr().out.split())  # the console wraps long lines
    # The seed commitment binds the value function of the adjusted results, printed before any session.
    q = ValueFunction(VALUE_FUNCTION, value_function_digest())
    assert (f"Seed commitment (SHA-256 of the secret and the value function {VALUE_FUNCTION} (SHA-256 "
            f"{q.sha256[:12]}...)): {commitment_of(SECRET, None, q)}") in printed
    results = tmp_path / "out" / "results" / "small"
    standings = json.loads((results / "standings.json").read_text())
    assert standings["complete"] and standings["sessions"] == 6
    assert standings["secret"] == SECRET
    text = f"seka-arena/2|q|{VALUE_FUNCTION}|{q.sha256}|deals|-|{SECRET}"  # docs/tournaments.md, step 2
    assert standings["seed_commitment"] == hashlib.sha256(text.encode()).hexdigest()
    assert standings["value_function"] == {"name": VALUE_FUNCTION, "sha256": value_function_digest()}
    rows = standings["standings"]
    assert {row["name"] for row in rows} == {"call", "threshold", "strong"}
    for row in rows:
        assert {"name", "rating", "ci_low", "ci_high", "sessions", "wins", "chip_rate", "faults"} <= row.keys()
        assert row["ci_low"] <= row["rating"] <= row["ci_high"] and row["sessions"] == 4
    assert abs(sum(row["rating"] for row in rows) / 3 - 1500) < 0.5
    crosstable = (results / "crosstable.csv").read_text().splitlines()
    assert crosstable[0].split(",")[1:] == [row["name"] for row in rows]
    histories = sorted((results / "histories").glob("*.jsonl"))
    assert len(histories) == 6
    for history in histories:
        replay_file(history)
    # Duplicate blocks: the two sessions of a block deal the same cards to the same seat slot.
    def first_deal(session: str) -> dict:
        return json.loads((results / "histories" / f"{session}.jsonl").read_text().splitlines()[1])

    assert first_deal("s0001")["hands"] == first_deal("s0002")["hands"]
    assert first_deal("s0001")["hands"] != first_deal("s0003")["hands"]


def test_rerunning_a_finished_tournament_plays_nothing_and_ratings_recomputes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    definition = _write(tmp_path)
    out = tmp_path / "out"
    assert main(["run", str(definition), "--out", str(out)]) == 0
    results = out / "results" / "small"
    before = {path.name: path.stat().st_mtime_ns for path in (results / "histories").iterdir()}
    assert main(["run", str(definition), "--out", str(out)]) == 0
    assert {path.name: path.stat().st_mtime_ns for path in (results / "histories").iterdir()} == before
    standings = (results / "standings.json").read_text()
    (results / "standings.json").unlink()
    assert main(["ratings", str(results)]) == 0
    assert (results / "standings.json").read_text() == standings


def test_a_changed_definition_is_refused_on_resume(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    definition = _write(tmp_path)
    out = tmp_path / "out"
    assert main(["run", str(definition), "--out", str(out)]) == 0
    definition.write_text(definition.read_text().replace("concurrency: 2", "concurrency: 2\nduplicate: false"))
    assert main(["run", str(definition), "--out", str(out)]) == 1


def test_a_broken_definition_runs_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    definition = _write(tmp_path)
    definition.write_text(definition.read_text().replace("table_size: 2", "table_size: 9"))
    assert main(["run", str(definition), "--out", str(tmp_path / "out")]) == 1
    assert "small.yaml:" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def _finished(database: Path) -> set[str]:
    try:  # read-only: connecting must not create an (empty) file before the arena creates its store
        with sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=5) as connection:
            return {row[0] for row in connection.execute("SELECT id FROM sessions WHERE status = 'finished'")}
    except sqlite3.Error:
        return set()


def test_resume_after_sigkill_gives_the_same_standings_and_histories(tmp_path: Path) -> None:
    definition = _write(tmp_path, pots=4, blocks=2)  # 12 sessions
    uninterrupted, interrupted = tmp_path / "straight", tmp_path / "killed"
    assert main(["run", str(definition), "--out", str(uninterrupted)]) == 0

    command = [sys.executable, "-m", "arena", "run", str(definition), "--out", str(interrupted)]
    arena = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    database = interrupted / "results" / "small" / "tournament.sqlite"
    deadline = time.monotonic() + 60
    while len(_finished(database)) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    arena.send_signal(signal.SIGKILL)
    arena.wait()
    finished_before = _finished(database)
    assert 3 <= len(finished_before) < 12, "the arena was killed mid-tournament"
    assert subprocess.run(command, cwd=ROOT, capture_output=True).returncode == 0

    straight = uninterrupted / "results" / "small"
    resumed = interrupted / "results" / "small"
    assert standings_of(resumed) == standings_of(straight)
    for history in (straight / "histories").glob("*.jsonl"):
        assert (resumed / "histories" / history.name).read_bytes() == history.read_bytes()
    with sqlite3.connect(resumed / "tournament.sqlite") as connection:
        attempts = dict(connection.execute("SELECT id, attempts FROM sessions"))
    assert all(attempts[session] == 1 for session in finished_before), "a finished session was played again"


def test_schedule_prints_every_planned_session_without_playing(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    definition = _write(tmp_path, blocks=2)
    assert main(["schedule", str(definition)]) == 0
    out = capsys.readouterr().out
    assert "12 sessions" in out and "s0012" in out and "b0006" in out
    assert not (tmp_path / "results").exists()


def test_sprt_accepts_that_the_caller_beats_the_random_bot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sprt", f"python3 {ROOT}/sample_bots/call_bot.py", f"python3 {ROOT}/sample_bots/random_bot.py",
                 "--elo1", "100", "--max-pairs", "40", "--seed", "sprt-test", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "H1 accepted: call_bot is at least 100 Elo stronger" in out
    scored = [int(line.split()[1].rstrip(":")) for line in out.splitlines() if line.startswith("pair ")]
    assert 5 <= len(scored) <= 40
    histories = tmp_path / "sprt-sprt-test" / "histories"
    for number in scored:  # every scored pair: the same cards twice, seats swapped
        first, second = (replay_file(histories / f"p{number:04d}-{mirror}.jsonl").state for mirror in (0, 1))
        assert first.events[1].hands == second.events[1].hands
        assert first.bots == tuple(reversed(second.bots))
        for mirror in (0, 1):  # and beside each history, what its decisions cost
            figures = read_resources(histories / f"p{number:04d}-{mirror}.jsonl")
            assert figures is not None and len(figures) > 1 and "peak_memory_kb" in figures[-1]


def test_sprt_adjusted_scores_each_pair_on_its_adjusted_results(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sprt", f"python3 {ROOT}/sample_bots/call_bot.py", f"python3 {ROOT}/sample_bots/random_bot.py",
                 "--adjusted", "--elo1", "100", "--max-pairs", "12", "--concurrency", "2", "--seed", "sprt-adjusted",
                 "--out", str(tmp_path)]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("pair ")]
    assert lines
    histories = tmp_path / "sprt-sprt-adjusted" / "histories"
    moved = 0
    for line in lines:
        number = int(line.split()[1].rstrip(":"))
        terms = [session_terms(state.rules, state.events) for state in
                 (replay_file(histories / f"p{number:04d}-{mirror}.jsonl").state for mirror in (0, 1))]
        adjusted = terms[0].known[0] + terms[1].known[1]
        raw = terms[0].raw[0] + terms[1].raw[1]
        assert f"score {pair_score(terms[0].known, terms[1].known):g} (chips {raw}, adjusted {adjusted});" in line
        moved += adjusted != raw
    assert moved  # random_bot answers with distributions: the draws' luck is taken out


CRASHING = """\
name: crashing
participants:
  - {name: call, command: python3 sample_bots/call_bot.py, cwd: %(root)s}
  - {name: crasher, command: python3 tests/match/bots/faulty_bot.py --mode crash --at 1, cwd: %(root)s}
table: {pots: 2}
sessions_per_table: 2
seed: 4424ed7ed9fee3d83dbad32a0eeb0071
concurrency: 1
restart_crashed: %(restart)s
"""


@pytest.mark.parametrize("restart", [True, False])
def test_a_crashed_bot_is_restarted_for_its_next_session_unless_configured_not_to(
        tmp_path: Path, restart: bool) -> None:
    definition = tmp_path / "crashing.yaml"
    definition.write_text(CRASHING % {"root": ROOT, "restart": str(restart).lower()})
    assert main(["run", str(definition), "--out", str(tmp_path)]) == 0
    with sqlite3.connect(tmp_path / "results" / "crashing" / "tournament.sqlite") as connection:
        rows = connection.execute("SELECT id, telemetry FROM sessions ORDER BY idx").fetchall()
    decisions = [json.loads(telemetry)["crasher"]["decisions"] for _, telemetry in rows]
    faults = [json.loads(telemetry)["crasher"]["faults"] for _, telemetry in rows]
    assert all(fault.get("crash", 0) >= 1 for fault in faults), faults
    # The crasher answers nothing at its first turn (it dies during it); restarted, it is asked
    # again in every session; not restarted, it is never launched again after the first crash.
    asked = [json.loads(telemetry)["crasher"]["faults"].get("crash", 0) for _, telemetry in rows]
    standings = json.loads((tmp_path / "results" / "crashing" / "standings.json").read_text())
    assert {row["name"]: row["faults"] for row in standings["standings"]}["crasher"] == sum(asked)
    assert decisions == [0] * len(rows)
    logs = tmp_path / "results" / "crashing" / "logs"
    launched = [session for session, _ in rows if (logs / session / "crasher.stderr.log").exists()]
    assert launched == ([session for session, _ in rows] if restart else [rows[0][0]])


async def test_the_mirrors_of_a_block_are_never_played_at_the_same_time(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    # Copies of one bot in two mirrors played at once could tell each other the cards through the
    # machine (tests/hostile/test_channels.py): the runner plays other blocks meanwhile instead.
    played: list[tuple[str, float, float]] = []

    async def timed(*args: Any, **kwargs: Any) -> SessionResult:
        started = trio.current_time()
        result = await run_session(*args, **kwargs)
        played.append((kwargs["seed"], started, trio.current_time()))
        return result

    monkeypatch.setattr(_jobs, "run_session", timed)
    definition = _write(tmp_path, blocks=2)
    definition.write_text(definition.read_text().replace("concurrency: 2", "concurrency: 4"))
    runner = TournamentRunner(load_config(definition, python=sys.executable), out=tmp_path / "out")
    try:
        assert await runner.run()
    finally:
        runner.close()
    assert len(played) == 12 and len({seed for seed, _, _ in played}) == 6

    def overlap(a: tuple[str, float, float], b: tuple[str, float, float]) -> bool:
        return a[1] < b[2] and b[1] < a[2]

    pairs = [(a, b) for index, a in enumerate(played) for b in played[index + 1:] if overlap(a, b)]
    assert pairs, "no two sessions ran at the same time"  # the limit is still used
    assert all(a[0] != b[0] for a, b in pairs), pairs


async def _interrupt_after(runner: TournamentRunner, finished: int) -> None:
    # Like Ctrl-C once `finished` sessions are done: the sessions in flight are abandoned.
    with trio.CancelScope() as scope:
        await runner.run(on_progress=lambda progress: scope.cancel() if progress.done >= finished else None)


def test_an_interrupted_run_never_looks_complete_and_a_new_concurrency_resumes_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_runner, "_CHUNK", 2)  # the plan is stored two sessions at a time, as play reaches them
    definition = _write(tmp_path)  # 6 sessions, 2 at a time
    runner = TournamentRunner(load_config(definition), out=tmp_path / "out")
    try:
        trio.run(_interrupt_after, runner, 2)
        stored = [session.id for session in runner.store.sessions()]
        assert stored[-1] == "s0006" and len(stored) < 6  # the last session first, the rest as play reached it
        assert runner.store.unfinished(), "a partly stored plan must not look finished"
        with pytest.raises(StorageError, match="not finished"):
            runner.store.reveal_secret()
    finally:
        runner.close()
    assert main(["replay", "--results", str(runner.directory)]) == 0  # a partly stored plan audits as far as it goes

    # Concurrency changes how fast results come, never what they are: the run resumes.
    definition.write_text(definition.read_text().replace("concurrency: 2", "concurrency: 3"))
    assert main(["run", str(definition), "--out", str(tmp_path / "out")]) == 0
    results = tmp_path / "out" / "results" / "small"
    standings = json.loads((results / "standings.json").read_text())
    assert standings["complete"] and standings["sessions"] == 6 and standings["secret"] == SECRET
    assert sorted(path.name for path in (results / "histories").glob("*.jsonl")) == [
        f"s{index:04d}.jsonl" for index in range(1, 7)]


def _under_way(runner: TournamentRunner, session: str) -> bool:
    try:
        return runner.store.session(session).status is not SessionStatus.PLANNED
    except StorageError:  # not stored yet
        return False


async def test_a_million_session_plan_starts_at_once_in_flat_memory(tmp_path: Path) -> None:
    config = parse_config("name: huge\nparticipants:\n  - {name: a, address: 'unix:/nonexistent/a.sock'}\n"
                          "  - {name: b, address: 'unix:/nonexistent/b.sock'}\n"
                          "sessions_per_table: 500000\nseed: 5e580eee1a39851ef636172a5b2939d4\nconcurrency: 1\n")
    tracemalloc.start()
    try:
        runner = TournamentRunner(config, out=tmp_path / "out")
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(runner.run)
                while not _under_way(runner, runner.plan[0].id):
                    await trio.sleep(0.01)
                nursery.cancel_scope.cancel()
        finally:
            runner.close()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(runner.plan) == 1_000_000
    # The plan as a list alone would take more than 500 MB; the stored chunk and its records take 2.
    assert peak < 32 * 2**20, f"{peak / 2**20:.0f} MB to start"


SLOW = """\
name: slow
participants:
  - {name: call, command: python3 sample_bots/call_bot.py, cwd: %(root)s}
  - {name: slow, command: python3 tests/match/bots/faulty_bot.py --mode slow --seconds 0.6, cwd: %(root)s}
table: {pots: 1, max_actions: 6}
table_size: 2
seed: 5e0cf7bd1dfa3831788b0cf6dedcdd22
limits: {decision_ms: 200}
"""


def test_every_fault_is_stored_with_its_reason_and_shown_in_the_standings(tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    definition = tmp_path / "slow.yaml"
    definition.write_text(SLOW % {"root": ROOT})
    assert main(["run", str(definition), "--out", str(tmp_path / "out")]) == 0
    results = tmp_path / "out" / "results" / "slow"
    rows = {row["name"]: row for row in json.loads((results / "standings.json").read_text())["standings"]}
    assert rows["call"]["faults"] == 0 and rows["call"]["fault_reasons"] == []
    slow = rows["slow"]
    assert slow["faults"] == slow["fault_kinds"]["timeout"] >= 2 and set(slow["fault_kinds"]) == {"timeout"}
    assert sum(reason["count"] for reason in slow["fault_reasons"]) == slow["faults"]
    for reason in slow["fault_reasons"]:  # each Act past its 200 ms, in both sessions of the block
        assert reason["kind"] == "timeout" and reason["reason"].startswith("Act not answered within 200 ms")
    assert sorted({session for reason in slow["fault_reasons"] for session in reason["sessions"]}) == ["s0001", "s0002"]
    with sqlite3.connect(results / "tournament.sqlite") as connection:
        stored = connection.execute("SELECT session, bot, kind FROM fault_reasons GROUP BY session").fetchall()
    assert sorted(row[0] for row in stored) == ["s0001", "s0002"]
    assert {row[1:] for row in stored} == {("slow", "timeout")}
    printed = capsys.readouterr().out
    assert f"{slow['faults']}: timeout {slow['faults']}" in printed  # the standings' fault column
    assert "Faults (each reason as the arena saw it)" in printed and "Act not answered within 200 ms" in printed
