"""The command line, invoked in-process."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.cli import build_parser, main


def test_every_command_has_help_with_an_example() -> None:
    parser = build_parser()
    commands = parser._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    for name, command in commands.items():
        assert command.description and "Example: seka-arena " + name in command.description, name


def test_demo_writes_a_history_that_replays(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--seed", "5", "--out", str(tmp_path)]) == 0
    history = tmp_path / "demo-session.jsonl"
    assert history.exists()
    assert main(["replay", "--quiet", str(history)]) == 0
    assert "every rule holds" in capsys.readouterr().out


def test_replay_of_a_broken_history_exits_1_naming_the_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"event": "deal"}\n')
    assert main(["replay", str(bad)]) == 1
    assert f"{bad}:1:" in capsys.readouterr().err
