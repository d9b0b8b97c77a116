"""`bot_processes: reuse`: warm bot processes serve sessions in turn, under the rules that keep results fair.

Every rule is checked on real bot processes: the probe bot (bots/warm_probe.py) reports, in each
session's Hello reply, which process it is, what that process served before and what it finds on
its file system.
"""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from arena.cli import main
from arena.engine import ArenaError
from arena.isolation import Isolation, isolation_problem
from arena.match import public_session_id
from arena.tournament import TournamentRunner, load_config

from ._support import ROOT, standings_of
from ._support import definition as small_definition
from .test_runner import _finished

PROBE = Path(__file__).parent / "bots" / "warm_probe.py"

PROBED = """\
name: probed
participants:
  - name: probe
    command: python3 %(probe)s %(options)s
    cwd: %(root)s
    env: {WARM_PROBE_MARKS: "%(marks)s"}
  - {name: call, command: python3 sample_bots/call_bot.py, cwd: %(root)s}
  - {name: threshold, command: python3 sample_bots/threshold_bot.py, cwd: %(root)s}
table: {pots: 2}
table_size: 2
sessions_per_table: %(blocks)d
duplicate: true
seed: 433461997dc045e973cf5c4661f86cd7
concurrency: 2
limits: {decision_ms: %(decision_ms)d, time_bank_ms: %(bank_ms)d}
isolation: %(isolation)s
bot_processes: reuse
max_sessions_per_process: %(per_process)d
"""


def _run_probed(tmp_path: Path, *, isolation: str = "none", options: str = "", blocks: int = 2,
                per_process: int = 3, decision_ms: int = 1000, bank_ms: int = 0) -> list[dict[str, Any]]:
    """Play the probed tournament; per session in the order they started: id, seed, the probe's
    telemetry and report, and its history's events."""
    marks = "/tmp/warm-probe" if isolation == "sandbox" else tmp_path / "marks"  # the sandbox's /tmp is its own
    path = tmp_path / "probed.yaml"
    path.write_text(PROBED % {"probe": PROBE, "options": options, "root": ROOT, "marks": marks, "blocks": blocks,
                              "isolation": isolation, "per_process": per_process, "decision_ms": decision_ms,
                              "bank_ms": bank_ms})
    assert main(["run", str(path), "--out", str(tmp_path / "out")]) == 0
    results = tmp_path / "out" / "results" / "probed"
    with sqlite3.connect(results / "tournament.sqlite") as connection:
        rows = connection.execute("SELECT id, seed, telemetry FROM sessions ORDER BY started_at, idx").fetchall()
        (key,) = connection.execute("SELECT session_key FROM tournament").fetchone()
    sessions = []
    for session, seed, telemetry in rows:
        probe = json.loads(telemetry).get("probe")
        if probe is None:
            continue
        token, served, files, overlap = probe["hello"]["version"].split("|")
        events = [json.loads(line) for line in (results / "histories" / f"{session}.jsonl").read_text().splitlines()]
        sessions.append({"id": session, "public": public_session_id(key, session), "seed": seed,
                         "telemetry": probe, "token": token, "served": [s for s in served.split(",") if s],
                         "files": [f for f in files.split(",") if f], "overlap": overlap, "events": events})
    return sessions


