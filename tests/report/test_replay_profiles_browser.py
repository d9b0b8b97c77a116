"""The replay viewer on every profile, in a real headless Chromium: what each table shows at each step as the
browser draws it. A stake table (seka36, svara32, seka21) shows each seat's stack (after the antes at a
deal's step), the current stake (the table stake at each deal, each raise's after it) and its opens and
calls; a table with a maximum payment (georgian with options, classic) shows no stack nor stake; every page
keeps the pot's size ("In the pot") apart from the pot's number, labels its curve's step marker and links back
to the page that served it (issue 25)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from selenium import webdriver
from selenium.webdriver.common.by import By

from arena.engine import format_amount, profile
from arena.history import read_history, write_history
from arena.policies import RandomPolicy, ThresholdPolicy, play_in_process
from arena.report import SessionHistory, write_session_replay

from ._browser import console_errors, file_url, open_chromium

_PROFILES = [("georgian", {"dark": "true", "deck": "32", "tie": "split"}), ("classic", {"open": "multiway"}),
             ("seka36", {}), ("svara32", {}), ("seka21", {})]
_BACK = ("/sessions/x", "← Back to the arena's session page")
_SCREEN = """
const text = selector => { const node = document.querySelector(selector); return node ? node.innerText : null; };
return {position: text('#position'), text: text('#step-text'), pot: text('#pot-amount'),
        potLine: text('.table-view .pot'), stakeShown: !document.getElementById('stake-line').hidden,
        stake: text('#stake-amount'),
        seats: [...document.querySelectorAll('#seats li')].map(li => ({
            balance: li.querySelector('.balance .amount').innerText,
            stack: li.querySelector('.balance .stack') ? li.querySelector('.balance .stack').innerText : null}))};
"""


@pytest.fixture(scope="module")
def browser() -> Iterator[webdriver.Chrome]:
    with open_chromium() as driver:
        yield driver


def _session(tmp_path: Path, name: str, options: dict[str, str]) -> tuple[Path, list[dict[str, Any]]]:
    """A session of the profile whose history holds what its table must show (on a stake table, a raise and an
    open or a call), its replay page written as the service writes it, with a link back."""
    rules = profile(name, options)
    stake = bool(rules.betting.stacks)
    for attempt in range(40):
        state = play_in_process(rules, [RandomPolicy(random.Random(attempt), name="rand"),
                                        ThresholdPolicy(name="thr")], seed=f"{name}-{attempt}", session=f"s-{name}")
        records = [event.to_json() for event in state.events]
        kinds = {record.get("kind") for record in records if record["event"] == "action"}
        if not stake or ("raise" in kinds and kinds & {"open", "call"}):
            break
    else:
        raise AssertionError(f"no {name} session of 40 raised and opened or called")
    history = write_history(tmp_path / f"{name}.jsonl", state.events)
    page = write_session_replay(tmp_path / name, SessionHistory(f"s-{name}", history), back=_BACK)
    return page, read_history(history)


@pytest.mark.parametrize(("name", "options"), _PROFILES, ids=[name for name, _ in _PROFILES])
def test_each_profiles_table_in_the_viewer(browser: webdriver.Chrome, tmp_path: Path, name: str,
                                           options: dict[str, str]) -> None:
    page, records = _session(tmp_path, name, options)
    start = records[0]
    stacks = {int(seat): Fraction(stack) for seat, stack in start.get("stacks", {}).items()}
    console_errors(browser)
    browser.get(file_url(page))
    meta = browser.find_element(By.CSS_SELECTOR, "p.replay-meta").text
    if stacks:
        assert f"ante and table stake {start['ante']}, stacks of {start['options']['stack']}" in meta
        assert "up to" not in meta
    else:
        assert f"payments up to {start['max_bet']}" in meta
    back = browser.find_element(By.CSS_SELECTOR, "a.back")
    assert (back.get_attribute("href").endswith(_BACK[0]), back.text) == (True, _BACK[1])
    marker = browser.find_element(By.ID, "curve-marker")
    assert marker.find_element(By.TAG_NAME, "title").get_attribute("textContent") == "the step shown above"
    assert "the step shown" in [text.get_attribute("textContent") for text in
                                browser.find_elements(By.CSS_SELECTOR, "figure.curve svg text")]

    # Walk the steps as the browser draws them, beside what the history says each step holds.
    steps = browser.execute_script("return JSON.parse(document.getElementById('replay-data').textContent).steps;")
    seats = len(start["seats"])
    balances = [Fraction(0)] * seats
    stake = Fraction(start["opening_stake"])
    seen = set()
    records_by_number = dict(enumerate(records, start=1))
    for number, step in enumerate(steps, start=1):
        if number > 1:
            browser.execute_script("document.dispatchEvent(new KeyboardEvent('keydown', "
                                   "{key: 'ArrowRight', bubbles: true}));")
        screen = browser.execute_script(_SCREEN)
        assert screen["position"].startswith(f"Step {number} of "), screen
        # The pot's size under its own words, never next to the pot's number.
        assert screen["potLine"] == f"In the pot: {screen['pot']}" and screen["pot"] == step["pot"]
        record = records_by_number[step["record"]]
        if record["event"] == "deal":
            stake = Fraction(start["opening_stake"])
            if record["replay"] == 0:  # the antes join the deal's step: balances and stacks after them
                antes = [r for r in records[step["record"]:] if r["event"] == "ante"][:len(record["hands"])]
                for ante in antes:
                    balances[ante["seat"]] -= Fraction(ante["amount"])
                seen.add("deal")
                assert [seat["balance"] for seat in screen["seats"]] == [format_amount(b) for b in balances]
        elif record["event"] == "action" and "stake" in record:
            stake = Fraction(record["stake"])
        if record["event"] == "pot_won" or record["event"] == "split" or record["event"] == "session_end":
            balances = [Fraction(record["balances"].get(str(seat), "0")) for seat in range(seats)] \
                if "balances" in record else balances
        if stacks:
            assert screen["stakeShown"] and screen["stake"] == format_amount(stake), (number, record)
            assert [seat["stack"] for seat in screen["seats"]] == [
                format_amount(stacks[seat] + Fraction(balance)) for seat, balance
                in enumerate(seat["balance"] for seat in screen["seats"])]
            if record["event"] == "deal" and record["replay"] == 0:
                assert [Fraction(seat["stack"]) for seat in screen["seats"]] == [
                    stacks[seat] + balances[seat] for seat in range(seats)]
            if record["event"] == "action" and record["kind"] in ("raise", "open", "call"):
                seen.add(record["kind"])
                said = {"raise": f"raises the stake to {record['stake']}" if "stake" in record else "",
                        "open": "to open: the hands are shown", "call": "calls, paying"}[record["kind"]]
                assert said in screen["text"], screen["text"]
        else:
            assert not screen["stakeShown"] and all(seat["stack"] is None for seat in screen["seats"])
    assert "deal" in seen
    if stacks:
        assert "raise" in seen and seen & {"open", "call"}
    assert console_errors(browser) == []
