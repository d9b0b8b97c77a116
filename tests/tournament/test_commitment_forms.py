"""The commitment binds the value function of the adjusted results (form 2, docs/tournaments.md step 2);
results folders committed before it did (form 1) still check and resume, and a run whose stored value
function is not this arena's is refused on resume and noted by `replay --results`."""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from arena.cli import main
from arena.storage import ValueFunction, commitment_of
from arena.tournament import value_function

from ._support import SECRET, copy_finished

FORM_1 = Path(__file__).parent / "results" / "form-1-small"
"""A results folder as seka-arena wrote it before the commitment bound the value function (6380c3e): the
results file as SQL text, the histories and standings as written."""


def _form_1_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "small"
    shutil.copytree(FORM_1, folder, ignore=shutil.ignore_patterns("tournament.sql"))
    connection = sqlite3.connect(folder / "tournament.sqlite", isolation_level=None)
    connection.executescript((FORM_1 / "tournament.sql").read_text())
    connection.close()
    return folder


def _sql(results: Path, statement: str, *parameters: object) -> None:
    connection = sqlite3.connect(results / "tournament.sqlite", isolation_level=None)
    connection.execute(statement, parameters)
    connection.close()


def _unfinish_last(results: Path) -> None:
    """The last session back to planned, as a run killed before it finished leaves it."""
    _sql(results, "UPDATE sessions SET status = 'planned', balances = NULL, winners = NULL, finished_at = NULL, "
                  "faults = NULL, telemetry = NULL, history_path = NULL WHERE id = 's0006'")
    _sql(results, "DELETE FROM fault_reasons WHERE session = 's0006'")
    _sql(results, "UPDATE tournament SET secret_revealed = 0, finished_at = NULL")
    (results / "histories" / "s0006.jsonl").unlink()


def test_a_results_folder_of_the_old_form_still_checks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _form_1_folder(tmp_path)
    stored = json.loads((folder / "standings.json").read_text())["seed_commitment"]
    assert stored == hashlib.sha256(SECRET.encode()).hexdigest()  # form 1: the secret alone
    assert main(["replay", "--results", str(folder), "--commitment", stored]) == 0
    out = capsys.readouterr().out
    assert "Commitment: SHA-256 of the secret (made before commitments bound the value function)" in out
    assert f"Commitment {stored} (the published one): the revealed secret hashes to it" in out
    assert out.endswith("Everything agrees.\n") and "Note:" not in out
    # Its report's one-line check is form 1's, though its standings.json named the arena's value function then.
    assert json.loads((folder / "standings.json").read_text())["value_function"] is not None
    assert main(["report", str(folder), "--out", str(tmp_path / "report")]) == 0
    page = (tmp_path / "report" / "index.html").read_text()
    assert f"printf %s {SECRET} | sha256sum" in page and "from before commitments bound the value function" in page


def test_an_old_form_run_resumes_with_its_commitment(finished: Path, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    results = copy_finished(finished, tmp_path)
    # As a file from before stands once opened: no value function stored, the commitment of the secret alone.
    old = hashlib.sha256(SECRET.encode()).hexdigest()
    _sql(results, "UPDATE tournament SET value_function = NULL, value_function_sha256 = NULL, commitment = ?", old)
    _unfinish_last(results)
    assert main(["run", str(tmp_path / "small.yaml"), "--out", str(tmp_path / "out"), "--no-report"]) == 0
    out = " ".join(capsys.readouterr().out.split())  # the console wraps long lines
    assert f"Seed commitment (SHA-256 of the secret (made before commitments bound the value function)): {old}" in out
    standings = json.loads((results / "standings.json").read_text())
    assert standings["complete"] and standings["seed_commitment"] == old and standings["value_function"] is None
    assert main(["replay", "--results", str(results), "--commitment", old]) == 0
    assert "the revealed secret hashes to it" in capsys.readouterr().out


def test_a_run_committed_to_another_value_function_is_refused_on_resume_and_noted_by_the_audit(
        finished: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results = copy_finished(finished, tmp_path)
    ours = value_function()
    other = ValueFunction("hindsight/0", hashlib.sha256(b"another Q").hexdigest())
    committed = commitment_of(SECRET, None, other)
    _sql(results, "UPDATE tournament SET value_function = ?, value_function_sha256 = ?, commitment = ?",
         other.name, other.sha256, committed)
    assert main(["replay", "--results", str(results), "--commitment", committed]) == 0  # the histories agree
    out = capsys.readouterr().out
    assert f"the value function hindsight/0 (SHA-256 {other.sha256[:12]}...)" in out
    assert "the revealed secret hashes to it" in out
    assert (f"Note: the commitment binds the value function hindsight/0 (SHA-256 {other.sha256}), and this "
            f"seka-arena computes {ours.name} (SHA-256 {ours.sha256}): the adjusted standings it gives are not the "
            "committed ones") in out
    # The stored value function is what the commitment is checked with: another one does not hash to it.
    _sql(results, "UPDATE tournament SET value_function_sha256 = ?", ours.sha256)
    assert main(["replay", "--results", str(results)]) == 1
    assert "does not hash to the commitment" in capsys.readouterr().out
    _sql(results, "UPDATE tournament SET value_function_sha256 = ?", other.sha256)
    _unfinish_last(results)
    assert main(["run", str(tmp_path / "small.yaml"), "--out", str(tmp_path / "out"), "--no-report"]) == 1
    assert (f"this tournament's commitment binds the value function hindsight/0 (SHA-256 {other.sha256}), and this "
            f"seka-arena computes {ours.name}") in capsys.readouterr().err
    assert not (results / "histories" / "s0006.jsonl").exists()  # nothing played
