"""The command line, invoked in-process."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.cli import build_parser, main

from .match._support import BOTS, SAMPLE_BOTS


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


@pytest.mark.parametrize("options", [
    ["--profile", "classic", "--open", "multiway", "--dark", "true"],
    ["--profile", "seka36", "--dark", "true", "--stack", "20"],
    ["--profile", "svara32"],
    ["--profile", "seka21"],
    ["--profile", "georgian", "--deck", "32", "--tie", "split"],
])
def test_demo_plays_every_profile(tmp_path: Path, capsys: pytest.CaptureFixture[str], options: list[str]) -> None:
    assert main(["demo", "--seed", "5", "--out", str(tmp_path), *options]) == 0
    assert main(["replay", "--quiet", str(tmp_path / "demo-session.jsonl")]) == 0
    out = capsys.readouterr().out
    assert f"demo: {options[1]}," in out and "every rule holds" in out


def test_replay_of_a_broken_history_exits_1_naming_the_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"event": "deal"}\n')
    assert main(["replay", str(bad)]) == 1
    assert f"{bad}:1:" in capsys.readouterr().err


def test_play_summarises_a_bot_that_made_no_decision_without_none(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--seed", "3", "--out", str(tmp_path), "--quiet", "--decision-ms", "3000",
                 f"python3 {SAMPLE_BOTS / 'call_bot.py'}",
                 f"crasher=python3 {BOTS / 'faulty_bot.py'} --mode crash --at 1"]) == 0
    seats = [line.strip() for line in capsys.readouterr().out.splitlines() if line.strip().startswith("seat ")]
    assert len(seats) == 2 and "None" not in "\n".join(seats), seats
    assert "0 decisions" not in seats[1] and "no decisions" in seats[1], seats
    assert "median" in seats[0] and "ms" in seats[0], seats


@pytest.mark.parametrize(("option", "value", "message"), [
    ("--decision-ms", "-5", "must be a positive integer, not -5"),
    ("--decision-ms", "0", "must be a positive integer, not 0"),
    ("--decision-ms", "10000000000000", "must be at most 60000, not 10000000000000"),
    ("--time-bank-ms", "-1", "must be a non-negative integer, not -1"),
    ("--start-ms", "0", "must be a positive integer, not 0"),
    ("--start-ms", "soon", "must be a whole number of milliseconds, not 'soon'"),
])
def test_play_refuses_time_limits_a_tournament_file_would_refuse(
        option: str, value: str, message: str, capsys: pytest.CaptureFixture[str]) -> None:
    # Refused before any bot starts: the bots named here do not exist.
    with pytest.raises(SystemExit) as caught:
        main(["play", f"{option}={value}", "no-such-bot-a", "no-such-bot-b"])
    assert caught.value.code == 2
    assert f"argument {option}: {message}" in capsys.readouterr().err


@pytest.mark.parametrize("arguments", [
    ["--profile", "seka36", "--dark", "true", "--stack", "20"],
    ["--profile", "classic", "--open", "multiway", "--wild", "black7"],
], ids=["seka36", "classic"])
def test_play_plays_a_session_of_another_profile(arguments: list[str], tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    bots = [f"python3 {SAMPLE_BOTS / 'random_bot.py'} --seed 1", f"python3 {SAMPLE_BOTS / 'call_bot.py'}"]
    if arguments[1] == "classic":
        bots.append(f"python3 {SAMPLE_BOTS / 'random_bot.py'} --seed 2")
    assert main(["play", "--seed", "4", "--out", str(tmp_path), "--decision-ms", "3000", "--isolation", "none",
                 *arguments, *bots]) == 0
    out = capsys.readouterr().out
    assert f"Session play-4: {arguments[1]}," in out
    assert "no faults" in out and "crash" not in out and "illegal" not in out, out
    assert main(["replay", "--quiet", str(tmp_path / "play-4.jsonl")]) == 0
    assert "every rule holds" in capsys.readouterr().out


@pytest.mark.parametrize(("arguments", "message"), [
    (["--profile", "seka36"], "seats 2 to 2 players, not 3"),
    (["--profile", "georgian", "--stack", "20"], "profile 'georgian' has no option 'stack'"),
    (["--profile", "poker"], "unknown profile 'poker'"),
])
def test_play_refuses_a_profile_the_table_does_not_fit(arguments: list[str], message: str,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    # Refused before any bot starts: the bots named here do not exist.
    assert main(["play", *arguments, "no-such-bot-a", "no-such-bot-b", "no-such-bot-c"]) != 0
    assert message in capsys.readouterr().err
