"""`seka-arena play` and `check-bot` with `--isolation sandbox`: well-behaved bots, Python and
JavaScript, play and conform exactly as they do unfenced."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from arena.cli import main

from ..match._support import SAMPLE_BOTS


def test_check_bot_passes_a_sandboxed_sample_bot(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code = main(["check-bot", "--isolation", "sandbox", "--logs", str(tmp_path), "--",
                 "python3", str(SAMPLE_BOTS / "minimal_bot.py")])
    out = capsys.readouterr().out
    assert code == 0 and "FAIL" not in out and "conforms" in out, out


@pytest.mark.skipif(shutil.which("node") is None or not (SAMPLE_BOTS / "js_bot" / "node_modules").is_dir(),
                    reason="the JavaScript sample bot needs node and its packages (make test installs them)")
def test_play_runs_sandboxed_python_and_javascript_bots_without_a_fault(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code = main(["play", "--isolation", "sandbox", "--seed", "3", "--out", str(tmp_path), "--quiet",
                 f"node {SAMPLE_BOTS / 'js_bot' / 'index.js'}", f"python3 {SAMPLE_BOTS / 'strong_bot.py'}"])
    out = capsys.readouterr().out
    assert code == 0, out
    seats = [line for line in out.splitlines() if line.strip().startswith("seat ")]
    assert len(seats) == 2 and all(line.endswith("no faults") for line in seats), out
