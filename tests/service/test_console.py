"""The organisers' console (`/organiser`) in a real headless Chromium against a real `seka-arena serve`:
every action an organiser needed curl for is a button over the same API, behind the organiser's sign-in
and the API's Origin check."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver

from arena.service import ServiceStore

from ..report._browser import open_chromium
from ._archives import sample_archive
from ._server import Server, bearer, post_archive, running, token, wait_for

CONFIG = """\
data: data
table: {pots: 1}
ladder: {enabled: false}
tournaments:
  - {name: nightly, cron: "0 2 29 2 *"}
"""


@dataclass(frozen=True)
class Console:
    server: Server
    client: httpx.Client
    organiser: str
    alice: str


@pytest.fixture(scope="module")
def console(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Console]:
    config = tmp_path_factory.mktemp("console") / "service.yaml"
    config.write_text(CONFIG)
    with running(config) as server, httpx.Client(base_url=server.url, timeout=60.0) as client:
        found = Console(server, client, token(config, "org", organiser=True), token(config, "alice"))
        assert post_archive(client, "perm", sample_archive("call"), found.alice).status_code == 201
        yield found


def _signed_in(browser: WebDriver, console: Console, value: str) -> None:
    browser.get(f"{console.server.url}/login")
    browser.find_element(By.NAME, "token").send_keys(value)
    browser.find_element(By.TAG_NAME, "form").submit()
    wait_for("the author's page", lambda: browser.current_url.endswith("/me"))


def _press(browser: WebDriver, css: str, *, confirm: bool = False) -> str:
    """Click a console button and return what the console said of the API's answer."""
    browser.execute_script("document.getElementById('console-result').textContent = ''")
    browser.find_element(By.CSS_SELECTOR, css).click()
    if confirm:
        wait_for("the confirmation", lambda: _alert(browser))
        browser.switch_to.alert.accept()
    return str(wait_for("the console's answer", lambda: browser.find_element(By.ID, "console-result").text))


def _alert(browser: WebDriver) -> bool:
    try:
        browser.switch_to.alert  # noqa: B018 (raises until the dialog is open)
    except Exception:  # noqa: BLE001 (selenium's NoAlertPresentException)
        return False
    return True


def _reloaded(browser: WebDriver, present: str) -> None:
    """Wait for the reload that follows a success (the answer's line is empty again) to show `present`."""
    def shown() -> bool:
        try:
            return (browser.find_element(By.ID, "console-result").text == ""
                    and present in browser.find_element(By.TAG_NAME, "main").text)
        except Exception:  # noqa: BLE001 (the page is being replaced)
            return False

    wait_for(f"the page to show {present!r}", shown)


