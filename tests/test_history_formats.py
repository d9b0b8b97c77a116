"""Every released history format still reads: `tests/histories/format-N-PROFILE.jsonl` were written by the
arena of that format (format 1 by 904e8eb, the last before format 2, including the stake profiles' returned
chips of rules edition 1; format 3 with mixed replies, by in-process policies that answer with distributions)
and are never regenerated. `replay` re-checks each under the rules it was
played with, and the report's viewer reads each without a note. A new format adds its files here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.cli import main
from arena.engine import HISTORY_FORMAT
from arena.history import HistoryError
from arena.replay import replay_file, replay_records
from arena.report import SPECTATOR, replay_data

HISTORIES = Path(__file__).parent / "histories"
FILES = sorted(HISTORIES.glob("format-*.jsonl"))


def _format(path: Path) -> int:
    return int(path.name.split("-")[1])


def test_every_released_format_and_profile_is_kept() -> None:
    kept = {(_format(path), path.stem.split("-", 2)[2]) for path in FILES}
    profiles = {"georgian", "classic", "seka36", "svara32", "seka21"}
    assert kept == {(number, name) for number in range(1, HISTORY_FORMAT + 1) for name in profiles}


@pytest.mark.parametrize("path", FILES, ids=lambda path: path.stem)
def test_replay_and_the_viewer_read_every_released_format(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert records[0].get("format", 1) == _format(path)
    result = replay_file(str(path))  # raises at the first record the rules of its edition do not give
    assert [event.to_json() for event in result.state.events] == records
    data = replay_data(records)
    assert data["format"] == _format(path) and data["notes"] == []
    assert len(data["steps"]) > 5
    # The command, run here: a process each would cost a second's start-up (test_cli runs it as a process).
    capsys.readouterr()
    status = main(["replay", str(path)])
    printed = capsys.readouterr()
    assert status == 0 and "every rule holds" in printed.out, printed.out + printed.err


def test_format_1_stake_histories_keep_their_returned_chips() -> None:
    """Edition 1 gave the other's last payment back when a seat was short; its histories say so and
    still replay, though edition 2 never gives a support back."""
    returned = [json.loads(line) for line in (HISTORIES / "format-1-seka36.jsonl").read_text().splitlines()
                if '"returned"' in line]
    assert returned and all("raise" not in record for record in returned)
    assert not any('"returned"' in path.read_text() for path in FILES if _format(path) >= 2)


FORMAT_3 = [path for path in FILES if _format(path) == 3]


@pytest.mark.parametrize("path", FORMAT_3, ids=lambda path: path.stem)
def test_format_3_records_mixed_replies_that_replay_checks_draw_by_draw(path: Path) -> None:
    records = [json.loads(line) for line in path.read_text().splitlines()]
    mixed = [number for number, record in enumerate(records) if "mix" in record]
    assert mixed and all(list(records[number])[-2:] == ["mix", "draw"] for number in mixed)
    number = mixed[0]
    tampered = [dict(record) for record in records]
    tampered[number]["draw"] = 1 - records[number]["draw"]
    with pytest.raises(HistoryError, match=f"<history>:{number + 1}: tampered: the recorded draw"):
        replay_records(tampered)
    # Another entry of the mix recorded as the action taken, with the draw left as it was.
    record = records[number]
    other = next(entry for entry in record["mix"] if entry["kind"] != record["kind"])
    forged = {key: value for key, value in record.items() if key not in ("stake",)}
    forged.update(kind=other["kind"], **({"amount": other["amount"]} if "amount" in other else {}),
                  **({"stake": other["stake"]} if "stake" in other else {}))
    tampered = [dict(record) for record in records]
    tampered[number] = forged
    with pytest.raises(HistoryError, match=f"<history>:{number + 1}: tampered: the draw .* picks"):
        replay_records(tampered)


@pytest.mark.parametrize("path", FORMAT_3, ids=lambda path: path.stem)
def test_the_viewer_shows_a_mix_to_the_organiser_and_its_seat_but_never_to_a_spectator(path: Path) -> None:
    records = [json.loads(line) for line in path.read_text().splitlines()]
    seat = next(record["seat"] for record in records if "mix" in record)
    drawn = "drawn by the arena, at "

    def shown(view: int | None) -> set[int]:
        return {step["actor"] for step in replay_data(records, seat=view)["steps"] if drawn in step["text"]}

    assert seat in shown(None) and shown(seat) == {seat}
    assert shown(SPECTATOR) == set()
    assert "draw" not in json.dumps(replay_data(records, seat=SPECTATOR)) and "mix" not in json.dumps(
        replay_data(records, seat=SPECTATOR)["steps"])
