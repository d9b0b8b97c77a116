"""Live sessions on a real `seka-arena serve`: a ladder session and a scheduled tournament's, in play, listed as
now playing and watched through server-sent events in the spectator's view (no folded or unseen hand, no seed),
in a real Chromium too; the feed's limits per address."""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from arena.history import read_history
from arena.report import SPECTATOR, replay_data

from ..report._browser import open_chromium
from ._archives import sample_archive, slow_archive
from ._server import CUP, bearer, running, served, token, wait_for

LADDER = """\
data: data
isolation: none
profile: %s
table: {pots: 3}
ladder: {placement_blocks: 1, random_share: 0.0}
web: {events_total: 4, events_per_client: 1}
"""
_LINK = re.compile(r'href="(/live/[^"]+)"')
# The watched sessions' slow bot: long enough a decision that a session found in play on a loaded machine still
# has steps to come (at 0.2 s one was seen whole in its first update), and folding every hand below 28 that is
# bet against, so that a session has a folded hand to keep from the spectator whatever the drawn secret deals
# (with its usual thresholds 3 pots went by without a fold now and then, and the test had nothing to check).
SLOW, FOLDS_BELOW = 0.5, 99


def _events(client: httpx.Client, path: str) -> Iterator[tuple[str, str]]:
    """The feed's events, (name, data), as they come."""
    with client.stream("GET", path, timeout=httpx.Timeout(60, read=60)) as response:
        assert response.status_code == 200, response.read()
        assert response.headers["content-type"].startswith("text/event-stream")
        name, data = "message", ""
        for line in response.iter_lines():
            if line.startswith("event: "):
                name = line.removeprefix("event: ")
            elif line.startswith("data: "):
                data = line.removeprefix("data: ")
            elif not line and data:
                yield name, data
                name, data = "message", ""


def _hands(view: dict[str, Any]) -> set[tuple[int, tuple[str, ...]]]:
    """Every (seat, cards) a view shows."""
    return {(seat, tuple(hand["cards"])) for hands in view["hand_sets"] for seat, hand in enumerate(hands)
            if hand is not None and hand["cards"] is not None}


def _watch(client: httpx.Client, link: str, history: Path, seed: str) -> list[dict[str, Any]]:
    """Follow a live session's feed to its end; check each view is the spectator's, growing, and the last
    the stored history's. The views received."""
    views: list[dict[str, Any]] = []
    ended = None
    for name, data in _events(client, link + "/events"):
        assert seed not in data, "the live session's seed was sent"
        if name == "end":
            ended = json.loads(data)
            break
        assert name == "update", (name, data)
        views.append(json.loads(data))
    assert ended is not None
    assert len(views) >= 2, "the session was not shown as it was played"
    lengths = [len(view["steps"]) for view in views]
    assert lengths == sorted(lengths) and lengths[0] < lengths[-1], lengths
    records = read_history(history)
    assert ended == json.loads(json.dumps(replay_data(records, seat=SPECTATOR)))
    # A hand folded or never shown is in the organiser's view only, and never in what was sent.
    hidden = _hands(replay_data(records)) - _hands(ended)
    assert hidden, "no hand was folded or unseen in this session: nothing was tested"
    for view in [*views, ended]:
        assert view["view"] == SPECTATOR and view["seed"] is None
        assert not _hands(view) & hidden, "a hand the spectator never saw was sent"
    return views


def _ladder_seed(data: Path, session: str) -> str:
    with sqlite3.connect(f"file:{data / 'service.sqlite'}?mode=ro", uri=True) as connection:
        (seed,) = connection.execute("SELECT seed FROM ladder_sessions WHERE id = ?", (session,)).fetchone()
    return str(seed)