def test_every_organiser_action_is_a_button_over_the_api(console: Console) -> None:
    with open_chromium() as browser:
        _signed_in(browser, console, console.organiser)
        browser.get(f"{console.server.url}/organiser")
        assert "Organisers' console" in browser.title
        assert "in the service's file" in browser.find_element(By.ID, "schedule-nightly").text  # not deletable here

        for name in ("weekly", "monthly"):
            browser.find_element(By.CSS_SELECTOR, "#new-schedule input[name=name]").send_keys(name)
            browser.find_element(By.CSS_SELECTOR, "#new-schedule input[name=cron]").send_keys("0 3 * * 1")
            assert _press(browser, "#new-schedule button").startswith("POST /api/schedules: 201")
            _reloaded(browser, name)
        assert _press(browser, "#schedule-weekly form[data-url$='/run'] button").startswith(
            "POST /api/schedules/weekly/run: 201")
        _reloaded(browser, "weekly")
        runs = console.client.get("/api/tournaments").json()["runs"]
        assert [run["schedule"] for run in runs] == ["weekly"]
        assert _press(browser, "#schedule-monthly form[data-method=DELETE] button", confirm=True) == (
            "DELETE /api/schedules/monthly: 204")
        _reloaded(browser, "weekly")
        schedules = console.client.get("/api/tournaments").json()["schedules"]
        assert sorted(schedule["name"] for schedule in schedules) == ["nightly", "weekly"]

        assert _press(browser, "#freeze").startswith("POST /api/freeze: 200")
        _reloaded(browser, "submissions are frozen by the organisers")
        assert "Unfreeze" in browser.find_element(By.ID, "freeze").text
        assert _press(browser, "#freeze").startswith("POST /api/freeze: 200")
        _reloaded(browser, "Open: authors may submit.")

        browser.find_element(By.CSS_SELECTOR, "#bot-perm input[name=reason]").send_keys("plays for a partner")
        assert _press(browser, "#bot-perm button", confirm=True).startswith("POST /api/bots/perm/disqualify: 200")
        _reloaded(browser, "disqualified: plays for a partner")
        assert console.client.get("/api/bots").json()[0]["disqualified"] == "plays for a partner"
        assert _press(browser, "#bot-perm button").startswith("POST /api/bots/perm/reinstate: 200")
        _reloaded(browser, "playing")
        assert console.client.get("/api/bots").json()[0]["disqualified"] is None

        # A challenge that failed (made in the served store: this service plays no ladder, so it stays put once
        # resumed) is put back in play from its row.
        failed = _failed_challenge(console)
        browser.get(f"{console.server.url}/organiser")
        assert "the bots' own failure" in browser.find_element(By.ID, f"challenge-{failed}").text
        assert _press(browser, f"#challenge-{failed} button").startswith(f"POST /api/challenges/{failed}/resume: 200")
        _reloaded(browser, "None: no challenge ended failed.")
        shown = console.client.get(f"/api/challenges/{failed}", headers=bearer(console.organiser)).json()
        assert shown["status"] == "running" and [entry["resumed_by"] for entry in shown["resumes"]] == ["org"]

        tokens = console.client.get("/api/tokens", headers=bearer(console.organiser)).json()
        alice = next(entry["id"] for entry in tokens if entry["author"] == "alice")
        assert console.client.get("/api/tokens", headers=bearer(console.alice)).status_code == 403
        assert _press(browser, f"#token-{alice} button", confirm=True).startswith(
            f"POST /api/tokens/{alice}/revoke: 200")
        _reloaded(browser, "revoked")
        assert console.client.get("/api/bots/perm/versions/latest", headers=bearer(console.alice)).status_code == 401


def _failed_challenge(console: Console) -> int:
    """A challenge of alice's `perm` against a sample bot, failed by its bots' own doing, in the served store."""
    store = ServiceStore.open(Path(str(console.server.process.args[2])).parent / "data" / "service.sqlite")
    try:
        version = store.version("perm", "1")
        assert version is not None
        challenge = store.create_challenge("alice", [str(version.id), "sample:call"], blocks=1, secret="0" * 32,
                                           seatings=lambda block: [[str(version.id), "sample:call"]],
                                           seed=lambda block: "1")
        store.mark_challenge_running(f"C{challenge.id:06d}-1-1")
        store.record_challenge_failure(f"C{challenge.id:06d}-1-1", "perm.v1 exited before it was ready: the bots' "
                                       "own failure", final=True, most=3)
        return challenge.id
    finally:
        store.close()


def test_the_console_is_for_organisers_only(console: Console) -> None:
    anonymous = console.client.get("/organiser", follow_redirects=False)
    assert anonymous.status_code == 303 and anonymous.headers["location"] == "/login"
    author = token(Path(str(console.server.process.args[2])), "bob")
    signed = httpx.Client(base_url=console.server.url, cookies={"seka_token": author})
    assert signed.get("/organiser").status_code == 403
    assert "Console" not in signed.get("/").text
    organiser = httpx.Client(base_url=console.server.url, cookies={"seka_token": console.organiser})
    assert organiser.get("/organiser").status_code == 200 and 'href="/organiser">Console' in organiser.get("/").text
    # The console's API calls carry the page's Origin; a cookie without it changes nothing.
    assert organiser.post("/api/freeze", json={"frozen": True}).status_code == 403
    assert organiser.post("/api/freeze", json={"frozen": True},
                          headers={"Origin": "http://elsewhere.example"}).status_code == 403
    assert console.client.get("/api/tournaments").json() is not None
