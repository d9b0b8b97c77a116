"""A bot must not learn the deal from the session id it is told (issue 17.1), nor from a typed seed or a
weak tournament secret (issue 23.3).

`seed_guesser.py` tries the id, and every part of it, as the deal seed with the public shuffle;
when `play` told bots `play-<seed>` it knew every hand at the table, at every isolation level.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from arena.cli import main
from arena.tournament import TournamentRunner, load_config

from ..match._support import SAMPLE_BOTS
from ._support import HOSTILE, reports


@pytest.mark.parametrize("isolation", ["none", "sandbox"])
@pytest.mark.parametrize("seed", [["--seed", "7"], []], ids=["seed 7", "random seed"])
def test_a_bot_cannot_derive_the_deal_from_its_session_id(
        isolation: str, seed: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["play", "--isolation", isolation, *seed, "--out", str(tmp_path), "--quiet",
                 f"guesser=python3 {HOSTILE / 'seed_guesser.py'}", f"python3 {SAMPLE_BOTS / 'call_bot.py'}"])
    assert code == 0, capsys.readouterr()
    (log_dir,) = (tmp_path / "logs").iterdir()
    guesses = reports(log_dir, "guesser", "guess")
    assert guesses, "the guesser was never asked to act"
    assert [guess for guess in guesses if guess["seed"] is not None] == []


def _right_predictions(guesses: list[dict[str, Any]], history: Path) -> int:
    """In how many of a finder's guesses every opponent hand it named was right.

    Chance: an exact hand of three cards out of 33 is one guess in 5,456; a wrong seed the finder
    has not ruled out yet may still hit once. On 904e8eb it was right at every turn.
    """
    dealt = {}
    for line in history.read_text().splitlines():
        record = json.loads(line)
        if record["event"] == "deal":
            dealt[record["pot"], record["replay"]] = {seat: sorted(cards) for seat, cards in record["hands"].items()}
    right = sum(1 for guess in guesses if guess["known"] and all(
        sorted(cards) == dealt[guess["pot"], guess["replay"]][seat] for seat, cards in guess["known"].items()))
    return right


def test_a_bot_cannot_find_a_typed_play_seed_from_its_cards(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # `play --seed 7` is the help's own example: on 904e8eb the finder held seed 7 and knew every hand.
    code = main(["play", "--isolation", "none", "--seed", "7", "--out", str(tmp_path), "--quiet",
                 f"finder=python3 {HOSTILE / 'typed_seed_finder.py'}", f"python3 {SAMPLE_BOTS / 'call_bot.py'}"])
    output = capsys.readouterr().out
    assert code == 0, output
    guesses = reports(tmp_path / "logs" / "play-7", "finder", "guess")
    assert guesses, "the finder was never asked to act"
    assert _right_predictions(guesses, tmp_path / "play-7.jsonl") <= 1
    # The key that makes the deals unguessable is printed, and gives the same history back.
    key = re.search(r"--deal-key ([0-9a-f]{32})", output)
    assert key is not None, output
    again = tmp_path / "again"
    assert main(["play", "--isolation", "none", "--seed", "7", "--deal-key", key.group(1), "--out", str(again),
                 "--quiet", f"python3 {SAMPLE_BOTS / 'call_bot.py'}", f"python3 {SAMPLE_BOTS / 'call_bot.py'}"]) == 0
    assert main(["play", "--isolation", "none", "--seed", "7", "--deal-key", key.group(1), "--out", str(tmp_path),
                 "--quiet", f"python3 {SAMPLE_BOTS / 'call_bot.py'}", f"python3 {SAMPLE_BOTS / 'call_bot.py'}"]) == 0
    assert (again / "play-7.jsonl").read_bytes() == (tmp_path / "play-7.jsonl").read_bytes()
    assert main(["replay", "--quiet", str(again / "play-7.jsonl")]) == 0


def test_a_bot_cannot_find_a_typed_sprt_seed_from_its_cards(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["sprt", "--isolation", "none", "--seed", "7", "--max-pairs", "1", "--concurrency", "1",
                 "--out", str(tmp_path), f"python3 {HOSTILE / 'typed_seed_finder.py'}",
                 f"python3 {SAMPLE_BOTS / 'call_bot.py'}"])
    assert code == 0, capsys.readouterr()
    folder = tmp_path / "sprt-7"
    for session in ("p0001-0", "p0001-1"):
        guesses = reports(folder / "logs" / session, "typed_seed_finder", "guess")
        assert guesses, f"the finder was never asked to act in {session}"
        assert _right_predictions(guesses, folder / "histories" / f"{session}.jsonl") <= 1
        assert main(["replay", "--quiet", str(folder / "histories" / f"{session}.jsonl")]) == 0


WEAK_SECRET = """\
name: weak
participants:
  - {name: searcher, command: '%(python)s %(bots)s/secret_searcher.py --names searcher,call'}
  - {name: call, command: %(python)s %(sample)s/call_bot.py}
table_size: 2
sessions_per_table: 2
duplicate: true
concurrency: 1
isolation: none
"""


async def test_a_bot_cannot_find_a_weak_tournament_secret_through_its_session_ids(tmp_path: Path) -> None:
    # A tournament file may no longer hold a weak secret (refused at load), but a results folder of an
    # earlier version resumes with the one it stored: `seed: 42` here. On 904e8eb the ids bots were told
    # were keyed by it, and the searcher found it, and from it every deal.
    path = tmp_path / "weak.yaml"
    path.write_text(WEAK_SECRET % {"python": sys.executable, "bots": HOSTILE, "sample": SAMPLE_BOTS})
    runner = TournamentRunner(load_config(path).with_seed("42"), out=tmp_path / "out")
    try:
        assert await runner.run()
    finally:
        runner.close()
    results = tmp_path / "out" / "results" / "weak"
    for session in ("s0001", "s0002", "s0003", "s0004"):
        guesses = reports(results / "logs" / session, "searcher", "guess")
        assert guesses, f"the searcher was never asked to act in {session}"
        assert _right_predictions(guesses, results / "histories" / f"{session}.jsonl") <= 1, session
