"""What the command line says to its user, from real `seka-arena` processes: the commands when given
none, its version, error prefixes, a crashed bot's stderr and exit status, advice a user can act on,
and the benchmarks' sections whose optional extra is missing."""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.cli import build_parser
from arena.isolation import Isolation, isolation_problem

ROOT = Path(__file__).resolve().parents[1]


def _seka_arena(*arguments: str, timeout: int = 120, **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena", *arguments], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, **kwargs)  # type: ignore[call-overload]


def test_seka_arena_alone_lists_every_command_and_points_to_the_docs() -> None:
    result = _seka_arena()
    assert result.returncode == 0, result.stderr
    assert "error" not in result.stdout + result.stderr
    commands = build_parser()._subparsers._group_actions[0]  # type: ignore[union-attr]
    for choice in commands._choices_actions:  # type: ignore[attr-defined]
        assert re.search(rf"^  {re.escape(choice.dest)} +{re.escape(choice.help)}$", result.stdout, re.MULTILINE), (
            choice.dest, result.stdout)
    assert "seka-arena COMMAND --help" in result.stdout and "docs/" in result.stdout
    assert "protocol.md" in result.stdout and "README.md" in result.stdout


def test_version_is_the_installed_packages() -> None:
    result = _seka_arena("--version")
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"seka-arena {importlib.metadata.version('seka-arena')}\n"


def test_an_option_error_of_check_bot_starts_with_the_command_not_its_arguments() -> None:
    result = _seka_arena("check-bot", "--profile", "seka37", "--", "python3", "sample_bots/call_bot.py")
    assert result.returncode == 1
    assert result.stderr.startswith("seka-arena check-bot: unknown profile 'seka37'; known: "), result.stderr
    assert "[" not in result.stderr


def test_token_calls_a_service_file_a_service_file(tmp_path: Path) -> None:
    config = tmp_path / "service.yaml"
    config.write_text("name: x\n")
    result = _seka_arena("token", str(config), "--list")
    assert result.returncode == 1
    assert result.stderr.startswith("seka-arena token: 2 problems in the service file:\n"), result.stderr
    assert "tournament" not in result.stderr


def test_check_bot_quotes_the_first_and_the_last_lines_of_a_crash() -> None:
    result = _seka_arena("check-bot", "--isolation", "none", "--", "python3", "tests/checkbot/bots/panicking_bot.py")
    assert result.returncode == 1
    (failed,) = [line for line in result.stdout.splitlines() if line.startswith("FAIL")]
    assert failed.startswith("FAIL  turn (2 in the deal, opening, no previous bet): crash: exited during Act "
                             "(exit status 2); its stderr:"), result.stdout
    quoted = result.stdout.split("its stderr:\n", 1)[1].splitlines()
    # What the bot wrote during the call: the panic's cause first (not the log lines of earlier calls), the
    # first frames, what was left out, and the last frames.
    assert quoted[:4] == ["panic: runtime error: index out of range [3] with length 3", "",
                          "goroutine 7 [running]:", "main.frame0(...)"], quoted
    assert any(line.startswith("[... ") and "left out" in line for line in quoted[4:10]), quoted
    assert quoted[15] == "main.frame39(...)" and quoted[16].startswith("\t/src/bot.go:39"), quoted
    assert "WARN  stop: had ended before it was stopped (exit status 2)" in result.stdout


def test_in_the_sandbox_check_bot_reports_the_bots_own_exit_status() -> None:
    if (problem := isolation_problem(Isolation.SANDBOX)) is not None:
        pytest.skip(problem)
    for bot in (("python3", "sample_bots/minimal_bot.py"), ("python3", "tests/checkbot/bots/panicking_bot.py")):
        result = _seka_arena("check-bot", "--isolation", "sandbox", "--", *bot)
        (stop,) = [line for line in result.stdout.splitlines() if " stop: " in line]
        if bot[1].endswith("minimal_bot.py"):  # it exits on SIGTERM with status 0, not bubblewrap's death
            assert re.fullmatch(r"PASS  stop: ended \d+ ms after SIGTERM \(exit status 0\)", stop), result.stdout
        else:
            assert stop == "WARN  stop: had ended before it was stopped (exit status 2)", result.stdout
            assert "crash: exited during Act (exit status 2)" in result.stdout


LONG = """\
name: lagging
participants:
  - {name: a, command: python3 sample_bots/call_bot.py, cwd: %(root)s}
  - {name: b, command: python3 sample_bots/call_bot.py, cwd: %(root)s}
table: {pots: 4}
sessions_per_table: 200
seed: 2f8e3232ca820d62bc322c53eb288eeb
isolation: none
%(concurrency)s"""


@pytest.mark.parametrize("concurrency", [None, 3])
def test_the_late_loop_warning_advises_what_the_file_can_set(tmp_path: Path, concurrency: int | None) -> None:
    definition = tmp_path / "lagging.yaml"
    definition.write_text(LONG % {"root": ROOT, "concurrency": "" if concurrency is None else
                                  f"concurrency: {concurrency}\n"})
    output = tmp_path / "output.txt"
    with output.open("w") as sink:
        run = subprocess.Popen([sys.executable, "-m", "arena", "run", str(definition), "--out", str(tmp_path),
                                "--no-report"], cwd=ROOT, stdout=sink, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while "  s0" not in output.read_text() and time.monotonic() < deadline:  # sessions are ending
            time.sleep(0.1)
        run.send_signal(signal.SIGSTOP)  # the arena's loop stands still for a second, as on a busy machine
        time.sleep(1.0)
        run.send_signal(signal.SIGCONT)
        while "late:" not in output.read_text() and time.monotonic() < deadline and run.poll() is None:
            time.sleep(0.1)
    finally:
        run.send_signal(signal.SIGINT)
        run.wait(timeout=60)
    text = " ".join(output.read_text().split())
    warning = re.search(r"warning: the arena's event loop ran \d+ ms late: .*?Bots are not charged for it\.", text)
    assert warning, text
    if concurrency is None:  # the file set none: nothing to lower, but a number to set, and where
        assert "lower" not in warning[0]
        # ... unless the loop was late with one session in flight (a loaded machine: the rest had ended)
        assert re.search(rf"the arena chose (\d+) at a time itself; to play fewer, set `concurrency:` below \1 at "
                         rf"the top of {re.escape(str(definition))}", warning[0]) or (
            "(1 session in flight; one at a time already: other programs keep this machine busy)" in warning[0]), \
            warning[0]
    else:
        assert f"lower `concurrency: {concurrency}` at the top of {definition}, or leave it out" in warning[0]


def test_the_benchmarks_skip_a_section_whose_extra_is_missing_and_say_so(tmp_path: Path) -> None:
    # Dask's package made unimportable, as where the `dask` extra is not installed.
    (tmp_path / "hide" / "distributed").mkdir(parents=True)
    (tmp_path / "hide" / "distributed" / "__init__.py").write_text(
        "raise ModuleNotFoundError(\"No module named 'distributed'\", name='distributed')\n")
    figures = tmp_path / "bench.json"
    result = subprocess.run([sys.executable, "-m", "benchmarks", "--quick", "--only", "cluster", "--json",
                             str(figures)], cwd=ROOT, capture_output=True, text=True, timeout=120,
                            env=dict(os.environ, PYTHONPATH=f"{tmp_path / 'hide'}:{ROOT}"))
    assert result.returncode == 0, result.stderr
    assert "cluster skipped: needs the extra seka-arena[dask] (No module named 'distributed')" in result.stderr
    assert "Traceback" not in result.stderr
    assert "section cluster skipped: needs the extra seka-arena[dask]" in " ".join(result.stdout.split())
    skipped = json.loads(figures.read_text())["skipped_sections"]
    assert list(skipped) == ["cluster"] and "pip install -e '.[dask]'" in skipped["cluster"]
