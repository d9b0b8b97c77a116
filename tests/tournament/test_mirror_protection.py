"""A duplicate tournament whose bots run below `sandbox` says so: its mirrors can share cards (issue 11.7).

Under `none` or `limits` a bot's copy in one mirror of a block can leave the cards it was dealt in
a file that its copy in the other mirror reads; only the sandbox's private file system stops that.
The run's output, standings.json and the printed standings' footer say "deals not protected
between mirrors"; a tournament fully sandboxed, or without mirrors, says nothing of the kind.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.cli import main
from arena.isolation import Isolation, isolation_problem

ROOT = Path(__file__).resolve().parents[2]
WARNING = "deals not protected between mirrors"

TOURNAMENT = """\
name: mirrors
participants:
  - {name: call, command: python3 sample_bots/call_bot.py, cwd: %(root)s}
  - {name: threshold, command: python3 sample_bots/threshold_bot.py, cwd: %(root)s}
table: {pots: 2}
table_size: 2
sessions_per_table: %(sessions)d
duplicate: %(duplicate)s
seed: f4bea252aacd92715518a0fb45542c3f
concurrency: 2
isolation: %(isolation)s
"""


def _run(tmp_path: Path, capsys: pytest.CaptureFixture[str], *, isolation: str, duplicate: bool = True
         ) -> tuple[dict[str, object], str]:
    definition = tmp_path / "mirrors.yaml"
    definition.write_text(TOURNAMENT % {"root": ROOT, "isolation": isolation, "duplicate": str(duplicate).lower(),
                                        "sessions": 1 if duplicate else 2})
    assert main(["run", str(definition), "--out", str(tmp_path / "out")]) == 0
    results = tmp_path / "out" / "results" / "mirrors"
    return json.loads((results / "standings.json").read_text()), capsys.readouterr().out


@pytest.mark.parametrize("isolation", ["none", "limits"])
def test_a_duplicate_tournament_below_sandbox_warns_in_its_output_and_standings(
        isolation: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    if isolation != "none" and (problem := isolation_problem(Isolation(isolation))) is not None:
        pytest.skip(problem)
    standings, out = _run(tmp_path, capsys, isolation=isolation)
    assert standings["isolation"] == [isolation]
    (warning,) = standings["warnings"]
    assert warning.startswith(f"{WARNING}: 2 of 2 sessions had bots under isolation `{isolation}`, not `sandbox`")
    before, _, after = out.partition("Standings: mirrors")
    assert f"Warning: {WARNING}" in before  # said before the first session
    assert f"Warning: {WARNING}" in after.partition("Crosstable")[0]  # the standings table's footer

    capsys.readouterr()
    assert main(["ratings", str(tmp_path / "out" / "results" / "mirrors")]) == 0  # recomputed from the store
    assert f"Warning: {WARNING}" in capsys.readouterr().out


def test_a_sandboxed_duplicate_tournament_has_no_such_warning(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    if (problem := isolation_problem(Isolation.SANDBOX)) is not None:
        pytest.skip(problem)
    standings, out = _run(tmp_path, capsys, isolation="sandbox")
    assert standings["isolation"] == ["sandbox"] and standings["warnings"] == []
    assert WARNING not in out


def test_a_tournament_without_mirrors_has_no_such_warning(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    standings, out = _run(tmp_path, capsys, isolation="none", duplicate=False)
    assert standings["isolation"] == ["none"] and standings["warnings"] == []
    assert WARNING not in out
