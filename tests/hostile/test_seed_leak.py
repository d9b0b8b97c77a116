"""A bot must not learn the deal from the session id it is told (issue 17.1).

`seed_guesser.py` tries the id, and every part of it, as the deal seed with the public shuffle;
when `play` told bots `play-<seed>` it knew every hand at the table, at every isolation level.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.cli import main

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
