"""The replay viewer's data, built from the documented history format alone: the steps, pots and
balances of the history, and a seat's view that holds no card the seat could not have seen."""

from __future__ import annotations

import json
import random
import re
from fractions import Fraction
from typing import Any

import pytest

from arena.engine import GEORGIAN, profile
from arena.policies import RandomPolicy, play_in_process
from arena.report import FORMAT_VERSION, ReplayDataError, balance_curve, redact_records, replay_data

from ._sessions import SVARA_DEALS, ledger, scripted_svara_session, seen_by, shown

_CARD = re.compile(r'"([6-9TJQKA][cdhs])"')


def _records(events) -> list[dict[str, Any]]:
    return [json.loads(json.dumps(event.to_json())) for event in events]


@pytest.fixture(scope="module")
def svara_records() -> list[dict[str, Any]]:
    return _records(scripted_svara_session().events)


def _random_records(number: int) -> list[dict[str, Any]]:
    seats = 2 + number % 5
    policies = [RandomPolicy(random.Random(f"viewer-{number}-{seat}"), name=f"bot{seat}") for seat in range(seats)]
    return _records(play_in_process(GEORGIAN, policies, seed=f"viewer-{number}", session=f"v{number}").events)


def test_every_step_shows_the_pot_and_balances_of_the_history(svara_records: list[dict[str, Any]]) -> None:
    data = replay_data(svara_records)
    expected = ledger(svara_records)
    assert len(data["steps"]) == len(expected)
    for step, want in zip(data["steps"], expected, strict=True):
        assert (step["kind"], step["pot"], step["balances"]) == (want["record"]["event"], want["pot"], want["balances"])
    assert [pot["winner"] for pot in data["pots"]] == [r["seat"] for r in svara_records if r["event"] == "pot_won"]
    assert data["curve"][-1] == [svara_records[-1]["balances"][str(s)] for s in range(3)]
    kinds = {step["kind"] for step in data["steps"]}
    assert {"svara", "entry", "showdown"} <= kinds
    assert data["format"] == FORMAT_VERSION and data["seed"] == SVARA_DEALS


def test_faults_are_steps_with_their_kind_and_reason(svara_records: list[dict[str, Any]]) -> None:
    from arena.storage import FaultReason
    data = replay_data(svara_records, fault_reasons={"faulty": [FaultReason("illegal", "bet 11 above 10", 9)]})
    faulted = [step for step in data["steps"] if "fault" in step]
    assert len(faulted) == sum("fault" in r for r in svara_records) == len(data["faults"]) > 0
    assert all(step["fault"] == "illegal" and "bet 11 above 10" in step["text"] for step in faulted)
    assert all(fault["bot"] == "faulty" and fault["reason"] == "bet 11 above 10" for fault in data["faults"])


def test_decisions_carry_their_cost_and_a_line_it_cannot_read_is_left_out(
        svara_records: list[dict[str, Any]]) -> None:
    actions = [number for number, record in enumerate(svara_records, start=1) if record["event"] == "action"]
    figures = [{"line": actions[0], "seat": 0, "wall_ms": 12.5, "cpu_ms": 3.25, "credit_ms": 0},
               {"line": actions[1], "seat": 1, "wall_ms": 900.0, "cpu_ms": None, "credit_ms": 0, "timeout": "bot"},
               {"line": str(actions[2]), "wall_ms": 1}, {"line": actions[3], "wall_ms": -1},
               {"line": actions[4], "wall_ms": True}, {"peak_memory_kb": {"0": 2048, "1": "lots"}}]
    for seat in (None, 0, -1):  # the organiser, a seat and a spectator see the times alike
        data = replay_data(svara_records, seat=seat, resources=figures)
        costs = {step["record"]: step["cost"] for step in data["steps"] if "cost" in step}
        assert costs.keys() == {actions[0], actions[1]}
        assert costs[actions[0]]["wall_ms"] == 12.5 and costs[actions[0]]["cpu_ms"] == 3.25
        assert costs[actions[1]]["timeout"] == "bot" and costs[actions[1]]["cpu_ms"] is None
        rows = {row["bot"]: row for row in data["resources"]}
        acted = [svara_records[line - 1]["seat"] for line in actions[:2]]
        first = rows[svara_records[0]["seats"][acted[0]]["bot"]]
        assert first["wall_max_ms"] >= 12.5 and first["peak_memory_kb"] == (2048 if acted[0] == 0 else None)
        assert sum(row["timeouts"] for row in rows.values()) == 1
    assert replay_data(svara_records)["resources"] is None  # no file: no table


