"""The results folder under misuse: two arenas at once, a lost or emptied results file.

Real `seka-arena` processes and real sample bots throughout.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import stat
import subprocess
from pathlib import Path

import pytest

from arena.cli import main
from arena.storage import FolderLock

from .._launch import path_without_prlimit
from .._tmpfs import remount, tmpfs
from ._support import SEKA_ARENA, assert_results_agree, copy_finished, definition, rows


def _snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    return {path.name: (path.read_bytes(), path.stat().st_mtime_ns) for path in sorted(folder.iterdir())}


# --- two arenas --------------------------------------------------------------------------------

def test_a_second_arena_on_the_same_results_folder_is_refused_naming_the_first(tmp_path: Path) -> None:
    tournament = definition(tmp_path, pots=4, blocks=2)  # 12 sessions: the first is busy for seconds
    command = [str(SEKA_ARENA), "run", str(tournament), "--out", str(tmp_path / "out")]
    arenas = [subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
              for _ in range(2)]
    outputs = [arena.communicate(timeout=300) for arena in arenas]
    codes = [arena.returncode for arena in arenas]
    assert sorted(codes) == [0, 1], (codes, outputs)
    loser = codes.index(1)
    winner = 1 - loser
    error = outputs[loser][1]
    assert error.count("\n") == 1 and f"is in use by another seka-arena (pid {arenas[winner].pid}, run)" in error, error
    assert "Traceback" not in error
    results = tmp_path / "out" / "results" / "small"
    assert_results_agree(results)
    assert [row["status"] for row in rows(results)] == ["finished"] * 12
    assert all(row["attempts"] == 1 for row in rows(results)), "a session was played twice"
    # The lock dies with its holder: a third run (resuming a finished tournament) goes ahead.
    assert subprocess.run(command, cwd=tmp_path, capture_output=True).returncode == 0


# --- results files that are not stores ---------------------------------------------------------

@pytest.mark.parametrize("damage", ["empty", "garbage", "another database", "deleted"])
def test_a_results_file_that_is_not_a_store_is_refused_and_no_history_is_overwritten(
        finished: Path, tmp_path: Path, damage: str, capsys: pytest.CaptureFixture[str]) -> None:
    results = copy_finished(finished, tmp_path)
    tournament = tmp_path / "small.yaml"
    database = results / "tournament.sqlite"
    if damage == "empty":
        database.write_bytes(b"")
    elif damage == "garbage":
        database.write_bytes(os.urandom(8192))
    elif damage == "another database":
        database.unlink()
        with sqlite3.connect(database) as connection:
            connection.execute("CREATE TABLE notes (text TEXT)")
    else:
        database.unlink()
    before = database.read_bytes() if database.exists() else None
    histories = _snapshot(results / "histories")
    capsys.readouterr()

    assert main(["run", str(tournament), "--out", str(tmp_path / "out")]) == 1
    error = capsys.readouterr().err
    expected = {"empty": "is empty (0 bytes)", "garbage": "not an SQLite database",
                "another database": "without its migrations table", "deleted": "holds no tournament"}[damage]
    assert expected in error and error.count("\n") == 1, error
    assert _snapshot(results / "histories") == histories
    assert (database.read_bytes() if database.exists() else None) == before
    assert not list(results.rglob("*.partial*"))


# --- a full disk -------------------------------------------------------------------------------

def test_a_full_disk_stops_the_run_with_one_line_and_no_partial_file_and_the_rerun_resumes(tmp_path: Path) -> None:
    tournament = definition(tmp_path, blocks=2)  # 12 sessions; 200 KiB hold about three
    with tmpfs(tmp_path / "disk", size="200k") as disk:
        command = [str(SEKA_ARENA), "run", str(tournament), "--out", str(disk)]
        full = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=300)
        results = disk / "results" / "small"
        assert full.returncode == 1, full.stderr
        assert full.stderr.count("\n") == 1, full.stderr
        assert full.stderr.startswith(f"seka-arena run: disk full: no space left on the device holding {results}")
        assert "resumes" in full.stderr
        assert not [path for path in disk.rglob("*") if ".partial" in path.name]

        remount(disk, size="20m")  # space freed
        finished_before = {row["id"] for row in rows(results) if row["status"] == "finished"}
        assert 0 < len(finished_before) < 12
        resumed = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=300)
        assert resumed.returncode == 0, resumed.stderr
        assert_results_agree(results)
        assert [row["status"] for row in rows(results)] == ["finished"] * 12
        assert all(row["attempts"] == 1 for row in rows(results) if row["id"] in finished_before)


# --- reading without writing -------------------------------------------------------------------

def _printed_standings(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith("│") and any(bot in line for bot in
                                                                                ("call", "threshold", "strong"))]


def test_ratings_and_the_audit_of_a_read_only_results_folder_read_and_write_nothing(
        finished: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results = finished / "out" / "results" / "small"
    capsys.readouterr()
    assert main(["ratings", str(results), "--print-only"]) == 0  # the reference: the same folder, not written
    expected = _printed_standings(capsys.readouterr().out)
    with tmpfs(tmp_path / "disk", size="4m") as disk:
        shutil.copytree(results, disk / "small")
        remount(disk, read_only=True)
        before = {path: path.read_bytes() for path in (disk / "small").rglob("*") if path.is_file()}
        assert main(["ratings", str(disk / "small")]) == 0
        out = capsys.readouterr().out
        assert _printed_standings(out) == expected and len(expected) == 3 * 2, out  # standings and crosstable
        assert f"standings.json and crosstable.csv not rewritten: {disk / 'small'} is read-only" in out
        assert_results_agree(disk / "small")  # the audit only reads too
        assert {path: path.read_bytes() for path in (disk / "small").rglob("*") if path.is_file()} == before


def test_ratings_only_reads_a_folder_a_run_holds_and_with_print_only(
        finished: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results = copy_finished(finished, tmp_path)
    (results / "standings.json").unlink()
    assert main(["ratings", str(results), "--print-only"]) == 0
    assert "not rewritten: asked to print only" in capsys.readouterr().out
    assert not (results / "standings.json").exists()
    with FolderLock.acquire(results, purpose="run"):
        assert main(["ratings", str(results)]) == 0
        assert f"not rewritten: {results} is in use by another seka-arena (pid {os.getpid()}, run)" in (
            capsys.readouterr().out)
        assert not (results / "standings.json").exists()
    assert main(["ratings", str(results)]) == 0
    assert "not rewritten" not in capsys.readouterr().out
    assert (results / "standings.json").read_text() == (finished / "out/results/small/standings.json").read_text()


# --- private folders, histories written once ---------------------------------------------------

def test_a_results_folder_is_private_and_its_store_is_readable_by_its_owner_only(finished: Path) -> None:
    results = finished / "out" / "results" / "small"
    assert stat.S_IMODE(results.stat().st_mode) == 0o700
    assert stat.S_IMODE((results / "tournament.sqlite").stat().st_mode) == 0o600


def _unfinish(results: Path, session: str, *, attempts: int) -> None:
    # As a run killed after the session's history was written and before its result was stored leaves it.
    with sqlite3.connect(results / "tournament.sqlite") as connection:
        connection.execute("DELETE FROM fault_reasons WHERE session = ?", (session,))
        connection.execute("UPDATE sessions SET status = ?, attempts = ?, balances = NULL, winners = NULL, "
                           "faults = NULL, telemetry = NULL, history_path = NULL, finished_at = NULL WHERE id = ?",
                           ("running" if attempts else "planned", attempts, session))
    connection.close()


def test_a_history_an_interrupted_attempt_left_is_kept_aside_and_the_replay_writes_its_own(
        finished: Path, tmp_path: Path) -> None:
    results = copy_finished(finished, tmp_path)
    _unfinish(results, "s0002", attempts=1)
    left = results / "histories" / "s0002.jsonl"
    left.write_text(left.read_text() + "an interrupted attempt's own line\n")
    interrupted = left.read_bytes()
    assert main(["run", str(tmp_path / "small.yaml"), "--out", str(tmp_path / "out"), "--no-report"]) == 0
    assert (results / "histories" / "s0002.jsonl.interrupted-1").read_bytes() == interrupted
    assert left.read_bytes() == (finished / "out/results/small/histories/s0002.jsonl").read_bytes()
    assert_results_agree(results)
    assert [row["attempts"] for row in rows(results)] == [1, 2, 1, 1, 1, 1]


def test_a_history_no_attempt_of_this_store_wrote_is_never_replaced(
        finished: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results = copy_finished(finished, tmp_path)
    _unfinish(results, "s0003", attempts=0)
    history = results / "histories" / "s0003.jsonl"
    history.write_text("another store's history\n")
    capsys.readouterr()
    assert main(["run", str(tmp_path / "small.yaml"), "--out", str(tmp_path / "out"), "--no-report"]) == 1
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and f"{history} exists already, but its session was never played" in error, error
    assert history.read_text() == "another store's history\n"
    assert [row["status"] for row in rows(results)][2] == "planned"


@pytest.mark.parametrize("column", ["balances", "winners", "faults"])
def test_a_damaged_value_in_a_stored_row_is_one_line_naming_the_row_from_ratings_and_from_resume(
        finished: Path, tmp_path: Path, column: str) -> None:
    results = copy_finished(finished, tmp_path)
    with sqlite3.connect(results / "tournament.sqlite") as connection:
        connection.execute(f"UPDATE sessions SET {column} = ? WHERE id = 's0004'", ('{"a": [1, 2',))
    connection.close()
    before = (results / "tournament.sqlite").read_bytes()
    for command in (["ratings", str(results)], ["run", str(tmp_path / "small.yaml"), "--out", str(tmp_path / "out")]):
        done = subprocess.run([str(SEKA_ARENA), *command], cwd=tmp_path, capture_output=True, text=True, timeout=300)
        assert done.returncode == 1 and "Traceback" not in done.stderr and done.stderr.count("\n") == 1, done.stderr
        assert f"{results / 'tournament.sqlite'}: session s0004: the stored {column} is damaged" in done.stderr
    assert (results / "tournament.sqlite").read_bytes() == before


# --- limits the arena cannot apply -------------------------------------------------------------

def _limited(ulimit: int, *command: str, option: str = "-n") -> list[str]:
    """`command` run by `seka-arena` under `ulimit OPTION` (soft and hard), as an organiser's shell sets it."""
    return ["bash", "-c", f'ulimit {option} {ulimit} && exec "$@"', "bash", str(SEKA_ARENA), *command]


