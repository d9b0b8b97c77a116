"""Asked for no isolation level, the arena sandboxes bots wherever the machine can (issue 11.7).

Elsewhere it falls back to `none` and says so, with what is missing. Which level each bot really
ran under is read from the launched processes.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from arena.cli import main
from arena.transport import BotProcess, Isolation, isolation_problem

from ._support import SAMPLE_BOTS

FALLBACK = "warning: bots run with isolation `none`, as `sandbox` is not available here ("
BOTS = [f"python3 {SAMPLE_BOTS / 'call_bot.py'}", f"python3 {SAMPLE_BOTS / 'minimal_bot.py'}"]


def _expected() -> Isolation:
    return Isolation.SANDBOX if isolation_problem(Isolation.SANDBOX) is None else Isolation.NONE


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
    tools = tmp_path / "bin"  # what every level needs, without bubblewrap
    tools.mkdir()
    for program in ("setpriv", "prlimit"):
        (tools / program).symlink_to(shutil.which(program) or f"/usr/bin/{program}")
    monkeypatch.setenv("PATH", str(tools))
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