@pytest.mark.parametrize("number", range(12))
def test_a_seat_view_holds_only_cards_the_seat_could_see(number: int) -> None:
    records = _random_records(number) if number else _records(scripted_svara_session().events)
    seats = len(records[0]["seats"])
    for seat in range(seats):
        data = replay_data(records, seat=seat)
        text = json.dumps(data)
        assert set(_CARD.findall(text)) <= seen_by(records, seat)
        assert data["seed"] is None and json.dumps(records[0]["seed"]) not in text
        shown: set[int] = set()
        for step, want in zip(data["steps"], ledger(records), strict=True):
            record = want["record"]
            if record["event"] == "deal":
                shown = set()
            if record["event"] in ("showdown", "reveal"):
                shown |= {int(s) for s in record["hands"]}
            hands = data["hand_sets"][step["hands"]]
            for other, hand in enumerate(hands):
                if hand is not None and other != seat and other not in shown:
                    assert hand["cards"] is None, (seat, step)
        # The organiser's page has every hand of every deal.
    organiser = json.dumps(replay_data(records))
    dealt = {card for r in records if r["event"] == "deal" for hand in r["hands"].values() for card in hand}
    assert dealt <= set(_CARD.findall(organiser))


def test_unknown_event_kinds_are_shown_as_fields_and_their_cards_kept_from_seats(
        svara_records: list[dict[str, Any]]) -> None:
    records = [dict(record) for record in svara_records]
    records.insert(2, {"event": "peek", "seat": 1, "cards": ["Ah", "Kd", "Qs"], "amount": "1/2"})
    organiser = replay_data(records)
    peek = next(step for step in organiser["steps"] if step["kind"] == "peek")
    assert peek["text"] == "peek: seat 1, cards [A♥, K♦, Q♠], amount 1/2" and peek["actor"] == 1
    seat_view = replay_data(records, seat=0)
    peek = next(step for step in seat_view["steps"] if step["kind"] == "peek")
    assert "cards not shown" in peek["text"] and "A♥" not in peek["text"]
    assert redact_records(records, 0)[2] == {"event": "peek", "seat": 1, "amount": "1/2", "hidden_fields": ["cards"]}
    # A field holding a card that a later writer adds to a known kind is dropped for a seat too.
    records[1] = {**records[1], "burned": ["7d"]}
    deal = redact_records(records, 0)[1]
    assert "burned" not in deal and deal["hidden_fields"] == ["burned"]


def _profile_session() -> list[dict[str, Any]]:
    """A stake-profile session in the format docs/history.md gives the profiles' events: a dark deal,
    a look, a multiway open's comparison, a short payment with chips returned, a split pot."""
    def deal(pot: int) -> dict[str, Any]:
        return {"event": "deal", "pot": pot, "replay": 0, "dealer": 2, "unseen": [0],
                "hands": {"0": ["Ah", "Kh", "Qh"], "1": ["6c", "7c", "8c"], "2": ["9d", "Td", "Jd"]}}
    return [
        {"event": "session_start", "session": "p", "profile": "seka36", "seed": "x", "dealing": "seeded",
         "seats": [{"seat": 0, "bot": "a"}, {"seat": 1, "bot": "b"}, {"seat": 2, "bot": "c"}], "ante": "1",
         "opening_stake": "2", "max_bet": "10", "pots": 2, "max_actions": 50, "first_dealer": 2,
         "options": {"deck": "36"}, "stacks": {"0": "20", "1": "20", "2": "3"}},
        deal(1),
        *({"event": "ante", "seat": seat, "amount": "1"} for seat in range(3)),
        {"event": "action", "seat": 0, "kind": "dark_bet", "amount": "2"},
        {"event": "look", "seat": 0, "cards": ["Ah", "Kh", "Qh"]},
        {"event": "action", "seat": 1, "kind": "multiway_open", "amount": "4"},
        {"event": "comparison", "pot": 1, "replay": 0, "opener": 1, "target": 0,
         "hands": {"1": ["6c", "7c", "8c"], "0": ["Ah", "Kh", "Qh"]}, "values": {"1": "21", "0": "31"}, "loser": 1},
        {"event": "action", "seat": 2, "kind": "raise", "stake": "4", "amount": "2"},
        {"event": "short", "seat": 2, "paid": "2", "needed": "8"},
        {"event": "returned", "seat": 0, "amount": "1"},
        {"event": "split", "pot": 1, "seats": [0, 2], "amount": "10", "share": "5",
         "balances": {"0": "3", "1": "-5", "2": "2"}},
        {"event": "session_cut", "pots_played": 1, "seats": [1], "stacks": {"0": "22", "1": "15", "2": "6"}},
        {"event": "session_end", "balances": {"0": "3", "1": "-5", "2": "2"}, "winners": [0]},
    ]