@pytest.mark.parametrize(("setting", "option", "ulimit", "ceiling", "what"), [
    ("open_files: 4096", "-n", 1024, 1024, "open files allows (ulimit -Hn)"),
    ("file_size_mb: 64", "-f", 2048, 2, "file size (MiB) allows (ulimit -Hf)"),  # ulimit -f counts KiB
], ids=["open_files", "file_size_mb"])
def test_a_limit_above_the_arenas_own_is_refused_at_load_with_file_and_line(
        tmp_path: Path, setting: str, option: str, ulimit: int, ceiling: int, what: str) -> None:
    tournament = definition(tmp_path)
    tournament.write_text(tournament.read_text() + f"isolation: limits\nlimits:\n  {setting}\n")
    done = subprocess.run(_limited(ulimit, "run", str(tournament), "--out", str(tmp_path / "out"), option=option),
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    line = tournament.read_text().splitlines().index(f"  {setting}") + 1
    key = setting.split(":")[0]
    assert done.returncode == 1, done.stdout
    assert f"{tournament}:{line}: limits.{key}: must be at most {ceiling}, what this arena's own hard limit of " \
           f"{what}" in done.stderr, done.stderr
    assert not (tmp_path / "out").exists()


def test_a_default_open_files_limit_above_the_arenas_own_is_lowered_with_a_warning_and_no_bot_crashes(
        tmp_path: Path) -> None:
    tournament = definition(tmp_path)
    tournament.write_text(tournament.read_text() + "isolation: limits\n")
    done = subprocess.run(_limited(128, "run", str(tournament), "--out", str(tmp_path / "out"), "--no-report"),
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "default limits of each bot above this arena's own hard limits are lowered to them: open files 256 -> " \
           "128 (ulimit -Hn)" in " ".join(done.stdout.split())
    assert all(row["faults"] == '{"call":{},"threshold":{}}' or "crash" not in str(row["faults"])
               for row in rows(tmp_path / "out" / "results" / "small"))


def test_a_process_file_limit_too_low_to_run_is_one_line(tmp_path: Path) -> None:
    tournament = definition(tmp_path)
    done = subprocess.run(_limited(64, "run", str(tournament), "--out", str(tmp_path / "out"), "--no-report"),
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 1 and "Traceback" not in done.stderr and done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith("seka-arena run: too many open files: this process may open only 64 (ulimit -n)")


def test_a_run_whose_every_bot_fails_to_start_for_the_arenas_reason_stops_with_that_reason(tmp_path: Path) -> None:
    # The launch chain cannot run: prlimit is not on the PATH the arena is given (its setpriv and
    # shell are), so every bot fails before its own command runs. That is the arena's fault, not the bots'.
    tournament = definition(tmp_path)
    tournament.write_text(tournament.read_text() + "isolation: none\nlimits: {cpu_seconds: 60}\n")
    programs = path_without_prlimit(tmp_path)
    done = subprocess.run([str(SEKA_ARENA), "run", str(tournament), "--out", str(tmp_path / "out"), "--no-report"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PATH": programs})
    assert done.returncode == 1 and done.stderr.count("\n") == 1, (done.returncode, done.stderr)
    assert "failed to start for the same reason, the arena's own, not theirs: setpriv: failed to execute " \
           "prlimit: No such file or directory" in done.stderr
    assert all(row["status"] != "finished" for row in rows(tmp_path / "out" / "results" / "small"))
