"""Kill and restart: SIGKILL the server during a scheduled tournament, start it again, and get the
same standings as an uninterrupted run of the same tournament."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest

from ._archives import sample_archive
from ._server import SEKA_ARENA, bearer, post_archive, running, token, wait_for

CONFIG = """\
data: data
table: {pots: 2}
ladder: {enabled: false}
tournaments:
  - {name: cup, cron: "0 2 29 2 *"}
"""


def _run(client: httpx.Client) -> dict[str, object]:
    [run] = client.get("/api/tournaments").json()["runs"]
    return dict(run)


def _results(standings: dict[str, Any]) -> list[dict[str, Any]]:
    return [{key: value for key, value in row.items() if key != "launch_to_ready_ms"} for row in standings["standings"]]


def _sessions(database: Path) -> list[tuple[str, str, int, str | None]]:
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as connection:
        return list(connection.execute("SELECT id, status, attempts, balances FROM sessions ORDER BY idx"))


@pytest.mark.slow
def test_a_killed_server_resumes_its_scheduled_tournament_to_the_same_standings(tmp_path: Path) -> None:
    config = tmp_path / "service.yaml"
    config.write_text(CONFIG)
    organiser = token(config, "org", organiser=True)
    authors = {name: token(config, author) for name, author in (("call", "alice"), ("threshold", "bob"),
                                                                 ("strong", "carol"))}  # no teams: every table
    with running(config, stop=signal.SIGKILL) as server, httpx.Client(base_url=server.url, timeout=60) as client:
        for name, author in authors.items():
            assert post_archive(client, name, sample_archive(name), author).status_code == 201
        for name, author in authors.items():
            wait_for(f"{name} accepted", lambda name=name, author=author: client.get(
                f"/api/bots/{name}/versions/latest", headers=bearer(author)).json()["status"] == "accepted")
        fired = client.post("/api/schedules/cup/run", headers=bearer(organiser))
        assert fired.status_code == 201
        name = fired.json()["name"]
        wait_for("a few sessions", lambda: (_run(client)["done"] or 0) >= 2)
    # SIGKILLed mid-tournament: the run is still marked running, some sessions are not finished.
    results = tmp_path / "data" / "tournaments" / name / "results" / name
    before = _sessions(results / "tournament.sqlite")
    assert len(before) == 6 and 2 <= sum(status == "finished" for _, status, _, _ in before) < 6
    assert not (results / "standings.json").exists() or not json.loads((results / "standings.json").read_text())[
        "complete"]

    with running(config) as server, httpx.Client(base_url=server.url, timeout=60) as client:
        wait_for("the resumed tournament", lambda: _run(client)["status"] == "finished")
        page = client.get(f"/tournaments/{name}").text
        assert "secret revealed" in page and "strong" in page
        report = client.get(f"/tournaments/{name}/report/index.html")  # arena.report's site, published
        assert report.status_code == 200 and "strong" in report.text
        assert client.get(f"/tournaments/{name}/report/../../tournament.sqlite").status_code == 404
    after = _sessions(results / "tournament.sqlite")
    assert all(status == "finished" for _, status, _, _ in after)
    finished_before = {session: balances for session, status, _, balances in before if status == "finished"}
    assert all(dict((s, b) for s, _, _, b in after)[session] == balances  # never replayed
               for session, balances in finished_before.items())
    resumed = json.loads((results / "standings.json").read_text())

    # The same tournament, uninterrupted, from the definition the service stored for the run.
    with sqlite3.connect(tmp_path / "data" / "service.sqlite") as connection:
        (definition,) = connection.execute("SELECT definition FROM scheduled_runs WHERE name = ?", (name,)).fetchone()
    again = tmp_path / "again"
    again.mkdir()
    (again / "cup.yaml").write_text(definition)
    subprocess.run([str(SEKA_ARENA), "run", str(again / "cup.yaml"), "--out", str(again)], check=True,
                   capture_output=True, text=True, timeout=600)
    uninterrupted = json.loads((again / "results" / name / "standings.json").read_text())
    assert resumed["complete"] and uninterrupted["complete"] and resumed["secret"] == uninterrupted["secret"]
    # Everything but how fast this machine launched the bots (launch_to_ready_ms) is the same.
    assert _results(resumed) == _results(uninterrupted)
    assert [(s, b) for s, _, _, b in after] == [(s, b) for s, _, _, b in
                                                 _sessions(again / "results" / name / "tournament.sqlite")]