def test_the_profiles_events_are_shown_and_their_secrets_kept() -> None:
    records = _profile_session()
    organiser = replay_data(records)
    texts = [step["text"] for step in organiser["steps"]]
    assert "a bets 2 dark, without looking at its cards" in texts and "a looks at its cards" in texts
    assert "b compares hands with a: b 21, a 31; b leaves the deal" in texts
    assert "c raises the stake to 4, paying 2" in texts and "1 goes back to a" in " ".join(texts)
    assert "a and c tie and split pot 1: 10, 5 each" in texts and organiser["pots"][0]["split"] == ["a", "c"]
    returned = next(step for step in organiser["steps"] if step["kind"] == "returned")
    assert returned["pot"] == "10" and returned["balances"] == ["-2", "-5", "-3"]
    assert returned["stacks"] == ["18", "15", "0"] and organiser["options"] == {"deck": "36"}
    # The current stake: the table stake from the deal, the raise's after it.
    assert [step["stake"] for step in organiser["steps"]][:2] == ["2", "2"] and returned["stake"] == "4"
    assert organiser["notes"] == [] and organiser["steps"][-1]["balances"] == ["3", "-5", "2"]
    # Seat 0 bets dark: its own cards are not in its view until it looks; seat 2 never sees the
    # comparison's hands, seat 1 (the opener) does.
    dark = replay_data(records, seat=0)
    hands = [dark["hand_sets"][step["hands"]][0]["cards"] for step in dark["steps"]]
    assert hands[0] is None and hands[2] == ["Ah", "Kh", "Qh"]
    third = replay_data(records, seat=2)
    assert not {"Ah", "6c"} & set(_CARD.findall(json.dumps(third)))
    assert "only those two saw the hands" in json.dumps(third)
    assert "6c" in json.dumps(replay_data(records, seat=1))


def test_the_format_version_read_is_said(svara_records: list[dict[str, Any]]) -> None:
    assert replay_data(svara_records)["notes"] == [] and replay_data(svara_records)["format"] == 3
    older = [{key: value for key, value in svara_records[0].items() if key != "format"}, *svara_records[1:]]
    assert replay_data(older)["notes"] == [] and replay_data(older)["format"] == 1  # format 1 names none
    later = [{**svara_records[0], "format": 4}, *svara_records[1:]]
    data = replay_data(later)
    assert data["format"] == 4 and "format 4" in data["notes"][0]


@pytest.mark.parametrize(("line", "change", "message"), [
    (1, {"seats": "two"}, "seats must be a list"),
    (9, {"amount": "a lot"}, "record 9 (pot_won): amount is not an amount"),
    (6, {"seat": 7}, "record 6 (action): seat must be a seat 0..2"),
])
def test_a_record_it_cannot_read_is_named(svara_records: list[dict[str, Any]], line: int, change: dict[str, Any],
                                          message: str) -> None:
    records = [dict(record) for record in svara_records]
    records[line - 1].update(change)
    with pytest.raises(ReplayDataError, match=re.escape(message)):
        replay_data(records)


_OPTIONED = [("georgian", {"dark": "true"}), ("georgian", {"deck": "32", "dark": "true", "tie": "split"}),
             ("classic", {}), ("classic", {"open": "multiway", "dark": "true"}), ("seka36", {}), ("svara32", {}),
             ("seka21", {})]


@pytest.mark.parametrize(("name", "options"), _OPTIONED, ids=[f"{n}-{'-'.join(o.values()) or 'default'}"
                                                           for n, o in _OPTIONED])
@pytest.mark.parametrize("number", range(4))
def test_every_profiles_histories_replay_with_their_balances_and_secrets(name: str, options: dict[str, str],
                                                                         number: int) -> None:
    """Histories the engine writes for every profile (dark play with its looks, stake actions, multiway
    comparisons, split pots): the viewer's balances are the recorded ones at every step, and a seat's
    view holds only cards it saw (its own once it looked, a comparison's two if it was one of them)."""
    rules = profile(name, options)
    seats = 2 if rules.max_seats == 2 else 2 + number % 3
    policies = [RandomPolicy(random.Random(f"{name}-{number}-{seat}"), name=f"bot{seat}") for seat in range(seats)]
    records = _records(play_in_process(rules, policies, seed=f"o{number}", session="o").events)
    data = replay_data(records)
    assert data["notes"] == [] and data["profile"] == name
    assert [step["balances"] for step in data["steps"]] == [want["balances"] for want in ledger(records)]
    if "stacks" in records[0]:
        for step in data["steps"]:  # every step's stacks, the deal's after its antes, follow its balances
            stacks = [Fraction(records[0]["stacks"][str(seat)]) + Fraction(step["balances"][seat])
                      for seat in range(seats)]
            assert step["stacks"] == [shown(stack) for stack in stacks]
    # The balance chart's data are exact amounts after each pot (the pages' text reads them as decimals).
    won = [record["balances"] for record in records if record["event"] in ("pot_won", "split")]
    assert data["curve"][1:] == [[balances[str(seat)] for seat in range(seats)] for balances in won]
    final = balance_curve(data["curve"], data["bots"])["description"]
    assert all(f"{bot} {shown(Fraction(amount))}" in final
               for bot, amount in zip(data["bots"], data["curve"][-1], strict=True))
    for seat in range(seats):
        seen: set[str] = set()
        for record in records:
            if record["event"] == "deal" and seat not in record.get("unseen", []):
                seen.update(record["hands"].get(str(seat), []))
            if record["event"] == "look" and record["seat"] == seat:
                seen.update(record["cards"])
            if record["event"] in ("showdown", "reveal") or (
                    record["event"] == "comparison" and seat in (record["opener"], record["target"])):
                seen.update(card for hand in record["hands"].values() for card in hand)
        view = replay_data(records, seat=seat)
        del view["options"]  # classic's `wild` option names a card ("7c"), which is no card dealt
        assert set(_CARD.findall(json.dumps(view))) <= seen
