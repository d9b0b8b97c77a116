"""End to end: a real tournament whose order is certain comes out in that order, in standings.json,
the crosstable and the printed tables of `run` and `ratings`."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from arena.cli import main

ROOT = Path(__file__).resolve().parents[2]
BOTS = Path(__file__).resolve().parent / "bots"

# Listed neither in the expected order nor in name order, so neither can pass for the ranking.
TOURNAMENT = f"""\
name: certain
participants:
  - {{name: folder, command: python3 {BOTS}/timid_bot.py --mode fold}}
  - {{name: opener, command: python3 {BOTS}/timid_bot.py --mode open}}
  - {{name: caller, command: python3 {ROOT}/sample_bots/call_bot.py}}
table: {{pots: 2}}
table_size: 2
sessions_per_table: 1
duplicate: true
seed: 8a5a3046bb92b49910570744b5422df0
concurrency: 2
"""

# The caller wins every pot it plays (nobody contests its bet), the opener wins every pot against
# the folder (who folds first or to the opener's bet): caller > opener > folder, whatever the cards.
EXPECTED = ["caller", "opener", "folder"]


def _printed_order(output: str) -> list[str]:
    # The rows of the standings table: a place number, then the bot's name in the next cell.
    table = output[output.index("Standings: certain"):output.index("Crosstable")]
    return [match[1] for match in re.finditer(r"^\W*\d+\W+(\w+)\W", table, flags=re.MULTILINE)]


def test_the_standings_order_of_a_tournament_with_a_certain_order(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    definition = tmp_path / "certain.yaml"
    definition.write_text(TOURNAMENT)
    assert main(["run", str(definition), "--out", str(tmp_path)]) == 0
    assert _printed_order(capsys.readouterr().out) == EXPECTED
    results = tmp_path / "results" / "certain"
    document = json.loads((results / "standings.json").read_text())
    assert document["complete"] and document["sessions"] == 6
    rows = document["standings"]
    assert [row["name"] for row in rows] == EXPECTED
    assert [row["wins"] for row in rows] == [4, 2, 0]
    assert [row["faults"] for row in rows] == [0, 0, 0]
    assert rows[0]["rating"] > rows[1]["rating"] > rows[2]["rating"]
    assert rows[0]["chip_rate_float"] > 0 and rows[2]["chip_rate_float"] < 0
    assert rows[0]["los"]["opener"] > 0.5 and rows[1]["los"]["folder"] > 0.5
    crosstable = (results / "crosstable.csv").read_text().splitlines()
    assert crosstable[0].split(",")[1:] == EXPECTED
    assert [line.split(",")[0] for line in crosstable[1:]] == EXPECTED

    (results / "standings.json").unlink()
    assert main(["ratings", str(results)]) == 0
    assert _printed_order(capsys.readouterr().out) == EXPECTED
    assert [row["name"] for row in json.loads((results / "standings.json").read_text())["standings"]] == EXPECTED