@pytest.mark.slow
@pytest.mark.parametrize("rules_profile", ["georgian", "seka36"])
def test_a_ladder_session_in_play_is_listed_and_watched_in_the_spectators_view_to_its_end(
        tmp_path: Path, rules_profile: str) -> None:
    config = served(tmp_path, LADDER, rules_profile,
                    {"call": sample_archive("call"), "slow": slow_archive(SLOW, medium=FOLDS_BELOW)})
    with running(config) as server, httpx.Client(base_url=server.url, timeout=60) as client:
        link = wait_for("a session listed as now playing", lambda: _LINK.search(client.get("/").text),
                        output=server.output).group(1)
        assert link.startswith("/live/ladder/L")
        session = link.rsplit("/", 1)[1]
        page = client.get(link)
        assert page.status_code == 200 and 'data-live="' + link + '/events"' in page.text
        assert client.get("/static/report/replay.js").status_code == 200
        assert client.get("/live/ladder/L999999-1").status_code == 404
        assert client.get("/live/ladder/..%2fservice.sqlite/events").status_code == 404
        _watch(client, link, tmp_path / "data" / "ladder" / "histories" / f"{session}.jsonl",
               _ladder_seed(tmp_path / "data", session))


def test_the_feeds_are_bounded_per_address(tmp_path: Path) -> None:
    config = served(tmp_path, LADDER, "georgian", {"call": sample_archive("call"), "slow": slow_archive(0.1)})
    with running(config) as server, httpx.Client(base_url=server.url, timeout=60) as client:
        link = wait_for("a session listed as now playing", lambda: _LINK.search(client.get("/").text),
                        output=server.output).group(1)
        with client.stream("GET", link + "/events") as first:
            assert first.status_code == 200
            second = client.get(link + "/events")
            assert second.status_code == 429 and "at most 1" in second.text
            assert second.headers["retry-after"]


@pytest.mark.slow
@pytest.mark.parametrize("rules_profile", ["georgian", "seka36"])
def test_a_scheduled_tournaments_session_in_play_is_linked_from_its_page_and_watched_live(
        tmp_path: Path, rules_profile: str) -> None:
    config = served(tmp_path, CUP, rules_profile,
                    {"call": sample_archive("call"), "slow": slow_archive(SLOW, medium=FOLDS_BELOW)})
    organiser = token(config, "org", organiser=True)
    with running(config) as server, httpx.Client(base_url=server.url, timeout=60) as client:
        fired = client.post("/api/schedules/cup/run", headers=bearer(organiser))
        assert fired.status_code == 201, fired.text
        name = fired.json()["name"]
        link = wait_for("a session linked from the tournament's page", lambda: _LINK.search(
            client.get(f"/tournaments/{name}").text), output=server.output).group(1)
        assert link.startswith(f"/live/tournaments/{name}/s")
        assert link in client.get("/").text  # the front page's list has it too
        session = link.rsplit("/", 1)[1]
        results = tmp_path / "data" / "tournaments" / name / "results" / name
        secret = json.loads(json.dumps(__import__("yaml").safe_load(
            (tmp_path / "data" / "tournaments" / name / "tournament.yaml").read_text())))["seed"]
        _watch(client, link, results / "histories" / f"{session}.jsonl", secret)


def test_the_viewer_shows_a_live_session_growing_in_chromium(tmp_path: Path) -> None:
    config = served(tmp_path, LADDER, "georgian", {"call": sample_archive("call"), "slow": slow_archive(0.1)})
    with running(config) as server, open_chromium() as browser:
        browser.get(server.url + "/")
        wait_for("a session listed as now playing", lambda: browser.refresh() or browser.find_elements(
            By.CSS_SELECTOR, "#now-playing a"), output=server.output)[0].click()
        wait = WebDriverWait(browser, 60, poll_frequency=0.1)
        wait.until(lambda driver: driver.find_element(By.ID, "live-status").text == "playing: live")
        first = int(browser.find_element(By.ID, "step-count").text)
        assert first > 0 and browser.find_element(By.ID, "step-text").text
        assert browser.find_elements(By.CSS_SELECTOR, "#seats li.seat")
        wait.until(lambda driver: int(driver.find_element(By.ID, "step-count").text) > first)
        # It follows the play: the step shown is the last one so far.
        position = browser.find_element(By.ID, "position").text
        assert re.match(r"Step (\d+) of \1\b", position), position
        wait.until(lambda driver: driver.find_element(By.ID, "live-status").text.startswith("session over"))
        errors = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"
                  and "favicon.ico" not in entry["message"]]
        assert not errors, errors
