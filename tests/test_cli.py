"""The command line, invoked in-process (as the installed `seka-arena` where its output goes into a pipe)."""

from __future__ import annotations

import os
import random
import shlex
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from arena.checkbot import check_command
from arena.cli import _rules, build_parser, main
from arena.engine import GEORGIAN, profile
from arena.history import read_history, read_resources, write_history
from arena.policies import RandomPolicy, play_in_process
from arena.transport import TimeLimit

from .match._support import BOTS, ROOT, SAMPLE_BOTS

SEKA_ARENA = Path(sys.executable).parent / "seka-arena"


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
    # Beside the history, what each decision cost: one line per decision, keyed by the line it made.
    figures = read_resources(tmp_path / "play-4.jsonl")
    assert figures is not None
    actions = [number for number, record in enumerate(read_history(tmp_path / "play-4.jsonl"), start=1)
               if record["event"] == "action"]
    assert set(actions) <= {decision["line"] for decision in figures[:-1]}
    assert set(figures[-1]["peak_memory_kb"]) == {str(seat) for seat in range(len(bots))}


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


def _environment(*, unbuffered: bool) -> dict[str, str]:
    environment = {key: value for key, value in os.environ.items() if key != "PYTHONUNBUFFERED"}
    return {**environment, "PYTHONUNBUFFERED": "1"} if unbuffered else environment


@pytest.mark.parametrize("unbuffered", [False, True], ids=["buffered", "unbuffered"])
def test_a_reader_that_stops_after_one_line_ends_the_command_quietly_with_status_141(tmp_path: Path,
                                                                                      unbuffered: bool) -> None:
    # `seka-arena replay long.jsonl | head -1`. The account (~270 kB) is far more than a pipe (64 kB) and the
    # reader's buffer hold, so the command is still writing when the reader goes: it must meet the closed pipe.
    policies = [RandomPolicy(random.Random(seat), name=f"bot{seat}") for seat in range(3)]
    state = play_in_process(replace(GEORGIAN, pots_per_session=1500), policies, seed="pipe", session="s")
    history = write_history(tmp_path / "long.jsonl", state.events)
    with subprocess.Popen([SEKA_ARENA, "replay", str(history)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          env=_environment(unbuffered=unbuffered)) as process:
        assert process.stdout is not None and process.stderr is not None
        assert process.stdout.readline().startswith(b"Session s: georgian")
        process.stdout.close()
        stderr = process.stderr.read().decode()
        status = process.wait(timeout=60)
    # No traceback, no "Exception ignored ... BrokenPipeError" from the flush at exit: nothing at all.
    assert stderr == "" and status == 141, (status, stderr)


@pytest.mark.parametrize("arguments", [
    # Its lines come from a callback inside trio: the error arrives in an exception group, bots running.
    ["play", "--seed", "2", "--isolation", "none", f"python3 {SAMPLE_BOTS / 'random_bot.py'}",
     f"python3 {SAMPLE_BOTS / 'call_bot.py'}"],
    # Drawn by rich, whose own answer to a closed pipe is SystemExit(1).
    ["schedule", str(ROOT / "tournaments" / "demo.yaml")],
], ids=["play", "schedule"])
def test_a_reader_gone_before_the_first_line_ends_any_command_quietly_with_status_141(tmp_path: Path,
                                                                                       arguments: list[str]) -> None:
    # `seka-arena ... | true`: the pipe's reading end is closed before the command starts, so its first write
    # meets it, whenever that write comes.
    reading, writing = os.pipe()
    os.close(reading)
    try:
        result = subprocess.run([SEKA_ARENA, *arguments], stdout=writing, stderr=subprocess.PIPE, cwd=tmp_path,
                                env=_environment(unbuffered=False), timeout=60, check=False)
    finally:
        os.close(writing)
    assert result.stderr.decode() == "" and result.returncode == 141, (result.returncode, result.stderr.decode())


def test_schedule_prints_a_huge_plan_as_it_goes_in_little_memory_and_head_ends_it(tmp_path: Path) -> None:
    # 3 bots heads-up, 10^6 duplicate blocks per table: 6 million sessions, which no table of them all
    # could hold in memory. `seka-arena schedule huge.yaml | head -3`, with a real process and pipe.
    tournament = tmp_path / "huge.yaml"
    tournament.write_text("name: huge\nparticipants:\n"
                          + "".join(f"  - {{name: {name}, command: python3 bot.py}}\n" for name in ("a", "b", "c"))
                          + "table_size: 2\nsessions_per_table: 1000000\nduplicate: true\n"
                          + "seed: 5e580eee1a39851ef636172a5b2939d4\n")
    process = subprocess.Popen([SEKA_ARENA, "schedule", str(tournament)], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, cwd=tmp_path, env=_environment(unbuffered=False))
    try:
        assert process.stdout is not None and process.stderr is not None
        first = [process.stdout.readline().decode() for _ in range(3)]  # waits only for the first lines
        assert first[0] == "huge: 6000000 sessions\n" and first[2].split() == ["s0001", "b0001", "0", "a", "b"]
        # Blocked on the full pipe now: what it holds is what a lazy plan costs.
        with open(f"/proc/{process.pid}/status") as status:
            peak = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
        assert peak < 150_000, f"{peak} kB"
        process.stdout.close()  # the reader goes, as `head` does
        status_code = process.wait(timeout=60)
        assert (status_code, process.stderr.read().decode()) == (141, "")
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


@pytest.mark.parametrize(("name", "options"), [
    ("georgian", {}), ("georgian", {"deck": "32", "tie": "split", "dark": "true"}),
    ("classic", {"wild": "black7", "cards": "2", "deck": "24", "open": "multiway", "dark": "true", "tie": "split"}),
    ("seka36", {"stack": "101/2", "dark": "true", "tie": "split"}), ("svara32", {"dark": "true"}),
    ("seka21", {"stack": "500"}),
])
def test_the_check_command_a_game_gives_checks_that_game(name: str, options: dict[str, str]) -> None:
    """A service's `/upload` page and `GET /api/game` give this command: parsed by the CLI it names
    exactly the service's profile and options, and its time per call."""
    rules = profile(name, options)
    command = check_command(rules, TimeLimit(decision_ms=750, start_ms=5000))
    words = shlex.split(command)
    assert words[0] == "seka-arena" and words[-3:] == ["--", "python3", "bot.py"]
    args = build_parser().parse_args(words[1:])
    assert _rules(args) == rules and (args.decision_ms, args.start_ms) == (750, 5000)
    assert rules.describe().startswith(f"{name} (") and all(f"{key} {value}" in rules.describe()
                                                            for key, value in rules.option_values.items())
