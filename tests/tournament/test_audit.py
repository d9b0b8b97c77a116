"""`seka-arena replay --results`: a tournament's histories against its secret, commitment and stored
results; each kind of tampering is caught and named."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from arena.cli import main
from arena.history import read_history, read_resources, resources_path
from arena.storage import commitment_of
from arena.tournament import value_function

from .._histories import unshown_deal
from ._support import SECRET, copy_finished

Tamper = Callable[[Path], str]
"""Changes a copied results folder; returns what the problem line must name (a session, or "commitment")."""


def _rewrite(history: Path, change: Callable[[list[dict]], None]) -> None:
    records = read_history(history)
    change(records)
    history.write_text("".join(json.dumps(record) + "\n" for record in records))


def _sql(results: Path, statement: str, *parameters: object) -> None:
    connection = sqlite3.connect(results / "tournament.sqlite", isolation_level=None)
    connection.execute(statement, parameters)
    connection.close()


def _session_with_an_unshown_deal(results: Path) -> Path:
    for history in sorted((results / "histories").glob("*.jsonl")):
        try:
            unshown_deal(read_history(history))
            return history
        except LookupError:
            continue
    raise LookupError("no session has a deal that ends unshown")


def _stack_the_deck(results: Path) -> str:
    """Flip the dealing flag to 'stacked' and swap two players' cards in a deal nobody showed."""
    history = _session_with_an_unshown_deal(results)

    def change(records: list[dict]) -> None:
        records[0]["dealing"] = "stacked"
        hands = records[unshown_deal(records) - 1]["hands"]
        hands["0"], hands["1"] = hands["1"], hands["0"]
    _rewrite(history, change)
    return history.stem


def _swap_cards_seeded(results: Path) -> str:
    def change(records: list[dict]) -> None:
        hands = next(record for record in records if record["event"] == "deal")["hands"]
        hands["0"], hands["1"] = hands["1"], hands["0"]
    _rewrite(results / "histories" / "s0002.jsonl", change)
    return "s0002"


def _store_balance(results: Path) -> str:
    _sql(results, "UPDATE sessions SET balances = json_object(json_extract(seating, '$[0]'), "
                  "json_extract(balances, '$.' || json_extract(seating, '$[1]')), json_extract(seating, '$[1]'), "
                  "json_extract(balances, '$.' || json_extract(seating, '$[0]'))) WHERE id = 's0003'")
    return "s0003"


def _history_bot_name(results: Path) -> str:
    _rewrite(results / "histories" / "s0004.jsonl", lambda records: records[0]["seats"][0].update(bot="intruder"))
    return "s0004"


def _store_seating(results: Path) -> str:
    _sql(results, "UPDATE sessions SET seating = json_array(json_extract(seating, '$[1]'), "
                  "json_extract(seating, '$[0]')) WHERE id = 's0005'")
    return "s0005"


def _store_seed(results: Path) -> str:
    _sql(results, "UPDATE sessions SET seed = ? WHERE id = 's0006'", "0" * 64)
    return "s0006"


def _store_secret(results: Path) -> str:
    _sql(results, "UPDATE tournament SET secret = 'another-secret'")
    return "commitment"


def _history_fault(results: Path) -> str:
    def change(records: list[dict]) -> None:
        fold = next(record for record in records if record["event"] == "action" and record["kind"] == "fold")
        fold["fault"] = "timeout"
    for history in sorted((results / "histories").glob("*.jsonl")):
        if any(record["event"] == "action" and record["kind"] == "fold" for record in read_history(history)):
            _rewrite(history, change)
            return history.stem
    raise LookupError("no fold")


def _missing_history(results: Path) -> str:
    (results / "histories" / "s0001.jsonl").unlink()
    return "s0001"


