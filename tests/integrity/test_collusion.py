"""Collusion analytics on a real results folder, and the three tests on every profile."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from arena.cli import main
from arena.engine import PROFILE_SPECS, profile
from arena.history import write_history
from arena.integrity import EVIDENCE_ONLY, FLAGGING, TESTS, collusion_report, holm, session_evidence
from arena.policies import ColludingPolicy, Policy, ThresholdPolicy, play_in_process
from arena.storage import Store, commitment_of
from arena.tournament import PlannedSession, block_seed, mirrors

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
table: {pots: 120}
table_size: 2
sessions_per_table: 1
duplicate: true
seed: 14f67ddde5b677944b51df95afa62f29
concurrency: 2
isolation: none
"""


@pytest.mark.slow
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
    assert document["pairs"] == 15 and document["tests_run"] == 15 * 2 * len(TESTS)
    # The call bot never folds: its comparisons tell nothing, and say so (p = 1, not a z of 0's 0.5).
    assert all(test["p"] == 1.0 for test in document["tests"]
               if test["giver"] == "call" and test["test"] == "soft_play")
    soft = next(test for test in document["flagged"] if test["test"] == "soft_play")
    evidence = soft["evidence"]
    assert evidence and all(item["session"].startswith("s") for item in evidence)
    # The evidence points at real decisions: the history line it names is a fold by the giver.
    item = evidence[0]
    history = next((results / "histories").glob(f"{item['session']}*.jsonl"))
    lines = history.read_text().splitlines()
    record = json.loads(lines[item["event"]])
    assert record["event"] == "action" and record["kind"] == "fold"
    seats = json.loads(lines[0])["seats"]
    assert seats[record["seat"]]["bot"] == soft["giver"]


def _blocks(rules_name: str, policies: list[Policy], blocks: int, seats: int):
    rules = profile(rules_name)
    rng = random.Random(rules_name)
    for number in range(blocks):
        table = rng.sample(policies, seats)
        for mirror in range(seats):
            seated = table[mirror:] + table[:mirror]
            state = play_in_process(rules, seated, seed=f"{rules_name}-{number}", session=f"b{number}m{mirror}")
            yield session_evidence(state.events, rules.evaluator, session=f"b{number}m{mirror}", block=f"b{number}")


def _results(folder: Path, rules_name: str, policies: list[Policy], blocks: int) -> Path:
    """A real results folder (store and histories) of duplicate blocks that in-process policies played, as
    `run` writes it: each block a random table dealt in each seating of `mirrors` that turns the seats (the
    reversed ones add little here: a block's decisions count once)."""
    rules = profile(rules_name)
    by_name = {policy.name: policy for policy in policies}
    rng = random.Random(rules_name)
    store = Store.open(folder / "tournament.sqlite")
    secret = "5e" * 16
    store.init_tournament(name="planted", definition=f"name: planted\nprofile: {rules_name}\n", secret=secret,
                          commitment=commitment_of(secret))
    planned: list[PlannedSession] = []
    for number in range(1, blocks + 1):
        base = tuple(rng.sample(sorted(by_name), min(3, rules.max_seats)))
        seed = block_seed(secret, base, number)
        first = len(planned) + 1
        planned += [PlannedSession(first + mirror, f"s{first + mirror:05d}", seating, f"b{number:04d}", seed, mirror)
                    for mirror, seating in enumerate(mirrors(base)[:len(base)])]
    store.record_plan(planned)
    for session in planned:
        state = play_in_process(rules, [by_name[name] for name in session.table], seed=session.seed,
                                session=session.id)
        history = write_history(folder / "histories" / f"{session.id}.jsonl", state.events)
        balances = dict(zip(session.table, state.events[-1].balances, strict=True))
        best = max(balances.values())
        store.record_result(session.id, balances, [name for name, value in balances.items() if value == best],
                            history_path=history.relative_to(folder))
    store.close()
    return folder


