"""The organisers' collusion reports on a real `seka-arena serve`: the ladder's and a scheduled run's, on
every profile, with a planted soft-playing pair among honest sample bots; organisers only; the evidence
opens the replay viewer at the decision cited; a store with nothing played says so."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from selenium.webdriver.common.by import By

from arena.engine import profile
from arena.integrity import FLAGGING, TESTS
from arena.isolation import Isolation
from arena.service import Author, ServiceConfig, open_service
from arena.service._collusion import MEMORY_BYTES

from ..report._browser import PHONE, open_chromium, overflow, set_viewport
from ._archives import MANIFEST, ROOT, file, sample_archive, tar_gz
from ._server import bearer, running, token, wait_for

_PROFILES = [("georgian", {"dark": "true"}, True), ("georgian", {"dark": "true"}, False),
             ("classic", {"open": "multiway", "dark": "true"}, False), ("seka36", {}, False), ("svara32", {}, False),
             ("seka21", {}, False)]
_PLANTED_POTS = 200
"""Pots a session on the profile where the planted pair must be flagged (georgian): over a run's 12
sessions, soft play's z was 3.2 to 4.7 at 80 pots (Holm's bar for 12 tests at 0.01 is about 3.2), so
about 1.6 times that at 200; with its ladder off (its 200-pot sessions would double the test's time), so
the ladder's report there is the empty one. Every profile's other case plays 24 pots a session, ladder on:
no honest pair may be flagged (the planted one may)."""
CONFIG = """\
data: data
isolation: none
profile: %(profile)s
table: {pots: %(pots)d%(options)s}
ladder: {enabled: %(ladder)s, placement_blocks: 1, random_share: 0.0}
tournaments:
  - {name: cup, cron: "0 2 * * *", table_size: 2}
"""
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


def _accepted(data: Path, bots: dict[str, tuple[str, bytes]]) -> None:
    # Accepted beforehand (the check is not under test), each of its own author.
    service = open_service(ServiceConfig(data=data, isolation=Isolation.NONE, rules=profile("georgian")))
    for name, (author, archive) in bots.items():
        version = service.registry.submit(Author(author, organiser=False), name, archive)
        service.store.finish_check(version.id, accepted=True, report="not checked: a collusion page test", stderr="")
    service.store.close()


def _cookie(value: str) -> dict[str, str]:
    return {"Cookie": f"seka_token={value}"}


def _ready(client: httpx.Client, path: str, organiser: str, *, current: bool = True) -> dict[str, Any] | None:
    """The report once made (and, when `current`, as of its source's state now: the ladder's goes on)."""
    answer = client.get(path, headers=bearer(organiser))
    assert answer.status_code == 200, answer.text
    document: dict[str, Any] = answer.json()
    return document if document["state"] != "being made" and (document["current"] or not current) else None


def _pairs(document: dict[str, Any]) -> set[frozenset[str]]:
    return {frozenset((test["giver"].split(".v")[0], test["receiver"].split(".v")[0]))
            for test in document["flagged"]}


def _refused_to_others(client: httpx.Client, paths: list[str], author: str) -> None:
    for path in paths:
        api = path.replace("/organiser/collusion", "/api/collusion")
        assert client.get(api).status_code == 401, api
        assert client.get(api, headers=bearer(author)).status_code == 403, api
        visitor = client.get(path)
        assert visitor.status_code == 303 and visitor.headers["location"] == "/login", path
        assert client.get(path, headers=_cookie(author)).status_code == 403, path


@pytest.mark.parametrize(("name", "options", "planted"), _PROFILES,
                         ids=[f"{name}-{'-'.join(f'{k}={v}' for k, v in options.items()) or 'default'}"
                              f"{'-planted' if planted else ''}" for name, options, planted in _PROFILES])
def test_the_organisers_see_the_ladders_and_a_runs_collusion_report_with_the_planted_pair_flagged(
        tmp_path: Path, name: str, options: dict[str, str], planted: bool) -> None:
    _accepted(tmp_path / "data", {"soft": ("ann", _planted("friend")), "friend": ("ben", _planted("soft")),
                                  "threshold": ("carol", sample_archive("threshold")),
                                  "random": ("dave", sample_archive("random"))})
    config = tmp_path / "service.yaml"
    extra = "".join(f", {key}: {value}" for key, value in options.items())
    config.write_text(CONFIG % {"profile": name, "pots": _PLANTED_POTS if planted else 24, "options": extra,
                                "ladder": "false" if planted else "true"})
    organiser, ann = token(config, "org", organiser=True), token(config, "ann")
    with running(config) as server, httpx.Client(base_url=server.url, timeout=60.0) as client:
        fired = client.post("/api/schedules/cup/run", headers=bearer(organiser))
        assert fired.status_code == 201, fired.text
        run = fired.json()["name"]

        def finished() -> bool:
            runs = {row["name"]: row["status"] for row in client.get("/api/tournaments").json()["runs"]}
            assert runs[run] != "failed", client.get("/api/tournaments", headers=bearer(organiser)).text
            return runs[run] == "finished"

        wait_for("the scheduled run", finished, timeout=240, output=server.output)
        cup = wait_for("the run's collusion report", lambda: _ready(client, f"/api/collusion/{run}", organiser),
                       output=server.output)
        # Four bots, every pair heads-up in a duplicate block: 6 pairs, every test each way; soft and friend
        # fold their medium and strong hands to each other, and no other pair is flagged.
        assert cup["state"] == "ready" and cup["scope"] == "tournament" and cup["tournament"] == run
        assert cup["sessions"] == 12 and cup["pairs"] == 6 and cup["tests_run"] == 12 * len(TESTS)
        assert _pairs(cup) == {frozenset({"soft", "friend"})} if planted else _pairs(cup) <= {
            frozenset({"soft", "friend"})}, cup["flagged"]
        test = (cup["flagged"] or [test for test in cup["tests"] if test["evidence"]])[0]
        cited = test["evidence"][0]
        line = cited["event"] + 1  # the history's line: the viewer's steps count records from 1
        assert cited["viewer"] == f"/sessions/{cited['session']}/viewer?tournament={run}#record-{line}"
        viewer = client.get(cited["viewer"], headers=bearer(organiser), follow_redirects=True)
        assert viewer.status_code == 200 and "/replays/full/" in str(viewer.url), viewer.url
        match = _VIEWER_DATA.search(viewer.text)
        assert match is not None
        steps = json.loads(match.group(1))["steps"]
        # A flagging test cites a decision, the flow tests a pot's result.
        assert any(step["record"] == line and (step["kind"] == "action") == (test["test"] in FLAGGING)
                   for step in steps), (test, cited)

        def cites() -> dict[str, Any] | None:
            # Once bots have met more than one opponent each, the tests have evidence to cite.
            document = _ready(client, "/api/collusion", organiser, current=False)
            return document if document and any(test["evidence"] for test in document["tests"]) else None

        if planted:  # its ladder is off: nothing played, said so
            ladder = _ready(client, "/api/collusion", organiser)
            assert ladder is not None and ladder["state"] == "empty" and ladder["sessions"] == 0
        else:
            ladder = wait_for("the ladder's collusion report citing evidence", cites, timeout=240,
                              output=server.output)
            assert ladder["state"] == "ready" and ladder["scope"] == "ladder" and ladder["tournament"] is None
            assert ladder["tests_run"] == 2 * len(TESTS) * ladder["pairs"] > 0
            ladder_ids = {row["id"] for row in client.get("/api/sessions?limit=500").json()["sessions"]
                          if row["kind"] == "ladder"}
            cited_ids = {item["session"] for test in ladder["tests"] for item in test["evidence"]}
            assert cited_ids and cited_ids <= ladder_ids
            # No honest pair is flagged on the ladder (the planted pair may or may not be yet: the ladder
            # chooses who meets whom).
            assert _pairs(ladder) <= {frozenset({"soft", "friend"})}, ladder["flagged"]

        page = client.get(f"/organiser/collusion/{run}", headers=_cookie(organiser))
        assert page.status_code == 200 and 'data-state="ready"' in page.text
        assert f'href="/sessions/{cited["session"]}/viewer?tournament={run}#record-{line}"' in page.text
        assert "soft play" in page.text and ('class="flagged"' in page.text) == bool(cup["flagged"])
        _refused_to_others(client, ["/organiser/collusion", f"/organiser/collusion/{run}"], ann)
        for reader in ({}, _cookie(ann)):  # the public pages never point at it
            for path in ("/", "/tournaments", f"/tournaments/{run}", "/organiser/collusion"):
                assert "/organiser/collusion" not in client.get(path, headers=reader).text, (path, reader)

        with open_chromium() as browser:
            browser.get(f"{server.url}/login")
            browser.find_element(By.NAME, "token").send_keys(organiser)
            browser.find_element(By.TAG_NAME, "form").submit()
            wait_for("signed in", lambda: browser.current_url.endswith("/me"))
            set_viewport(browser, PHONE)
            for path in ("/organiser/collusion", f"/organiser/collusion/{run}"):
                browser.get(server.url + path)
                assert overflow(browser) == 0, path
            table = "#flags" if cup["flagged"] else "#pairs"  # where the cited decision is listed first
            browser.find_element(By.CSS_SELECTOR, f"{table} details summary").click()
            browser.find_element(By.CSS_SELECTOR, f"{table} ul.evidence a").click()
            wait_for("the viewer", lambda: "/replays/full/" in browser.current_url)
            wanted = next(i for i, step in enumerate(steps) if step["record"] == line) + 1
            shown = wait_for("the decision's step", lambda: browser.execute_script(
                "return document.getElementById('step-number').value") == str(wanted) or None, timeout=10)
            assert shown and browser.current_url.endswith(f"#record-{line}")
    assert server.process.returncode == 0, server.output()


def test_nothing_played_reads_as_an_empty_report_and_names_no_run_are_refused(tmp_path: Path) -> None:
    _accepted(tmp_path / "data", {"random": ("dave", sample_archive("random"))})  # one author: no ladder table
    config = tmp_path / "service.yaml"
    config.write_text(CONFIG % {"profile": "georgian", "pots": 1, "options": "", "ladder": "true"})
    organiser, dave = token(config, "org", organiser=True), token(config, "dave")
    with running(config) as server, httpx.Client(base_url=server.url, timeout=60.0) as client:
        document = client.get("/api/collusion", headers=bearer(organiser)).json()
        assert document["state"] == "empty" and document["current"] and document["sessions"] == 0
        page = client.get("/organiser/collusion", headers=_cookie(organiser))
        assert page.status_code == 200 and "No finished ladder session yet" in page.text
        for hostile in ("nosuchrun", "%2e%2e%2f%2e%2e%2fservice.sqlite", "x" * 5000, "a%00b", "%C3%A9t%C3%A9"):
            for path in (f"/api/collusion/{hostile}", f"/organiser/collusion/{hostile}"):
                answer = client.get(path, headers=bearer(organiser) if "/api/" in path else _cookie(organiser))
                assert answer.status_code == 404, (path, answer.status_code)
                assert "Traceback" not in answer.text
        _refused_to_others(client, ["/organiser/collusion"], dave)
    assert server.process.returncode == 0, server.output()


def test_the_report_worker_runs_under_its_memory_cap_and_answers_a_bad_request_with_a_problem(tmp_path: Path) -> None:
    _accepted(tmp_path / "data", {"random": ("dave", sample_archive("random"))})
    worker = subprocess.Popen([sys.executable, "-m", "arena.service._collusion_worker",
                               str(tmp_path / "data" / "service.sqlite")],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert worker.stdin is not None and worker.stdout is not None
    try:
        for request in ({"ladder": str(tmp_path / "data" / "ladder")}, {"results": str(tmp_path / "missing")}):
            worker.stdin.write(json.dumps(request) + "\n")
            worker.stdin.flush()
            answer = json.loads(worker.stdout.readline())
            if "ladder" in request:
                assert answer == {"sessions": 0, "report": None, "left_out": []}
            else:
                assert set(answer) == {"problem"} and "missing" in answer["problem"], answer
        limits = Path(f"/proc/{worker.pid}/limits").read_text().splitlines()
        address_space = next(line for line in limits if line.startswith("Max address space")).split()
        assert int(address_space[3]) == MEMORY_BYTES  # the soft limit: a larger report fails, the service goes on
    finally:
        worker.stdin.close()
        assert worker.wait(timeout=30) == 0
