"""`seka-arena replay`: a faithful history passes, and each kind of tampering is caught at its line."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from arena.cli import main
from arena.engine import GEORGIAN
from arena.history import HistoryError, history_text, read_history, write_history
from arena.policies import RandomPolicy, play_in_process
from arena.replay import replay_file, replay_records

from ._histories import unshown_deal


def _session(seed: str = "r1", seats: int = 3):
    policies = [RandomPolicy(random.Random(f"{seed}-{seat}"), name=f"bot{seat}") for seat in range(seats)]
    return play_in_process(GEORGIAN, policies, seed=seed, session="s")


@pytest.fixture
def history(tmp_path: Path) -> Path:
    return write_history(tmp_path / "h.jsonl", _session().events)


def _rewrite(path: Path, line: int, change) -> None:
    records = read_history(path)
    change(records[line - 1])
    path.write_text("".join(json.dumps(record) + "\n" for record in records))


def _first(records: list[dict], event: str, **match) -> int:
    return next(number for number, record in enumerate(records, 1)
                if record["event"] == event and all(record.get(k) == v for k, v in match.items()))


def test_a_faithful_history_replays_and_its_account_names_every_pot(history: Path) -> None:
    result = replay_file(history)
    assert history_text(result.state.events) == history.read_text()
    assert sum(line.startswith("Pot ") and "replay" not in line for line in result.account) == 8
    assert result.account[-1].startswith("Balances:")


@pytest.mark.parametrize("number", range(20))
def test_many_sessions_replay(tmp_path: Path, number: int) -> None:
    state = _session(f"many-{number}", seats=2 + number % 5)
    assert replay_file(write_history(tmp_path / "h.jsonl", state.events)).state.balances == state.balances


def test_a_bet_above_the_maximum_is_named(history: Path) -> None:
    line = _first(read_history(history), "action", kind="bet")
    _rewrite(history, line, lambda record: record.update(amount="11"))
    with pytest.raises(HistoryError) as caught:
        replay_file(history)
    assert caught.value.line == line and "may pay" in caught.value.message


def test_a_changed_pot_amount_is_named(history: Path) -> None:
    line = _first(read_history(history), "pot_won")
    _rewrite(history, line, lambda record: record.update(amount="1000"))
    with pytest.raises(HistoryError) as caught:
        replay_file(history)
    assert caught.value.line == line


def test_cards_not_from_the_seed_are_named(history: Path) -> None:
    records = read_history(history)
    line = _first(records, "deal", pot=2)
    def swap(record: dict) -> None:
        record["hands"]["0"], record["hands"]["1"] = record["hands"]["1"], record["hands"]["0"]
    _rewrite(history, line, swap)
    with pytest.raises(HistoryError) as caught:
        replay_file(history)
    assert caught.value.line == line and "seed" in caught.value.message


def test_acting_out_of_turn_is_named(history: Path) -> None:
    records = read_history(history)
    line = _first(records, "action")
    _rewrite(history, line, lambda record: record.update(seat=(record["seat"] + 1) % 3))
    with pytest.raises(HistoryError) as caught:
        replay_file(history)
    assert caught.value.line == line and "turn" in caught.value.message


def test_a_truncated_history_is_named(history: Path) -> None:
    lines = history.read_text().splitlines(keepends=True)
    history.write_text("".join(lines[:-3]))
    with pytest.raises(HistoryError, match="ends"):
        replay_file(history)


def test_garbage_is_named_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"event": "session_start"}\nnot json\n')
    with pytest.raises(HistoryError) as caught:
        read_history(path)
    assert caught.value.line == 2


def test_a_missing_field_is_named(history: Path) -> None:
    _rewrite(history, 1, lambda record: record.pop("max_bet"))
    with pytest.raises(HistoryError, match="max_bet"):
        replay_file(history)


def test_events_after_the_end_are_refused() -> None:
    records = [event.to_json() for event in _session().events]
    with pytest.raises(HistoryError, match="after the session"):
        replay_records(records + [records[-1]])


def test_a_trailing_blank_line_is_accepted_but_a_blank_line_inside_is_not(history: Path) -> None:
    text = history.read_text()
    history.write_text(text + "\n")
    assert history_text(replay_file(history).state.events) == text
    history.write_text(text + " \n\n")
    replay_file(history)
    lines = text.splitlines(keepends=True)
    history.write_text("".join(lines[:3]) + "\n" + "".join(lines[3:]))
    with pytest.raises(HistoryError) as caught:
        read_history(history)
    assert caught.value.line == 4 and "blank line" in caught.value.message


def test_a_history_that_says_its_cards_were_chosen_replays_but_says_its_deals_are_unchecked(
        history: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert replay_file(history).seeded
    line = unshown_deal(read_history(history))

    def stack(record: dict) -> None:
        record["hands"]["0"], record["hands"]["1"] = record["hands"]["1"], record["hands"]["0"]
    _rewrite(history, line, stack)
    with pytest.raises(HistoryError, match="not the ones seed"):
        replay_file(history)
    _rewrite(history, 1, lambda record: record.update(dealing="stacked"))  # now any card goes
    assert not replay_file(history).seeded
    assert main(["replay", "--quiet", str(history)]) == 0
    assert capsys.readouterr().out.endswith(
        "every rule holds; its deals were NOT checked against a seed: it says its cards were chosen "
        "(dealing: stacked)\n")


@pytest.mark.parametrize("dealing", ["shuffled", None])
def test_a_dealing_other_than_seeded_or_stacked_is_refused(history: Path, dealing: str | None) -> None:
    _rewrite(history, 1, lambda record: record.update(dealing=dealing) if dealing else record.pop("dealing"))
    with pytest.raises(HistoryError) as caught:
        replay_file(history)
    assert caught.value.line == 1 and "dealing" in caught.value.message