@pytest.mark.parametrize("name", sorted(PROFILE_SPECS))
def test_the_collusion_command_flags_a_chip_dumper_on_every_profile(
        name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Two honest bots, a chip dumper and its partner: the dumper, handed its partner's cards, pays the
    # most it may when the partner holds the better hand, and the partner stays in. The command reads
    # the real results folder they left; it flags the planted pair and no other.
    evaluator = profile(name).evaluator
    honest: list[Policy] = [ThresholdPolicy(call_from=c, raise_from=c + 6, name=f"h{c}", evaluator=evaluator)
                            for c in (14, 20)]
    planted: list[Policy] = [ColludingPolicy(ThresholdPolicy(call_from=17, raise_from=22, name=me, evaluator=evaluator),
                                             partner=other, kind=kind, rate=1.0, rng=random.Random(me),
                                             evaluator=evaluator)
                             for me, other, kind in (("da", "db", "dump"), ("db", "da", "collect"))]
    results = _results(tmp_path / name, name, honest + planted, 300 if profile(name).betting.stacks else 80)
    capsys.readouterr()
    assert main(["collusion", str(results), "--json", str(tmp_path / "collusion.json")]) == 0
    printed = capsys.readouterr().out
    flagged = {frozenset((line.split()[1], line.split()[3].rstrip(":")))
               for line in printed.splitlines() if line.startswith("FLAGGED")}
    assert flagged == {frozenset({"da", "db"})}, printed
    assert "FLAGGED da -> db: chip dumping" in printed
    document = json.loads((tmp_path / "collusion.json").read_text())
    # Every test is Holm-adjusted in its family; only the flagging tests' flag.
    assert all(test["p_holm"] is not None and test["flags"] == (test["test"] in FLAGGING) for test in document["tests"])
    dumping = next(test for test in document["flagged"] if test["test"] == "chip_dumping" and test["giver"] == "da")
    # The evidence names the dumper's own decisions: a bet or raise with the worse hand, heads-up.
    item = dumping["evidence"][0]
    lines = (results / "histories" / f"{item['session']}.jsonl").read_text().splitlines()
    record = json.loads(lines[item["event"]])
    assert record["event"] == "action" and record["kind"] != "fold"
    assert json.loads(lines[0])["seats"][record["seat"]]["bot"] == "da"


@pytest.mark.parametrize("name", sorted(PROFILE_SPECS))
def test_every_profile_flags_a_passive_pair_that_does_not_raise_against_each_other(name: str) -> None:
    # Soft play without a fold: each pays the least with a hand it would raise with while the other is in.
    evaluator = profile(name).evaluator
    honest: list[Policy] = [ThresholdPolicy(call_from=c, raise_from=c + 6, name=f"h{c}", evaluator=evaluator)
                            for c in (14, 20)]
    passive: list[Policy] = [ColludingPolicy(ThresholdPolicy(call_from=18, raise_from=22, name=me, evaluator=evaluator),
                                             partner=other, kind="passive", rate=1.0, rng=random.Random(me),
                                             evaluator=evaluator) for me, other in (("ann", "bob"), ("bob", "ann"))]
    report = collusion_report(_blocks(name, honest + passive, 200, min(3, profile(name).max_seats)))
    assert report.flagged_pairs == {frozenset({"ann", "bob"})}, [t.as_json() for t in report.flagged]
    assert {t.test for t in report.flagged} == {"soft_raise"}
    assert len(report.shared_sessions) == 6 and set(FLAGGING) <= set(TESTS)


def test_honest_styles_move_chips_beyond_the_flow_tests_null_so_those_never_flag_but_are_holm_adjusted() -> None:
    # Four honest threshold bots: one's raises make another fold better hands more than others do, so the
    # chip-flow and duplicate-paired comparisons of honest pairs reach z far beyond their normal null (the
    # measured miscalibration of docs/integrity.md). Each evidence-only test is Holm-adjusted over the pairs
    # on its own, and even at a Holm p under alpha it flags nothing.
    evaluator = profile("georgian").evaluator
    honest: list[Policy] = [ThresholdPolicy(call_from=c, raise_from=c + r, name=f"h{c}", evaluator=evaluator)
                            for c, r in ((13, 4), (16, 8), (20, 3), (23, 6))]
    report = collusion_report(_blocks("georgian", honest, 150, 3))
    assert not report.flagged
    for name in EVIDENCE_ONLY:
        family = [test for test in report.tests if test.test == name]
        assert [test.adjusted for test in family] == holm([test.p_value for test in family])
    calm = min((test for test in report.tests if test.test in EVIDENCE_ONLY), key=lambda test: test.adjusted or 1.0)
    assert calm.adjusted is not None and calm.adjusted <= report.alpha and calm.statistic > 4, calm
    assert all(t.as_json()["flags"] == (t.test in FLAGGING) for t in report.tests)


def test_the_collusion_command_refuses_an_error_rate_outside_0_1(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["collusion", str(tmp_path), "--alpha", "3"])
    assert exited.value.code == 2
    assert "an error rate is between 0 and 1 (exclusive), not 3" in capsys.readouterr().err


def test_holm_keeps_the_order_and_caps_at_one() -> None:
    assert holm([0.2, 0.001, 0.5, 0.01]) == [0.4, 0.004, 0.5, 0.03]
    assert holm([0.9, 0.9]) == [1.0, 1.0]
