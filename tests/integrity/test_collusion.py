"""Collusion analytics on a real results folder, and the three tests on every profile."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from arena.cli import main
from arena.engine import PROFILE_SPECS, profile
from arena.integrity import collusion_report, holm, session_evidence
from arena.policies import ColludingPolicy, ThresholdPolicy, play_in_process

ROOT = Path(__file__).resolve().parents[2]

TOURNAMENT = """\
name: planted
participants:
  - {name: call, command: python3 sample_bots/call_bot.py, cwd: %(root)s}
  - {name: threshold, command: python3 sample_bots/threshold_bot.py, cwd: %(root)s}
  - {name: strong, command: python3 sample_bots/strong_bot.py, cwd: %(root)s}
  - {name: random, command: python3 sample_bots/random_bot.py, cwd: %(root)s}
  - {name: soft, command: python3 tests/integrity/soft_bot.py --partner friend, cwd: %(root)s}
  - {name: friend, command: python3 tests/integrity/soft_bot.py --partner soft, cwd: %(root)s}
table: {pots: 80}
table_size: 2
sessions_per_table: 1
duplicate: true
seed: 14f67ddde5b677944b51df95afa62f29
concurrency: 2
isolation: none
"""


def test_the_collusion_command_flags_the_planted_pair_of_a_real_tournament_and_no_honest_one(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Six real bot processes, every pair heads-up, each deal played twice with the seats swapped:
    # `soft` and `friend` fold their medium and strong hands whenever the other is still in. `strong`
    # folds by pot odds, so more often against `random`'s large bets: honest, and not flagged.
    definition = tmp_path / "planted.yaml"
    definition.write_text(TOURNAMENT % {"root": ROOT})
    assert main(["run", str(definition), "--out", str(tmp_path / "out"), "--no-report"]) == 0
    results = tmp_path / "out" / "results" / "planted"
    capsys.readouterr()
    assert main(["collusion", str(results), "--json", str(tmp_path / "collusion.json")]) == 0
    printed = capsys.readouterr().out
    flagged = [line for line in printed.splitlines() if line.startswith("FLAGGED")]
    assert flagged and all({line.split()[1], line.split()[3].rstrip(":")} == {"soft", "friend"} for line in flagged)
    assert "soft play" in printed
    document = json.loads((tmp_path / "collusion.json").read_text())
    assert document["pairs"] == 15 and document["tests_run"] == 90
    # The call bot never folds: its comparisons tell nothing, and say so (p = 1, not a z of 0's 0.5).
    assert all(test["p"] == 1.0 for test in document["tests"]
               if test["giver"] == "call" and test["test"] == "soft_play")
    evidence = document["flagged"][0]["evidence"]
    assert evidence and all(item["session"].startswith("s") for item in evidence)
    # The evidence points at real decisions: the history line it names is a fold by the giver.
    item = evidence[0]
    history = next((results / "histories").glob(f"{item['session']}*.jsonl"))
    lines = history.read_text().splitlines()
    record = json.loads(lines[item["event"]])
    assert record["event"] == "action" and record["kind"] == "fold"
    seats = json.loads(lines[0])["seats"]
    assert seats[record["seat"]]["bot"] == document["flagged"][0]["giver"]


def _blocks(rules_name: str, policies: list[ThresholdPolicy | ColludingPolicy], blocks: int, seats: int):
    rules = profile(rules_name)
    rng = random.Random(rules_name)
    for number in range(blocks):
        table = rng.sample(policies, seats)
        for mirror in range(seats):
            seated = table[mirror:] + table[:mirror]
            state = play_in_process(rules, seated, seed=f"{rules_name}-{number}", session=f"b{number}m{mirror}")
            yield session_evidence(state.events, rules.evaluator, session=f"b{number}m{mirror}", block=f"b{number}")


@pytest.mark.parametrize("name", sorted(PROFILE_SPECS))
def test_every_profile_flags_a_soft_playing_pair_among_honest_bots(name: str) -> None:
    evaluator = profile(name).evaluator
    honest = [ThresholdPolicy(call_from=c, raise_from=c + 6, name=f"h{c}", evaluator=evaluator)
              for c in (14, 20)]
    soft = [ColludingPolicy(ThresholdPolicy(call_from=18, raise_from=22, name=me, evaluator=evaluator), partner=other,
                            kind="soft", rate=1.0, rng=random.Random(me), evaluator=evaluator)
            for me, other in (("ann", "bob"), ("bob", "ann"))]
    report = collusion_report(_blocks(name, honest + soft, 200, min(3, profile(name).max_seats)))
    assert report.flagged_pairs == {frozenset({"ann", "bob"})}, [t.as_json() for t in report.flagged]
    assert len(report.shared_sessions) == 6


def test_the_collusion_command_refuses_an_error_rate_outside_0_1(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["collusion", str(tmp_path), "--alpha", "3"])
    assert exited.value.code == 2
    assert "an error rate is between 0 and 1 (exclusive), not 3" in capsys.readouterr().err


def test_holm_keeps_the_order_and_caps_at_one() -> None:
    assert holm([0.2, 0.001, 0.5, 0.01]) == [0.4, 0.004, 0.5, 0.03]
    assert holm([0.9, 0.9]) == [1.0, 1.0]
