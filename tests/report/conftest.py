"""A small real tournament for the report's tests: three bots heads-up, one of them breaking the rules."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

from arena.cli import main

ROOT = Path(__file__).resolve().parents[2]

TOURNAMENT = """\
name: reported
participants:
  - {name: call, command: python3 sample_bots/call_bot.py, cwd: %(root)s}
  - {name: threshold, command: python3 sample_bots/threshold_bot.py, cwd: %(root)s}
  - {name: illegal, command: python3 tests/checkbot/bots/illegal_bot.py, cwd: %(root)s}
table: {pots: 3}
table_size: 2
sessions_per_table: 1
duplicate: true
seed: 726f09f322d6f48a5354ba0156de2e84
concurrency: 2
"""


@pytest.fixture(scope="session")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A finished 6-session tournament's results folder, with the report `seka-arena run` wrote at its
    end, and what the run printed; played once per test run: copy it before changing anything in it."""
    folder = tmp_path_factory.mktemp("reported")
    tournament = folder / "reported.yaml"
    tournament.write_text(TOURNAMENT % {"root": ROOT})
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        assert main(["run", str(tournament), "--out", str(folder / "out")]) == 0
    return folder / "out" / "results" / "reported", output.getvalue()
