"""Mixed replies over real processes and real gRPC: the arena draws the action from the bot's distribution with
a draw derived from the session's seed, records both, and folds a bot whose distribution is malformed (or holds
an illegal action) with the fault's type and a reason naming what is wrong."""

from __future__ import annotations

import hashlib
import hmac
from pathlib import Path

import pytest

from arena.engine import profile
from arena.history import history_text
from arena.match import SessionResult, run_session
from arena.replay import replay_records

from ._support import RELAXED, TWO_POTS, records, sample_spec, seat_actions, spec


def _draw(seed: str, session: str, index: int) -> float:
    """docs/history.md's derivation, written out again here: HMAC-SHA256 of the seed, 53 bits."""
    digest = hmac.new(seed.encode(), f"seka-mix|{session}|{index}".encode(), hashlib.sha256).digest()
    return (int.from_bytes(digest[:8], "big") >> 11) / 2**53


async def _play(mode: str, tmp_path: Path, rules=TWO_POTS) -> SessionResult:  # type: ignore[no-untyped-def]
    specs = [spec("mixing", "mixing_bot.py", "--mode", mode, limit=RELAXED),
             sample_spec("caller", "call_bot.py", limit=RELAXED)]
    result = await run_session(rules, specs, seed="mixed", session_id="mixed-1", log_dir=tmp_path / "logs")
    assert replay_records(records(result.events)).state.balances == list(result.balances)
    return result


async def test_a_valid_mix_is_drawn_from_with_the_seeds_draw_and_recorded(tmp_path: Path) -> None:
    result = await _play("valid", tmp_path)
    assert result.seats[0].telemetry["faults"] == {}
    history = records(result.events)
    actions = [record for record in history if record["event"] == "action"]
    mixed = [(index, record) for index, record in enumerate(actions) if record["seat"] == 0 and "mix" in record]
    assert mixed and not [record for record in seat_actions(result.events, 0) if "fault" in record]
    for index, record in mixed:
        assert record["draw"] == _draw("mixed", "mixed-1", index)
        first, *rest = record["mix"]
        assert first == {"kind": "fold", "p": 0.25} or record["mix"] == [{"kind": "fold", "p": 1.0}]
        # fold covers draws below 1/4 of the total; the other entry the rest
        assert (record["kind"] == "fold") == (record["draw"] < 0.25 or not rest), record
    assert {record["kind"] for _, record in mixed} >= {"fold", "bet"}  # both entries were drawn at some turn
    # The caller answered plainly: its events are as they always were.
    assert all("mix" not in record for record in seat_actions(result.events, 1))


async def test_the_same_seed_and_decisions_give_the_same_bytes(tmp_path: Path) -> None:
    first = await _play("valid", tmp_path / "a")
    second = await _play("valid", tmp_path / "b")
    assert history_text(first.events) == history_text(second.events)


MALFORMED = [
    ("negative", "malformed", "entry 1 has a negative probability -0.5"),
    ("sum", "malformed", "the probabilities sum to 0.75, not 1 (within 1e-09)"),
    ("nan", "malformed", "entry 1 has probability nan: not a finite number"),
    ("inf", "malformed", "entry 1 has probability inf: not a finite number"),
    ("duplicate", "malformed", "entry 2 repeats Fold(): each action may appear once"),
    ("too-many", "malformed", "a mix of 65 entries; at most 64 are allowed"),
    ("empty", "malformed", "a mix without entries"),
    ("illegal", "illegal", "entry 2 of the mix: "),
]


@pytest.mark.parametrize("mode, fault, reason", MALFORMED, ids=[case[0] for case in MALFORMED])
async def test_a_broken_mix_folds_the_bot_with_its_fault_and_reason(mode: str, fault: str, reason: str,
                                                                   tmp_path: Path) -> None:
    result = await _play(mode, tmp_path)
    actions = seat_actions(result.events, 0)
    assert actions and all(action == {"event": "action", "seat": 0, "kind": "fold", "amount": "0", "fault": fault}
                           for action in actions), actions
    (recorded,) = result.seats[0].fault_reasons
    assert recorded[0] == fault and reason in recorded[1], recorded
    assert result.seats[1].telemetry["faults"] == {}


@pytest.mark.parametrize("name", ["georgian", "classic", "seka36", "svara32", "seka21"])
async def test_the_random_sample_bot_answers_with_distributions_on_every_profile(name: str, tmp_path: Path) -> None:
    rules = profile(name).with_table(pots_per_session=3, max_actions=30)
    specs = [sample_spec("random", "random_bot.py", "--seed", "3", limit=RELAXED),
             sample_spec("caller", "call_bot.py", limit=RELAXED)]
    result = await run_session(rules, specs, seed=f"mix-{name}", session_id=f"m-{name}", log_dir=tmp_path / "logs")
    assert all(report.telemetry["faults"] == {} for report in result.seats)
    mixed = [record for record in seat_actions(result.events, 0) if "mix" in record]
    assert mixed and mixed == seat_actions(result.events, 0)  # no dark play here: no look to draw itself
    for record in mixed:  # uniform over its choices
        assert len({entry["p"] for entry in record["mix"]}) == 1
        assert abs(sum(entry["p"] for entry in record["mix"]) - 1) < 1e-9
    replay_records(records(result.events))


@pytest.mark.parametrize("name", ["georgian", "classic", "seka36", "svara32", "seka21"])
@pytest.mark.parametrize("mode, fault", [("valid", None), ("illegal", "illegal"), ("sum", "malformed")])
async def test_mixes_on_every_profile_are_drawn_or_faulted(name: str, mode: str, fault: str | None,
                                                           tmp_path: Path) -> None:
    rules = profile(name, {"dark": "true"} if name != "svara32" else {}).with_table(pots_per_session=2,
                                                                                   max_actions=20)
    result = await _play(mode, tmp_path, rules)
    actions = seat_actions(result.events, 0)
    assert actions
    if fault is None:
        assert result.seats[0].telemetry["faults"] == {}
        assert any("mix" in action for action in actions)
    else:
        assert all(action.get("fault") == fault and "mix" not in action for action in actions), actions
