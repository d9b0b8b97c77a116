"""The organisers' collusion reports on one real `seka-arena serve`: the ladder's, and a scheduled run's on
every profile, with a planted soft-playing pair among honest sample bots; organisers only; the evidence
opens the replay viewer at the decision cited (test_collusion_reports.py: the tests needing a serve of
their own)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from selenium.webdriver.common.by import By

from arena.integrity import FLAGGING, TESTS
from arena.service import Scheduler, fire_now, load_service_config, open_service

from ..report._browser import PHONE, open_chromium, overflow, set_viewport
from ._archives import MANIFEST, ROOT, file, sample_archive, tar_gz
from ._collusion import accepted, cookie, ready, refused_to_others, service_file
from ._server import Server, bearer, running, token, wait_for

# Real serves and Dask clusters: minutes in all, so CI runs them and the quick loop (`-m "not slow"`) does not.
pytestmark = pytest.mark.slow

_PROFILES = [("georgian", {"dark": "true"}, True), ("georgian", {"dark": "true"}, False),
             ("classic", {"open": "multiway", "dark": "true"}, False), ("seka36", {}, False), ("svara32", {}, False),
             ("seka21", {}, False)]
_PLANTED_POTS = 200
"""Pots a session of the run where the planted pair must be flagged (georgian): over a run's 12 sessions,
soft play's z was 3.2 to 4.7 at 80 pots (Holm's bar for 12 tests at 0.01 is about 3.2), so about 1.6
times that at 200. Every other run, and the ladder, plays 24 pots a session: no honest pair may be flagged
(the planted one may)."""
# The integrity tests' soft bot as a submission: the sample threshold bot beside it, and its partner
# named as a tournament names it (`friend`) or as the ladder does (`friend.v1`).
_SOFT = (ROOT / "tests" / "integrity" / "soft_bot.py").read_text()
_PLANTED = _SOFT.replace('parents[2] / "sample_bots"', "parent").replace(
    "turn.bots[seat] == self.partner", 'turn.bots[seat].split(".v")[0] == self.partner')
assert _PLANTED.count("parent))") == 1 and ".split(" in _PLANTED
_VIEWER_DATA = re.compile(r'<script type="application/json" id="replay-data">(.*?)</script>', re.S)


def _planted(partner: str) -> bytes:
    manifest = MANIFEST.replace(b"bot.py", f"bot.py --partner {partner}".encode())
    return tar_gz([file("bot.py", _PLANTED.encode()), file("bot.yaml", manifest),
                   file("threshold_bot.py", (ROOT / "sample_bots" / "threshold_bot.py").read_bytes())])


def _pairs(document: dict[str, Any]) -> set[frozenset[str]]:
    return {frozenset((test["giver"].split(".v")[0], test["receiver"].split(".v")[0]))
            for test in document["flagged"]}


class Served:
    """One `serve` for the module: its ladder on (the service's profile: georgian), and one scheduled run
    per case of `_PROFILES`, each planned beforehand with its own profile (a run plays the tournament file
    stored with it), which the server plays on start."""

    def __init__(self, server: Server, client: httpx.Client, organiser: str, author: str,
                 runs: dict[str, str]) -> None:
        self.server = server
        self.client = client
        self.organiser = organiser
        self.author = author
        self.runs = runs
        """Each case's run, by its id."""


def _case(name: str, options: dict[str, str], planted: bool) -> str:
    return f"{name}-{'-'.join(f'{k}={v}' for k, v in options.items()) or 'default'}{'-planted' if planted else ''}"


_CASES = [_case(*case) for case in _PROFILES]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    folder = tmp_path_factory.mktemp("collusion")
    accepted(folder / "data", {"soft": ("ann", _planted("friend")), "friend": ("ben", _planted("soft")),
                                "threshold": ("carol", sample_archive("threshold")),
                                "random": ("dave", sample_archive("random"))})
    runs = {}
    for number, ((name, options, planted), case) in enumerate(zip(_PROFILES, _CASES, strict=True)):
        # The run's tournament file as the service of that profile writes it, stored with the run.
        config = service_file(folder / f"plan{number}.yaml", name, options, ladder=False, cup=f"cup{number}",
                               pots=_PLANTED_POTS if planted else 24)
        service = open_service(load_service_config(config))
        try:
            scheduler = Scheduler(service)  # stores the file's schedule
            run = fire_now(service.store, f"cup{number}")
            assert run is not None
            service.store.start_run(run.id, scheduler.definition(run))
            runs[case] = run.name
        finally:
            service.store.close()
    config = service_file(folder / "service.yaml", "georgian", {"dark": "true"}, pots=24, ladder=True, cup="cup")
    organiser, ann = token(config, "org", organiser=True), token(config, "ann")
    with running(config) as server, httpx.Client(base_url=server.url, timeout=60.0) as client:
        yield Served(server, client, organiser, ann, runs)
    assert server.process.returncode == 0, server.output()


def _finished_report(served: Served, case: str) -> dict[str, Any]:
    """The case's run played to its end, and its collusion report once made."""
    client, run = served.client, served.runs[case]

    def finished() -> bool:
        runs = {row["name"]: row["status"] for row in client.get("/api/tournaments").json()["runs"]}
        assert runs[run] != "failed", client.get("/api/tournaments", headers=bearer(served.organiser)).text
        return runs[run] == "finished"

    wait_for(f"the scheduled run {run}", finished, timeout=480, output=served.server.output)
    cup: dict[str, Any] = wait_for("the run's collusion report", lambda: ready(
        client, f"/api/collusion/{run}", served.organiser), output=served.server.output)
    return cup


def _cited(cup: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any], int]:
    """The first test with evidence (a flagged one first), the decision it cites first, and its line."""
    test = (cup["flagged"] or [test for test in cup["tests"] if test["evidence"]])[0]
    cited = test["evidence"][0]
    return test, cited, cited["event"] + 1  # the history's line: the viewer's steps count records from 1


