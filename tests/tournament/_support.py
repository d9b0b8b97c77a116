"""A small real tournament of sample bots, for the tests of results folders and their audit."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from arena.cli import main

ROOT = Path(__file__).resolve().parents[2]
SEKA_ARENA = Path(sys.executable).parent / "seka-arena"
SECRET = "5477080635db037329b74afb07035ec4"

TOURNAMENT = """\
name: small
participants:
  - {name: call, command: python3 sample_bots/call_bot.py, cwd: %(root)s}
  - {name: threshold, command: python3 sample_bots/threshold_bot.py, cwd: %(root)s}
  - {name: strong, command: python3 sample_bots/strong_bot.py, cwd: %(root)s}
table: {pots: %(pots)d}
table_size: 2
sessions_per_table: %(blocks)d
duplicate: true
seed: %(secret)s
concurrency: 2
"""


def definition(folder: Path, *, pots: int = 2, blocks: int = 1) -> Path:
    """Write the tournament file (3 bots heads-up: 6 sessions a block round) into `folder`."""
    path = folder / "small.yaml"
    path.write_text(TOURNAMENT % {"root": ROOT, "pots": pots, "blocks": blocks, "secret": SECRET})
    return path


MACHINE_TIMINGS = ("launch_to_ready_ms",)
"""Keys of a standings row measured on the machine (how fast bots started), not computed from results."""


def standings_of(results: Path) -> dict[str, object]:
    """standings.json without the machine's timings: what two runs of one tournament must agree on."""
    document = json.loads((results / "standings.json").read_text())
    for row in document["standings"]:
        for key in MACHINE_TIMINGS:
            row.pop(key)
    return dict(document)


def rows(results: Path) -> list[dict[str, object]]:
    """The stored sessions, read without creating or changing anything."""
    uri = f"file:{results / 'tournament.sqlite'}?mode=ro"
    with sqlite3.connect(uri, uri=True) as connection:
        connection.row_factory = sqlite3.Row
        return [dict(row) for row in connection.execute("SELECT * FROM sessions ORDER BY idx")]


def assert_results_agree(results: Path) -> None:
    """`seka-arena replay --results`: every stored result agrees with its history, secret and commitment."""
    assert main(["replay", "--results", str(results)]) == 0


def copy_finished(finished: Path, tmp_path: Path) -> Path:
    """A copy of the finished tournament's `--out` folder in `tmp_path`, with its definition; its results folder."""
    shutil.copytree(finished / "out", tmp_path / "out")
    definition(tmp_path)
    return tmp_path / "out" / "results" / "small"


def run_small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("finished")
    assert main(["run", str(definition(folder)), "--out", str(folder / "out")]) == 0
    return folder


@contextmanager
def started_run(definition: Path, out: Path, log: Path, *options: str) -> Iterator[subprocess.Popen[bytes]]:
    """`seka-arena run DEFINITION --out OUT --no-report OPTIONS` in the background, its output to `log`, for a
    test to signal; killed on the way out if still running."""
    with log.open("w") as sink:
        arena = subprocess.Popen([sys.executable, "-m", "arena", "run", str(definition), "--out", str(out),
                                  "--no-report", *options], cwd=ROOT, stdout=sink, stderr=subprocess.STDOUT)
    try:
        yield arena
    finally:
        arena.kill()
        arena.wait()
