"""Asked for no isolation level, the arena sandboxes bots wherever the machine can (issue 11.7).

Elsewhere it falls back to `none` and says so, with what is missing. Which level each bot really
ran under is read from the launched processes.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from arena.cli import main
from arena.isolation import BotProcess, Isolation, isolation_problem

from ._support import ROOT, SAMPLE_BOTS

FALLBACK = "warning: bots run with isolation `none`, as `sandbox` is not available here ("
BOTS = [f"python3 {SAMPLE_BOTS / 'call_bot.py'}", f"python3 {SAMPLE_BOTS / 'minimal_bot.py'}"]


def _expected() -> Isolation:
    return Isolation.SANDBOX if isolation_problem(Isolation.SANDBOX) is None else Isolation.NONE


def _without_bubblewrap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A PATH with what every level needs (setpriv, prlimit) and no bubblewrap."""
    tools = tmp_path / "bin"
    tools.mkdir()
    for program in ("setpriv", "prlimit"):
        (tools / program).symlink_to(shutil.which(program) or f"/usr/bin/{program}")
    monkeypatch.setenv("PATH", str(tools))


def test_play_sandboxes_its_bots_unless_told_otherwise(launched: list[BotProcess], tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--seed", "1", "--out", str(tmp_path), "--quiet", *BOTS]) == 0
    assert [process.isolation for process in launched] == [_expected()] * 2
    assert (FALLBACK in capsys.readouterr().err) == (_expected() is Isolation.NONE)


def test_check_bot_sandboxes_the_bot_unless_told_otherwise(launched: list[BotProcess], tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check-bot", "--logs", str(tmp_path), "--", "python3", str(SAMPLE_BOTS / "minimal_bot.py")]) == 0
    assert [process.isolation for process in launched] == [_expected()]


def test_without_bubblewrap_the_default_falls_back_to_none_and_says_why(
        launched: list[BotProcess], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    _without_bubblewrap(tmp_path, monkeypatch)
    assert main(["play", "--seed", "1", "--out", str(tmp_path / "out"), "--quiet", *BOTS]) == 0
    assert [process.isolation for process in launched] == [Isolation.NONE] * 2
    err = capsys.readouterr().err
    assert f"seka-arena play: {FALLBACK}" in err
    assert "bwrap" in err or "root" in err  # what is missing
    assert "the mirrors of a duplicate block can share cards" in err


def test_an_explicit_level_is_kept_and_no_warning_given(launched: list[BotProcess], tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--isolation", "none", "--seed", "1", "--out", str(tmp_path), "--quiet", *BOTS]) == 0
    assert [process.isolation for process in launched] == [Isolation.NONE] * 2
    assert "warning" not in capsys.readouterr().err


TOURNAMENT = """\
name: default
participants:
  - {name: call, command: python3 sample_bots/call_bot.py, cwd: %(root)s}
  - {name: minimal, command: python3 sample_bots/minimal_bot.py, cwd: %(root)s}
table: {pots: 2}
sessions_per_table: 1
seed: 0a9f34c448a4bb29e6f296695654e31d
concurrency: 2
"""


def _tournament(tmp_path: Path) -> Path:
    definition = tmp_path / "default.yaml"
    definition.write_text(TOURNAMENT % {"root": ROOT})
    return definition


def test_a_tournament_without_an_isolation_key_sandboxes_its_bots_where_it_can(
        launched: list[BotProcess], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", str(_tournament(tmp_path)), "--out", str(tmp_path / "out")]) == 0
    assert [process.isolation for process in launched] == [_expected()] * 4
    standings = json.loads((tmp_path / "out" / "results" / "default" / "standings.json").read_text())
    assert standings["isolation"] == [_expected().value]


def test_without_bubblewrap_a_tournament_falls_back_to_none_and_says_its_mirrors_are_not_protected(
        launched: list[BotProcess], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    _without_bubblewrap(tmp_path, monkeypatch)
    assert main(["run", str(_tournament(tmp_path)), "--out", str(tmp_path / "out")]) == 0
    assert [process.isolation for process in launched] == [Isolation.NONE] * 4
    out = " ".join(capsys.readouterr().out.split())  # rich wraps long lines
    assert "Warning: bots run with isolation `none`, as `sandbox` is not available here (" in out
    assert "Warning: deals not protected between mirrors" in out
    standings = json.loads((tmp_path / "out" / "results" / "default" / "standings.json").read_text())
    assert standings["warnings"][0].startswith("deals not protected between mirrors: 2 of 2 sessions")