def _viewer_steps(served: Served, cited: dict[str, Any]) -> list[dict[str, Any]]:
    viewer = served.client.get(cited["viewer"], headers=bearer(served.organiser), follow_redirects=True)
    assert viewer.status_code == 200 and "/replays/full/" in str(viewer.url), viewer.url
    match = _VIEWER_DATA.search(viewer.text)
    assert match is not None
    steps: list[dict[str, Any]] = json.loads(match.group(1))["steps"]
    return steps


@pytest.mark.parametrize(("name", "options", "planted"), _PROFILES, ids=_CASES)
def test_the_organisers_see_a_runs_collusion_report_on_every_profile_with_the_planted_pair_flagged(
        served: Served, name: str, options: dict[str, str], planted: bool) -> None:
    run = served.runs[_case(name, options, planted)]
    client, organiser = served.client, served.organiser
    cup = _finished_report(served, _case(name, options, planted))
    # Four bots, every pair heads-up in a duplicate block: 6 pairs, every test each way; soft and friend
    # fold their medium and strong hands to each other, and no other pair is flagged.
    assert cup["state"] == "ready" and cup["scope"] == "tournament" and cup["tournament"] == run
    assert cup["sessions"] == 12 and cup["pairs"] == 6 and cup["tests_run"] == 12 * len(TESTS)
    assert _pairs(cup) == {frozenset({"soft", "friend"})} if planted else _pairs(cup) <= {
        frozenset({"soft", "friend"})}, cup["flagged"]
    test, cited, line = _cited(cup)
    assert cited["viewer"] == f"/sessions/{cited['session']}/viewer?tournament={run}#record-{line}"
    steps = _viewer_steps(served, cited)
    # A flagging test cites a decision, the flow tests a pot's result.
    assert any(step["record"] == line and (step["kind"] == "action") == (test["test"] in FLAGGING)
               for step in steps), (test, cited)
    # Played on its own profile (the service's is georgian with its dark option).
    history = client.get(f"/api/sessions/{cited['session']}/history?tournament={run}", headers=bearer(organiser))
    assert history.status_code == 200, history.text
    start = json.loads(history.text.splitlines()[0])
    assert start["profile"] == name and all(start["options"][key] == value for key, value in options.items())

    page = client.get(f"/organiser/collusion/{run}", headers=cookie(organiser))
    assert page.status_code == 200 and 'data-state="ready"' in page.text
    assert f'href="/sessions/{cited["session"]}/viewer?tournament={run}#record-{line}"' in page.text
    assert "soft play" in page.text and ('class="flagged"' in page.text) == bool(cup["flagged"])
    # The flow tests never flag; each is Holm-adjusted over the pairs on its own, shown beside "evidence only".
    assert all(test["p_holm"] is not None and test["flags"] == (test["test"] in FLAGGING) for test in cup["tests"])
    flow = next(test for test in cup["tests"] if not test["flags"])
    assert f'{flow["p_holm"]:.2g} <span class="muted">evidence only</span>' in page.text
    refused_to_others(client, [f"/organiser/collusion/{run}"], served.author)
    for reader in ({}, cookie(served.author)):  # the public pages never point at it
        for path in ("/tournaments", f"/tournaments/{run}"):
            assert "/organiser/collusion" not in client.get(path, headers=reader).text, (path, reader)


