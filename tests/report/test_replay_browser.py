"""The replay pages in a real headless Chromium, checked by what is on screen: stepping through a
session with a svara, a re-entry and faults (played by real bot processes through `seka-arena play
--out`) shows the pots, actions and balances of its history; a seat's page never shows another
seat's unshown cards; the keys work; the page fits a desktop and a phone; the console stays clean.
The standings page of a real tournament (conftest's `played`) shows standings.json's numbers."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from arena.history import read_history, read_resources
from arena.report import card_text, chips_text

from ._browser import DESKTOP, PHONE, console_errors, file_url, open_chromium, overflow, set_viewport
from ._sessions import SVARA_SEED, ledger, play_svara_session

_READ = """
const text = selector => document.querySelector(selector).innerText;
const screen = () => ({position: text('#position'), text: text('#step-text'), pot: text('#pot-amount'),
    seats: [...document.querySelectorAll('#seats li')].map(li => ({
        seat: Number(li.dataset.seat), text: li.innerText, balance: li.querySelector('.balance .amount').innerText}))});
"""
_SCREEN = _READ + "return screen();"
_WALK = _READ + """
const screens = [];
for (let step = 0; step < arguments[0]; step += 1) {
    screens.push(screen());
    document.dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowRight', bubbles: true}));
}
return screens;
"""


@pytest.fixture(scope="module")
def svara_played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    out = tmp_path_factory.mktemp("played")
    history = play_svara_session(out)
    return out / "sessions", read_history(history)


@pytest.fixture(scope="module")
def browser() -> Iterator[webdriver.Chrome]:
    with open_chromium() as driver:
        yield driver


@pytest.fixture(autouse=True)
def no_console_errors(browser: webdriver.Chrome) -> Iterator[None]:
    console_errors(browser)
    yield
    assert console_errors(browser) == []


def _screen(browser: webdriver.Chrome) -> dict[str, Any]:
    return browser.execute_script(_SCREEN)  # type: ignore[no-any-return]


def _press(browser: webdriver.Chrome, key: str) -> None:
    browser.find_element(By.TAG_NAME, "body").send_keys(key)


def _cards(cards: list[str]) -> str:
    return " ".join(card_text(card) for card in cards)


def _check_step(screen: dict[str, Any], number: int, want: dict[str, Any], bots: list[str]) -> None:
    record = want["record"]
    assert screen["position"].startswith(f"Step {number} of "), screen
    assert screen["pot"] == want["pot"], (number, record)
    assert [seat["balance"] for seat in screen["seats"]] == want["balances"], (number, record)
    text, kind = screen["text"], record["event"]
    if kind == "deal":
        assert text.startswith(f"Pot {record['pot']}") and (record["replay"] == 0 or "svara replay" in text)
    elif kind == "action":
        verb = {"bet": f"bets {record['amount']}", "fold": "folds", "show": "asks for a show"}[record["kind"]]
        assert text.startswith(f"{bots[record['seat']]} ") and verb in text, (text, record)
        assert ("fault: " + record["fault"] in text) if "fault" in record else "fault" not in text
    elif kind == "entry":
        assert text.startswith(bots[record["seat"]]) and (
            f"re-enters for {record['amount']}" if record["accepted"] else "declines") in text
    elif kind == "svara":
        assert text.startswith("Svara:")
        assert f"pot of {record['frozen_pot']} is frozen" in text and f"costs {record['price']}" in text
    elif kind in ("showdown", "reveal"):
        for seat, value in record["values"].items():
            assert f"{bots[int(seat)]} {value}" in text
            assert _cards(record["hands"][seat]) in screen["seats"][int(seat)]["text"]
    elif kind == "pot_won":
        assert text.startswith(f"{bots[record['seat']]} wins pot {record['pot']}: {record['amount']}")


def test_stepping_through_a_replay_shows_the_history(browser: webdriver.Chrome,
                                                     svara_played: tuple[Path, list[dict[str, Any]]]) -> None:
    pages, records = svara_played
    bots = [entry["bot"] for entry in records[0]["seats"]]
    expected = ledger(records)
    assert {"svara", "entry"} <= {step["record"]["event"] for step in expected}
    assert any("fault" in step["record"] for step in expected)
    browser.get(file_url(pages / f"play-{SVARA_SEED}.html"))
    assert browser.find_element(By.ID, "format-version").text == "history format 3"
    for number, want in enumerate(expected, start=1):
        screen = _screen(browser)
        _check_step(screen, number, want, bots)
        if want["record"]["event"] == "deal":
            # The organiser sees every hand dealt.
            for seat, cards in want["record"]["hands"].items():
                assert _cards(cards) in screen["seats"][int(seat)]["text"]
        if "fault" in want["record"]:
            # The reason the arena gave travels from `play` into the page.
            assert "may pay 1 to 10, not 11" in screen["text"]
        _press(browser, Keys.ARROW_RIGHT)
    last = len(expected)
    assert _screen(browser)["position"].startswith(f"Step {last} of {last}")  # the last step stays
    for _ in range(3):
        _press(browser, Keys.ARROW_LEFT)
    _check_step(_screen(browser), last - 3, expected[last - 4], bots)
    _press(browser, Keys.HOME)
    _check_step(_screen(browser), 1, expected[0], bots)
    _press(browser, Keys.PAGE_DOWN)
    second_pot = next(number for number, step in enumerate(expected, start=1)
                      if step["record"]["event"] == "deal" and step["record"]["pot"] == 2)
    _check_step(_screen(browser), second_pot, expected[second_pot - 1], bots)
    _press(browser, Keys.END)
    _check_step(_screen(browser), last, expected[-1], bots)
    assert browser.current_url.endswith(f"#step-{last}")


def test_each_decision_step_shows_what_it_cost_from_the_resources_file(
        browser: webdriver.Chrome, svara_played: tuple[Path, list[dict[str, Any]]]) -> None:
    pages, records = svara_played
    figures = read_resources(pages.parent / f"play-{SVARA_SEED}.jsonl")
    assert figures is not None
    by_line = {figure["line"]: figure for figure in figures[:-1]}
    expected = ledger(records)
    browser.get(file_url(pages / f"play-{SVARA_SEED}.html"))
    shown = 0
    for want in expected:
        line = next(number for number, record in enumerate(records, start=1) if record is want["record"])
        cost = browser.find_element(By.ID, "step-cost").text
        if line in by_line:
            figure = by_line[line]
            said = re.fullmatch(r"Decided in ([0-9.]+) ms, ([0-9.]+) ms of its CPU", cost)
            assert said is not None, cost  # to a tenth of a millisecond (JavaScript rounds halves its own way)
            assert abs(float(said[1]) - figure["wall_ms"]) <= 0.051 and abs(float(said[2]) - figure["cpu_ms"]) <= 0.051
            shown += 1
        else:
            assert cost == "", (line, cost)
        _press(browser, Keys.ARROW_RIGHT)
    assert shown == len(by_line) > 0
    table = browser.find_element(By.CSS_SELECTOR, "table.resources").text
    assert all(entry["bot"] in table for entry in records[0]["seats"]), table


def test_a_seat_page_never_shows_another_seats_unshown_cards(
        browser: webdriver.Chrome, svara_played: tuple[Path, list[dict[str, Any]]]) -> None:
    pages, records = svara_played
    expected = ledger(records)
    for seat in range(len(records[0]["seats"])):
        browser.get(file_url(pages / f"play-{SVARA_SEED}.seat{seat}.html"))
        assert browser.find_element(By.ID, "format-version").text == "history format 3"
        # Every step's screen, read in one call (the organiser's test presses the real keys).
        screens = browser.execute_script(_WALK, len(expected))
        hidden: dict[int, list[str]] = {}
        for number, (want, screen) in enumerate(zip(expected, screens, strict=True), start=1):
            record = want["record"]
            if record["event"] == "deal":
                hidden = {int(other): cards for other, cards in record["hands"].items() if int(other) != seat}
            if record["event"] in ("showdown", "reveal"):
                for shown in record["hands"]:
                    hidden.pop(int(shown), None)
            assert screen["position"].startswith(f"Step {number} of ")
            assert [entry["balance"] for entry in screen["seats"]] == want["balances"]
            for other, cards in hidden.items():
                on_screen = screen["seats"][other]["text"]
                assert not any(card_text(card) in on_screen for card in cards), (seat, number, other, on_screen)
            if record["event"] == "deal" and str(seat) in record["hands"]:
                assert _cards(record["hands"][str(seat)]) in screen["seats"][seat]["text"]
        page = browser.find_element(By.TAG_NAME, "body").text
        assert records[0]["seed"] not in browser.find_element(By.CLASS_NAME, "replay-meta").text
        assert "unseen" in page


def test_the_viewer_works_by_keyboard_alone(browser: webdriver.Chrome,
                                            svara_played: tuple[Path, list[dict[str, Any]]]) -> None:
    pages, records = svara_played
    browser.get(file_url(pages / f"play-{SVARA_SEED}.html"))
    body = browser.find_element(By.TAG_NAME, "body")
    for _ in range(40):  # Tab along the page to the Next button, then press it
        body = browser.switch_to.active_element
        if body.get_attribute("data-go") == "next":
            break
        body.send_keys(Keys.TAB)
    assert browser.switch_to.active_element.get_attribute("data-go") == "next"
    browser.switch_to.active_element.send_keys(Keys.ENTER)
    browser.switch_to.active_element.send_keys(Keys.SPACE)
    assert _screen(browser)["position"].startswith("Step 3 of ")
    link = browser.find_element(By.CSS_SELECTOR, "table.pots a[data-step]:not([data-step='1'])")
    step = link.get_attribute("data-step")
    link.send_keys(Keys.ENTER)
    assert _screen(browser)["position"].startswith(f"Step {step} of ")
    chart = browser.find_element(By.CSS_SELECTOR, "figure.curve svg")
    assert chart.get_attribute("role") == "img"
    assert "final balances" in browser.find_element(By.ID, "curve-desc").get_attribute("textContent")


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_page_fits_a_desktop_and_a_phone(browser: webdriver.Chrome, svara_played: tuple[Path, list[dict[str, Any]]],
                                             size: tuple[int, int]) -> None:
    pages, _ = svara_played
    set_viewport(browser, size)
    try:
        for page in (f"play-{SVARA_SEED}.html", f"play-{SVARA_SEED}.seat1.html"):
            browser.get(file_url(pages / page, "step-20"))
            assert overflow(browser) == 0, page
            width = browser.execute_script("return document.documentElement.clientWidth;")
            for selector in ("[data-go='next']", "#seats li", "#step-text", "figure.curve svg"):
                for node in browser.find_elements(By.CSS_SELECTOR, selector):
                    box = node.rect
                    assert node.is_displayed() and box["x"] >= 0 and box["x"] + box["width"] <= width + 0.5, selector
            font = browser.execute_script(
                "return parseFloat(getComputedStyle(document.querySelector('#step-text')).fontSize);")
            assert font >= 14
    finally:
        set_viewport(browser, DESKTOP)


_STANDINGS = """
return [...document.querySelectorAll('#standings tbody tr')].map(row => {
    const cells = {};
    row.querySelectorAll('[data-field]').forEach(cell => { cells[cell.dataset.field] = cell.innerText.trim(); });
    return cells;
});
"""


def test_the_standings_page_on_screen_matches_standings_json(browser: webdriver.Chrome,
                                                              played: tuple[Path, str]) -> None:
    results, _ = played
    document = json.loads((results / "standings.json").read_text())
    for size in (DESKTOP, PHONE):
        set_viewport(browser, size)
        try:
            browser.get(file_url(results / "report" / "index.html"))
            shown = browser.execute_script(_STANDINGS)
            assert overflow(browser) == 0, size
        finally:
            set_viewport(browser, DESKTOP)
        assert [cells["name"] for cells in shown] == [row["name"] for row in document["standings"]]
        for position, (cells, row) in enumerate(zip(shown, document["standings"], strict=True), start=1):
            assert cells["position"] == str(position)
            assert (cells["rating"], cells["ci_low"], cells["ci_high"]) == tuple(
                f"{row[name]:.1f}" for name in ("rating", "ci_low", "ci_high"))
            assert (cells["rank_low"], cells["rank_high"], cells["sessions"], cells["wins"]) == tuple(
                str(row[name]) for name in ("rank_low", "rank_high", "sessions", "wins"))
            assert cells["chip_rate"] == chips_text(Fraction(row["chip_rate"]))
            assert cells["fault_count"] == str(row["faults"])
    assert browser.find_element(By.ID, "commitment").text == document["seed_commitment"]
    assert browser.find_element(By.ID, "secret").text == document["secret"]


def test_a_tournament_sessions_replay_shows_its_block_side_by_side(browser: webdriver.Chrome,
                                                                   played: tuple[Path, str]) -> None:
    results, _ = played
    report = results / "report"
    history = read_history(results / "histories" / "s0001.jsonl")
    browser.get(file_url(report / "sessions" / "s0001.html", "step-1"))
    first = ledger(history)[0]["record"]
    screen = _screen(browser)
    assert screen["text"].startswith("Pot 1:")
    bots = [entry["bot"] for entry in history[0]["seats"]]
    for seat, cards in first["hands"].items():
        assert _cards(cards) in screen["seats"][int(seat)]["text"]
    block = browser.find_element(By.CSS_SELECTOR, "table.block").text
    mirror = read_history(results / "histories" / "s0002.jsonl")
    assert mirror[0]["seed"] == history[0]["seed"] and "s0002" in block
    # The mirror deals the same cards to the other bot: both holdings appear in pot 1's row.
    mirror_bots = [entry["bot"] for entry in mirror[0]["seats"]]
    mirror_first = next(record for record in mirror if record["event"] == "deal")
    assert sorted(map(sorted, mirror_first["hands"].values())) == sorted(map(sorted, first["hands"].values()))
    assert mirror_bots != bots
    for seat, cards in first["hands"].items():
        assert f"{bots[int(seat)]} {_cards(cards)}" in block
    for seat, cards in mirror_first["hands"].items():
        assert f"{mirror_bots[int(seat)]} {_cards(cards)}" in block
    browser.find_element(By.LINK_TEXT, "replay pot 2 of s0002").click()
    assert browser.current_url.endswith("sessions/s0002.html#pot-2")
    second = next(number for number, step in enumerate(ledger(mirror), start=1)
                  if step["record"]["event"] == "deal" and step["record"]["pot"] == 2)
    assert _screen(browser)["position"].startswith(f"Step {second} of ")
    assert _screen(browser)["text"].startswith("Pot 2:")