@pytest.mark.parametrize("tamper, says", [
    pytest.param(_stack_the_deck, "dealing: stacked", id="stack-the-deck"),
    pytest.param(_swap_cards_seeded, "are not the ones seed", id="swap-cards-seeded"),
    pytest.param(_store_balance, "balance is", id="store-balance"),
    pytest.param(_history_bot_name, "the history seats intruder", id="history-bot-name"),
    pytest.param(_store_seating, "seating, block or seed of s0005", id="store-seating"),
    pytest.param(_store_seed, "seating, block or seed of s0006", id="store-seed"),
    pytest.param(_store_secret, "does not hash to the commitment", id="store-secret"),
    pytest.param(_history_fault, "timeout fault", id="history-fault"),
    pytest.param(_missing_history, "cannot read", id="missing-history"),
])
def test_every_kind_of_tampering_is_caught_and_named(finished: Path, tmp_path: Path, tamper: Tamper, says: str,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    results = copy_finished(finished, tmp_path)
    where = tamper(results)
    assert main(["replay", "--results", str(results)]) == 1
    out = capsys.readouterr().out
    problems = [line for line in out.splitlines() if line.startswith("  ")]
    assert any(says in line and where in line for line in problems), out
    assert out.rstrip().endswith("the results do not agree"), out


def test_an_untouched_tournament_agrees_in_every_respect(finished: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results = finished / "out" / "results" / "small"
    committed = commitment_of(SECRET, None, value_function())
    assert main(["replay", "--results", str(results), "--commitment", committed]) == 0
    out = capsys.readouterr().out
    assert "tournament small, 6 sessions planned, 6 finished" in out
    assert f"Commitment {committed} (the published one): the revealed secret hashes to it" in out
    assert "6 histories replayed" in out and out.endswith("Everything agrees.\n")
    assert main(["replay", "--results", str(results / "tournament.sqlite"), "--commitment", "0" * 64]) == 1
    assert f"the stored commitment {committed} is not the published one" in capsys.readouterr().out


def test_before_the_reveal_the_seeds_are_said_to_be_unchecked(finished: Path, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    results = copy_finished(finished, tmp_path)
    _sql(results, "UPDATE tournament SET secret_revealed = 0")
    _sql(results, "UPDATE sessions SET status = 'running', balances = NULL, winners = NULL, finished_at = NULL "
                  "WHERE id = 's0006'")
    assert main(["replay", "--results", str(results)]) == 0
    out = capsys.readouterr().out
    assert "6 sessions planned, 5 finished" in out and "5 histories replayed" in out
    assert "the secret is not revealed yet (1 sessions unfinished), so the seeds could NOT be checked" in out
    _sql(results, "UPDATE sessions SET seating = json_array(json_extract(seating, '$[1]'), "
                  "json_extract(seating, '$[0]')) WHERE id = 's0006'")  # the plan is still checked, but the seeds
    assert main(["replay", "--results", str(results)]) == 1
    assert "the stored seating or block of s0006 is not what the definition gives" in capsys.readouterr().out


def test_a_results_folder_that_is_not_one_is_one_clear_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "--results", str(tmp_path)]) == 1
    assert capsys.readouterr().err == f"seka-arena replay: no results file at {tmp_path / 'tournament.sqlite'}\n"
    assert not (tmp_path / "tournament.sqlite").exists()
    assert main(["replay"]) == 1
    assert "give a history file, or --results" in capsys.readouterr().err


def test_each_history_has_its_resources_file_which_is_no_part_of_the_checked_record(
        finished: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results = copy_finished(finished, tmp_path)
    histories = sorted((results / "histories").glob("*.jsonl"))
    assert [path.stem for path in histories] == [f"s000{number}" for number in range(1, 7)]  # no sidecar among them
    for history in histories:
        figures = read_resources(history)
        assert figures is not None and figures[-1].keys() == {"peak_memory_kb"}
        records = read_history(history)
        for decision in figures[:-1]:
            made = records[decision["line"] - 1]
            assert made["event"] in ("action", "entry", "look") and made["seat"] == decision["seat"]
            assert decision["wall_ms"] > 0 and decision["cpu_ms"] >= 0
        assert all(peak > 0 for peak in figures[-1]["peak_memory_kb"].values())
    # Measured figures: changed or gone, the results still agree (the history is the record).
    resources_path(histories[0]).write_text("not even JSON\n")
    resources_path(histories[1]).unlink()
    assert main(["replay", "--results", str(results)]) == 0, capsys.readouterr().out
    assert read_resources(histories[0]) is None and read_resources(histories[1]) is None
