"""Table clarification 7 over real processes: a late, illegal, unreadable or crashed bot folds at
its turn, the reason is recorded, and nothing else of the session changes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import trio
from google.protobuf import text_format

from arena._proto.seka.v1 import seka_pb2 as pb
from arena.engine import (
    GEORGIAN,
    Fault,
    Rules,
    SessionState,
    Shuffler,
    parse_cards,
    seeded_shuffler,
    stacked_shuffler,
    turn_view,
)
from arena.history import history_text
from arena.match import SessionResult, run_session
from arena.replay import replay_records
from arena.transport import BotFault, BotSpec, TimeLimit, open_bot

from ._support import RELAXED, TWO_POTS, records, sample_spec, seat_actions, spec

# Two pots, and a deal among callers stops at the action cap after a few bets each.
SHORT = TWO_POTS.with_table(max_actions=12)


def caller(name: str) -> BotSpec:
    return sample_spec(name, "call_bot.py", limit=RELAXED)


async def play(rules: Rules, specs: list[BotSpec], tmp_path: Path, **options: Any) -> SessionResult:
    result = await run_session(rules, specs, seed="faults", session_id="faults", log_dir=tmp_path / "logs", **options)
    history = records(result.events)
    assert history[-1]["event"] == "session_end"
    assert sum(result.balances) == 0
    # The faults are part of the record: the history replays through the engine as it stands.
    assert replay_records(history).state.balances == list(result.balances)
    return result


def assert_clean(result: SessionResult, seats: list[int]) -> None:
    """The bots at `seats` never faulted and chose every one of their actions themselves."""
    for seat in seats:
        report = result.seats[seat]
        assert report.telemetry["faults"] == {} and report.dead is None, report
        assert report.telemetry["decisions"] > 0
        assert all("fault" not in action for action in seat_actions(result.events, seat))


async def test_a_hanging_bot_times_out_at_each_turn_and_the_others_play_on(tmp_path: Path) -> None:
    result = await play(SHORT, [caller("a"), spec("hang", "faulty_bot.py", "--mode", "hang"), caller("b")], tmp_path)
    actions = seat_actions(result.events, 1)
    assert len(actions) == 2  # one turn per pot, and the timeout folds it
    assert all(action["kind"] == "fold" and action["fault"] == "timeout" for action in actions)
    assert result.seats[1].telemetry["faults"]["timeout"] >= 2
    assert result.seats[1].telemetry["decisions"] == 0
    assert_clean(result, [0, 2])


async def test_a_bot_that_crashes_folds_from_then_on_and_its_exit_status_is_reported(tmp_path: Path) -> None:
    result = await play(SHORT, [caller("call"), spec("crash", "faulty_bot.py", "--mode", "crash", "--at", "3")],
                        tmp_path)
    actions = seat_actions(result.events, 1)
    assert [action["kind"] for action in actions[:2]] == ["bet", "bet"]
    assert "fault" not in actions[0] and "fault" not in actions[1]
    assert len(actions) >= 4  # the crash in pot 1, then at least one turn in pot 2
    assert all(action["kind"] == "fold" and action["fault"] == "crash" for action in actions[2:])
    dead = result.seats[1].dead
    assert dead is not None and dead.startswith("crash: ")
    assert "exit status 7" in dead and "crashing at turn 3" in dead  # the stderr tail comes with it
    assert result.seats[1].telemetry["faults"]["crash"] == len(actions) - 2
    assert_clean(result, [0])


async def test_the_call_during_which_a_bot_dies_already_reports_its_exit_status(tmp_path: Path) -> None:
    # The bot's socket closes a moment before its process can be reaped; the fault of that very
    # call must still name the exit status and mark the bot dead (it may be its last call).
    # Four bots at once, as the race went the wrong way about one time in four.
    view = turn_view(SessionState(GEORGIAN, bots=["a", "b"], seed="crash"))
    faults: list[tuple[BotFault, BotFault | None]] = []

    async def crash_once(index: int) -> None:
        crasher = spec(f"crash{index}", "faulty_bot.py", "--mode", "crash", "--at", "1", limit=RELAXED)
        async with open_bot(crasher, log_dir=tmp_path / "logs", socket_dir=tmp_path) as bot:
            try:
                await bot.act(view, session_id="crash")
            except BotFault as fault:
                faults.append((fault, bot.dead))

    async with trio.open_nursery() as nursery:
        for index in range(4):
            nursery.start_soon(crash_once, index)
    assert len(faults) == 4
    for fault, dead in faults:
        assert fault.kind is Fault.CRASH and fault.detail.startswith("exited during Act (exit status 7)"), fault
        assert dead is fault


@pytest.mark.parametrize("mode", ["illegal-high", "illegal-low", "illegal-show"])
async def test_an_illegal_answer_folds_the_bot(tmp_path: Path, mode: str) -> None:
    # Three seats, so that a show (which needs exactly two players in the deal) is illegal too.
    result = await play(SHORT, [caller("a"), spec("illegal", "faulty_bot.py", "--mode", mode), caller("b")], tmp_path)
    actions = seat_actions(result.events, 1)
    assert len(actions) == 2
    assert all(action["kind"] == "fold" and action["fault"] == "illegal" for action in actions)
    assert result.seats[1].telemetry["faults"] == {"illegal": 2}
    assert result.seats[1].dead is None  # it answered, wrongly: it is alive and asked again
    assert_clean(result, [0, 2])


@pytest.mark.parametrize("mode", ["garbage", "wrong-message", "other-message", "empty", "huge", "unknown-field"])
async def test_an_unreadable_answer_folds_the_bot(tmp_path: Path, mode: str) -> None:
    result = await play(SHORT, [caller("call"), spec("raw", "raw_bot.py", "--mode", mode)], tmp_path)
    actions = seat_actions(result.events, 1)
    assert len(actions) == 2
    assert all(action["kind"] == "fold" and action["fault"] == "malformed" for action in actions)
    assert result.seats[1].telemetry["faults"] == {"malformed": 2}
    assert_clean(result, [0])


async def test_a_bot_that_exits_at_start_folds_every_turn_with_its_exit_status_and_stderr(tmp_path: Path) -> None:
    limit = TimeLimit(decision_ms=200, start_ms=1000)
    result = await play(SHORT, [caller("a"), spec("exits", "exit_bot.py", limit=limit), caller("b")], tmp_path)
    actions = seat_actions(result.events, 1)
    assert len(actions) == 2
    assert all(action["kind"] == "fold" and action["fault"] == "crash" for action in actions)
    dead = result.seats[1].dead
    assert dead is not None and dead.startswith("crash: exited before it was ready (exit status 3)")
    assert "cannot start: no model file" in dead
    assert_clean(result, [0, 2])


async def test_a_bot_that_never_becomes_ready_folds_every_turn_after_the_start_deadline(tmp_path: Path) -> None:
    limit = TimeLimit(decision_ms=200, start_ms=1000)
    result = await play(SHORT, [caller("a"), spec("never", "raw_bot.py", "--mode", "never-ready", limit=limit),
                                caller("b")], tmp_path)
    actions = seat_actions(result.events, 1)
    assert len(actions) == 2
    assert all(action["kind"] == "fold" and action["fault"] == "timeout" for action in actions)
    assert (result.seats[1].dead or "").startswith("timeout: not ready within 1s: ")  # what it saw: test_readiness
    assert_clean(result, [0, 2])


def _tied_shuffler(rules: Rules) -> Shuffler:
    # Seats 0 and 1 hold the same ranks in different suits, so when the action cap makes them
    # reveal they tie; seat 2, which folded, is then offered re-entry to the svara.
    hands = {0: parse_cards("Th Jh Qh"), 1: parse_cards("Ts Js Qs")}
    return stacked_shuffler({(1, 0): hands}, seeded_shuffler("faults", rules.deck))


@pytest.mark.parametrize(("faulty", "fault"), [
    (("faulty_bot.py", "--mode", "hang"), "timeout"),
    (("raw_bot.py", "--mode", "garbage"), "malformed"),
    # A well-formed acceptance carrying a field SvaraReply does not have is refused like a turn's.
    (("raw_bot.py", "--mode", "unknown-field"), "malformed"),
    (("exit_bot.py",), "crash"),
])
async def test_a_faulty_bot_declines_its_svara_offer_with_the_fault_recorded(
        tmp_path: Path, faulty: tuple[str, ...], fault: str) -> None:
    rules = SHORT.with_table(pots_per_session=1, max_actions=6)
    # A start deadline a loaded machine meets (at 2 s the bot was once not ready, and its fault read timeout).
    specs = [caller("a"), caller("b"), spec("faulty", *faulty, limit=TimeLimit(decision_ms=200, start_ms=10_000))]
    result = await play(rules, specs, tmp_path, shuffler=_tied_shuffler(rules))
    history = records(result.events)
    reveal = next(record for record in history if record["event"] == "reveal")
    assert reveal["seats"] == [0, 1] or reveal["seats"] == [1, 0]
    assert reveal["winner"] is None
    svara = next(record for record in history if record["event"] == "svara")
    assert svara["eligible"] == [2]
    entries = [record for record in history if record["event"] == "entry"]
    assert entries == [{"event": "entry", "seat": 2, "accepted": False, "amount": "0", "fault": fault}]
    assert seat_actions(result.events, 2) == [{"event": "action", "seat": 2, "kind": "fold", "amount": "0",
                                               "fault": fault}]
    assert_clean(result, [0, 1])
    assert history_text(result.events).count('"fault"') == 2


async def test_the_other_bots_are_told_why_the_arena_folded_or_declined(tmp_path: Path) -> None:
    # The proto promises that "the other bots see the reason": the fault travels in every later
    # TurnRequest's actions (this deal) and svara entries (this pot), and in later SvaraOffers.
    record = tmp_path / "seat0.txt"
    rules = SHORT.with_table(pots_per_session=1, max_actions=6)
    specs = [spec("recorder", "recording_bot.py", "--record", str(record), "--play", "call", limit=RELAXED),
             caller("b"), spec("hang", "faulty_bot.py", "--mode", "hang")]
    result = await play(rules, specs, tmp_path, shuffler=_tied_shuffler(rules))
    assert [record["fault"] for record in records(result.events) if "fault" in record] == ["timeout", "timeout"]
    turns = [text_format.Parse(line.removeprefix("Act "), pb.TurnRequest())
             for line in record.read_text().splitlines() if line.startswith("Act ")]
    folds = [action for turn in turns if turn.replay == 0 for action in turn.actions if action.seat == 2]
    assert folds and all(action.kind == pb.ACTION_KIND_FOLD and action.fault == pb.FAULT_TIMEOUT for action in folds)
    replays = [turn for turn in turns if turn.replay == 1]
    assert replays
    for turn in replays:
        assert [(entry.seat, entry.accepted, entry.fault) for entry in turn.svaras[0].entries] == [
            (2, False, pb.FAULT_TIMEOUT)]