def test_the_organisers_see_the_ladders_collusion_report_citing_its_sessions(served: Served) -> None:
    client, organiser = served.client, served.organiser

    def cites() -> dict[str, Any] | None:
        # Once bots have met more than one opponent each, the tests have evidence to cite.
        document = ready(client, "/api/collusion", organiser, current=False)
        return document if document and any(test["evidence"] for test in document["tests"]) else None

    ladder = wait_for("the ladder's collusion report citing evidence", cites, timeout=480,
                      output=served.server.output)
    assert ladder["state"] == "ready" and ladder["scope"] == "ladder" and ladder["tournament"] is None
    assert ladder["tests_run"] == 2 * len(TESTS) * ladder["pairs"] > 0
    ladder_ids = {row["id"] for row in client.get("/api/sessions?limit=500").json()["sessions"]
                  if row["kind"] == "ladder"}
    cited_ids = {item["session"] for test in ladder["tests"] for item in test["evidence"]}
    assert cited_ids and cited_ids <= ladder_ids
    # No honest pair is flagged on the ladder (the planted one may or may not be yet: the ladder
    # chooses who meets whom).
    assert _pairs(ladder) <= {frozenset({"soft", "friend"})}, ladder["flagged"]
    page = client.get("/organiser/collusion", headers=cookie(organiser))
    assert page.status_code == 200 and 'data-state="ready"' in page.text
    refused_to_others(client, ["/organiser/collusion"], served.author)
    for reader in ({}, cookie(served.author)):  # the public pages never point at it
        for path in ("/", "/tournaments", "/organiser/collusion"):
            assert "/organiser/collusion" not in client.get(path, headers=reader).text, (path, reader)


def test_the_reports_fit_a_phone_and_open_the_viewer_at_the_decision_cited(served: Served) -> None:
    reports = {case: _finished_report(served, case) for case in _CASES}
    with open_chromium() as browser:
        browser.get(f"{served.server.url}/login")
        browser.find_element(By.NAME, "token").send_keys(served.organiser)
        browser.find_element(By.TAG_NAME, "form").submit()
        wait_for("signed in", lambda: browser.current_url.endswith("/me"))
        set_viewport(browser, PHONE)
        browser.get(served.server.url + "/organiser/collusion")
        assert overflow(browser) == 0
        for case, cup in reports.items():
            run = served.runs[case]
            browser.get(f"{served.server.url}/organiser/collusion/{run}")
            assert overflow(browser) == 0, run
            _, cited, line = _cited(cup)
            steps = _viewer_steps(served, cited)
            table = "#flags" if cup["flagged"] else "#pairs"  # where the cited decision is listed first
            browser.find_element(By.CSS_SELECTOR, f"{table} details summary").click()
            browser.find_element(By.CSS_SELECTOR, f"{table} ul.evidence a").click()
            wait_for("the viewer", lambda: "/replays/full/" in browser.current_url)
            wanted = next(i for i, step in enumerate(steps) if step["record"] == line) + 1
            shown = wait_for("the decision's step", lambda wanted=wanted: browser.execute_script(
                "return document.getElementById('step-number').value") == str(wanted) or None, timeout=10)
            assert shown and browser.current_url.endswith(f"#record-{line}"), run