def _processes(sessions: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    by_token: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for session in sessions:
        by_token[session["token"]].append(session)
    return by_token


@pytest.mark.parametrize("isolation", ["none", "sandbox"])
def test_a_warm_process_serves_sessions_one_at_a_time_never_both_mirrors_and_keeps_its_files_to_itself(
        tmp_path: Path, isolation: str) -> None:
    if isolation != "none" and (problem := isolation_problem(Isolation(isolation))) is not None:
        pytest.skip(problem)
    sessions = _run_probed(tmp_path, isolation=isolation, blocks=2)  # the probe plays 8 of 12 sessions
    assert len(sessions) == 8
    processes = _processes(sessions)
    assert any(len(served) > 1 for served in processes.values()), "no process served twice: nothing was reused"
    assert all(len(served) <= 3 for served in processes.values()), "max_sessions_per_process: 3 was exceeded"
    for seed in {session["seed"] for session in sessions}:  # the mirrors of a block: never one process
        tokens = [session["token"] for session in sessions if session["seed"] == seed]
        assert len(tokens) == len(set(tokens)), f"one process played both mirrors of block {seed[:8]}"
        # Nor is one alive while another mirror plays: a process stays warm only after its block's last.
        for earlier in [session for session in sessions if session["seed"] == seed][:-1]:
            later = sessions[sessions.index(earlier) + 1:]
            assert earlier["token"] not in {session["token"] for session in later}, (
                f"the process of {earlier['id']} was kept warm while its block {seed[:8]} was not over")
    for served in processes.values():
        for index, session in enumerate(served):
            earlier = [other["public"] for other in served[:index]]
            assert session["overlap"] == "-", "a Hello came while the process's previous session was open"
            assert session["served"] == earlier  # in turn, and the tournament saw every one of them
            assert session["telemetry"]["process_session"] == index + 1
            if isolation == "sandbox":  # its /tmp is its own: only its own earlier sessions' marks
                assert session["files"] == sorted(earlier)
            # Telemetry is the session's own: its decisions are the probe's actions in that history.
            seat = next(s["seat"] for s in session["events"][0]["seats"] if s["bot"] == "probe")
            actions = sum(1 for e in session["events"] if e["event"] == "action" and e["seat"] == seat)
            assert session["telemetry"]["decisions"] == actions
            assert (session["telemetry"]["launch"] is None) == (index > 0)
    standings = json.loads((tmp_path / "out" / "results" / "probed" / "standings.json").read_text())
    probe = next(row for row in standings["standings"] if row["name"] == "probe")
    assert probe["launch_to_ready_ms"]["launches"] == len(processes)  # one launch-to-ready per process
    assert 0 < probe["launch_to_ready_ms"]["median"] <= probe["launch_to_ready_ms"]["max"]
    if isolation == "none":  # the check above would hold here only by luck: /tmp is shared below sandbox
        assert any(set(s["files"]) - {o["public"] for o in processes[s["token"]]} for s in sessions)


def test_a_faulted_process_is_replaced_and_its_successor_starts_clean(tmp_path: Path) -> None:
    # Every process bets illegally throughout its second session: that process must not serve again.
    sessions = _run_probed(tmp_path, options="--illegal-in 2", blocks=2, per_process=100)
    processes = _processes(sessions)
    assert all(len(served) <= 2 for served in processes.values()), "a process that faulted served again"
    assert all(served[0]["telemetry"]["faults"] == {} for served in processes.values())
    faulted = [served[1] for served in processes.values() if len(served) == 2]
    # Only a process from the last mirror of a block stays warm: fewer serve a second session.
    assert faulted and all(session["telemetry"]["faults"].get("illegal") for session in faulted)


def test_every_session_of_a_warm_process_gets_the_whole_time_bank(tmp_path: Path) -> None:
    # The first answer of each session takes 900 ms against a 300 ms limit and a 1 s bank: 600 ms
    # of the bank. A process that kept the bank left from its previous session (400 ms) would time
    # out in its second.
    sessions = _run_probed(tmp_path, options="--slow-first 900", blocks=2, decision_ms=300, bank_ms=1000)
    processes = _processes(sessions)
    assert any(len(served) > 1 for served in processes.values())
    assert all(session["telemetry"]["faults"] == {} for session in sessions), [
        (session["id"], session["telemetry"]["faults"]) for session in sessions]


def test_reuse_killed_and_resumed_plays_the_histories_and_standings_of_fresh_with_the_sample_bots(
        tmp_path: Path) -> None:
    definition = small_definition(tmp_path, pots=4, blocks=1)  # 4 bots, 12 sessions
    text = definition.read_text().replace(
        "participants:\n", "participants:\n  - {name: random, command: python3 sample_bots/random_bot.py --seed 7, "
                           f"cwd: {ROOT}}}\n") + "isolation: none\n"
    definition.write_text(text)
    assert main(["run", str(definition), "--out", str(tmp_path / "fresh")]) == 0
    fresh = tmp_path / "fresh" / "results" / "small"

    definition.write_text(text + "bot_processes: reuse\n")
    command = [sys.executable, "-m", "arena", "run", str(definition), "--out", str(tmp_path / "reuse")]
    arena = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    reuse = tmp_path / "reuse" / "results" / "small"
    deadline = time.monotonic() + 60
    while len(_finished(reuse / "tournament.sqlite")) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    arena.send_signal(signal.SIGKILL)
    arena.wait()
    assert 3 <= len(_finished(reuse / "tournament.sqlite")) < 12, "the arena was killed mid-tournament"
    assert subprocess.run(command, cwd=ROOT, capture_output=True).returncode == 0

    assert standings_of(reuse) == standings_of(fresh)
    histories = sorted(path.name for path in (fresh / "histories").glob("*.jsonl"))
    assert len(histories) == 12
    for name in histories:
        assert (reuse / "histories" / name).read_bytes() == (fresh / "histories" / name).read_bytes(), name
    for folder, reused in ((fresh, False), (reuse, True)):
        with sqlite3.connect(folder / "tournament.sqlite") as connection:
            served = [entry["process_session"] for (telemetry,) in connection.execute("SELECT telemetry FROM sessions")
                      for entry in json.loads(telemetry).values()]
        assert (max(served) > 1) == reused


def test_reuse_on_a_cluster_is_refused_before_anything_runs(tmp_path: Path) -> None:
    definition = small_definition(tmp_path)
    definition.write_text(definition.read_text() + "isolation: none\nbot_processes: reuse\n")
    with pytest.raises(ArenaError, match="local executor only"):
        TournamentRunner(load_config(definition), out=tmp_path / "out", cluster="local:2")
    assert not (tmp_path / "out").exists()
