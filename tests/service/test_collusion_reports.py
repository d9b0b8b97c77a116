"""The collusion reports' worker and saved reports, each on a `seka-arena serve` (or worker) of its own:
a store with nothing played says so; the worker's memory cap; a report read back after a restart without
the worker, and made again when its source changed or its file is damaged (or is not one: the saved
reports' checks). Apart from
test_collusion_page.py, whose shared serve plays its ladder all along."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from arena.service._collusion import MEMORY_BYTES, Analysis, SavedReports

from ._archives import sample_archive
from ._collusion import accepted, cookie, ready, refused_to_others, service_file
from ._server import Server, bearer, children, command_line, running, token, wait_for


@pytest.mark.slow
def test_nothing_played_reads_as_an_empty_report_and_names_no_run_are_refused(tmp_path: Path) -> None:
    accepted(tmp_path / "data", {"random": ("dave", sample_archive("random"))})  # one author: no ladder table
    config = service_file(tmp_path / "service.yaml", "georgian", {}, pots=1, ladder=True, cup="cup")
    organiser, dave = token(config, "org", organiser=True), token(config, "dave")
    with running(config) as server, httpx.Client(base_url=server.url, timeout=60.0) as client:
        document = client.get("/api/collusion", headers=bearer(organiser)).json()
        assert document["state"] == "empty" and document["current"] and document["sessions"] == 0
        page = client.get("/organiser/collusion", headers=cookie(organiser))
        assert page.status_code == 200 and "No finished ladder session yet" in page.text
        for hostile in ("nosuchrun", "%2e%2e%2f%2e%2e%2fservice.sqlite", "x" * 5000, "a%00b", "%C3%A9t%C3%A9"):
            for path in (f"/api/collusion/{hostile}", f"/organiser/collusion/{hostile}"):
                answer = client.get(path, headers=bearer(organiser) if "/api/" in path else cookie(organiser))
                assert answer.status_code == 404, (path, answer.status_code)
                assert "Traceback" not in answer.text
        refused_to_others(client, ["/organiser/collusion"], dave)
    assert server.process.returncode == 0, server.output()


@pytest.mark.slow
def test_the_report_worker_runs_under_its_memory_cap_and_answers_a_bad_request_with_a_problem(tmp_path: Path) -> None:
    accepted(tmp_path / "data", {"random": ("dave", sample_archive("random"))})
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


def _workers(server: Server) -> list[int]:
    return [pid for pid in children(server.process.pid) if "_collusion_worker" in command_line(pid)]


@pytest.mark.slow
def test_a_report_is_read_from_the_data_folder_after_a_restart_and_made_again_when_stale_or_damaged(
        tmp_path: Path) -> None:
    data = tmp_path / "data"
    accepted(data, {"threshold": ("carol", sample_archive("threshold")), "random": ("dave", sample_archive("random"))})
    config = service_file(tmp_path / "service.yaml", "georgian", {}, pots=1, ladder=False, cup="cup")
    organiser = token(config, "org", organiser=True)
    with running(config) as server, httpx.Client(base_url=server.url, timeout=60.0) as client:
        made = {}
        for _ in range(2):  # two runs of one duplicate block each: one to damage, one to change
            fired = wait_for("a run fired", lambda: (answer := client.post(
                "/api/schedules/cup/run", headers=bearer(organiser))).status_code == 201 and answer.json()["name"])
            made[fired] = wait_for("its report", lambda run=fired: ready(client, f"/api/collusion/{run}", organiser)
                                   if client.get("/api/tournaments").json()["runs"][0]["status"] == "finished"
                                   else None, output=server.output)
        assert _workers(server)  # made by the worker
    damaged, changed = made
    assert all(document["state"] == "ready" and document["sessions"] == 2 for document in made.values()), made
    saved = sorted((data / "collusion").glob("*.json"))
    assert len(saved) == 2 and all(path.stat().st_mode & 0o777 == 0o600 for path in saved)

    with running(config) as server, httpx.Client(base_url=server.url, timeout=60.0) as client:
        for run, document in made.items():  # at once, as made, current, and no worker started
            assert client.get(f"/api/collusion/{run}", headers=bearer(organiser)).json() == document
            page = client.get(f"/organiser/collusion/{run}", headers=cookie(organiser))
            assert 'data-state="ready"' in page.text and "being made" not in page.text
        assert not _workers(server), server.output()

    # A half-written file (a crash) is never shown; a run whose histories changed (one gone) shows its last
    # report as not current until the new one is made, which says what it found.
    path = next(path for path in saved if f'"scope":"{damaged}"' in path.read_text())
    path.write_bytes(path.read_bytes()[:path.stat().st_size // 2])
    histories = data / "tournaments" / changed / "results" / changed / "histories"
    gone = next(histories.glob("*.jsonl"))
    gone.rename(tmp_path / "moved.jsonl")
    with running(config) as server, httpx.Client(base_url=server.url, timeout=60.0) as client:
        first = client.get(f"/api/collusion/{damaged}", headers=bearer(organiser)).json()
        assert first["state"] == "being made" and first["made_at"] is None, first
        stale = client.get(f"/api/collusion/{changed}", headers=bearer(organiser)).json()
        assert {**stale, "current": True} == made[changed] and not stale["current"], stale
        again = wait_for("the damaged one made again", lambda: ready(client, f"/api/collusion/{damaged}", organiser),
                         output=server.output)
        assert again["sessions"] == 2 and again["tests"] == made[damaged]["tests"]
        fresh = wait_for("the changed one made again", lambda: ready(client, f"/api/collusion/{changed}", organiser),
                         output=server.output)
        assert fresh["state"] == "failed" and gone.stem in fresh["problem"], fresh
        (tmp_path / "moved.jsonl").rename(gone)  # back: the same source as the saved report's, made again
        back = wait_for("the changed one made again", lambda: ready(client, f"/api/collusion/{changed}", organiser),
                        output=server.output)
        assert back["state"] == "ready" and back["sessions"] == 2 and back["tests"] == made[changed]["tests"]
        assert _workers(server)
    assert "the saved collusion report of" in server.output() and "checksum does not match" in server.output()
    assert server.process.returncode == 0, server.output()


def test_a_saved_report_that_does_not_hold_is_ignored_and_said(tmp_path: Path, caplog: pytest.LogCaptureFixture
                                                                ) -> None:
    saved = SavedReports(tmp_path / "collusion")
    analysis = Analysis("run 1 finished 2 345", "2026-12-05T00:00:00+00:00", 2,
                        {"alpha": 0.01, "pairs": 1, "tests_run": 6, "flagged": [], "tests": []},
                        (("s1", "it does not replay"),))
    saved.save("cup-1", analysis)
    assert saved.load("cup-1") == analysis and saved.load("cup-2") is None  # none saved: nothing said
    assert not caplog.records
    good = saved.path("cup-1").read_bytes()
    header, body = good.split(b"\n", 1)

    def signed(document: object, version: int = 2) -> bytes:
        text = json.dumps(document).encode()
        return json.dumps({"format": f"seka-arena collusion report {version}",
                           "sha256": hashlib.sha256(text).hexdigest()}).encode() + b"\n" + text

    fields = json.loads(body)
    for bad, said in ((b"", "Expecting value"), (b"not json\n{}", "Expecting value"),
                      (b'{"a": 1}\n{}', "not a saved report"), (header + b"\n" + body[:-1], "checksum"),
                      # format 1's tests lacked `flags` and the flow tests' Holm p: made again, not shown
                      (signed(fields, version=1), "not a saved report"),
                      (signed({**fields, "scope": "cup-2"}), "not the report of 'cup-1'"),
                      (signed({**fields, "sessions": "2"}), "not of its kind"),
                      (signed({**fields, "left_out": [["s1"]]}), "not of its kind"),
                      (signed([fields]), "not the report of")):
        saved.path("cup-1").write_bytes(bad)
        caplog.clear()
        assert saved.load("cup-1") is None, bad
        assert [record.levelname for record in caplog.records] == ["WARNING"] and said in caplog.text, caplog.text
    with saved.path("cup-1").open("wb") as file:  # too large to read: not read whole
        file.truncate(81 << 20)
    caplog.clear()
    assert saved.load("cup-1") is None and "over 80 MiB" in caplog.text
    saved.save("cup-1", analysis)  # the next report replaces it
    assert saved.path("cup-1").read_bytes() == good
