"""The service's HTTP API end to end against a real `seka-arena serve` on 127.0.0.1: submissions of
the sample bots checked by the real check-bot, tokens and permissions, every refused archive, the
ladder filling, the organiser's actions and the pages."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import redirect_stdout
from dataclasses import dataclass
from io import StringIO
from pathlib import Path

import httpx
import pytest
from selenium.webdriver.common.by import By

from arena.cli import main

from ..report._browser import open_chromium
from ._archives import REFUSED, file, sample_archive, sample_bot, tar_gz
from ._server import Server, bearer, post_archive, running, token, wait_for

CONFIG = """\
data: data
table: {pots: 1}
uploads: {archive_mb: 1, unpacked_mb: 2, files: 32}
ladder: {placement_blocks: 1, random_share: 0.0}
tournaments:
  - {name: nightly, cron: "0 2 29 2 *"}
"""
BROKEN_BOT = b"import sys\nsys.stderr.write('cannot start: no model file\\n')\nsys.exit(3)\n"


class Service:
    def __init__(self, server: Server, config: Path) -> None:
        self.server = server
        self.config = config
        self.client = httpx.Client(base_url=server.url, timeout=60.0)
        self.organiser = token(config, "org", organiser=True)
        self.alice = token(config, "alice")
        self.bob = token(config, "bob")
        self.carol = token(config, "carol")


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    folder = tmp_path_factory.mktemp("service")
    config = folder / "service.yaml"
    config.write_text(CONFIG)
    with running(config) as server:
        service = Service(server, config)
        yield service
        service.client.close()
    assert server.process.returncode == 0, server.output()  # SIGTERM stops it cleanly
    assert "SIGTERM: stopping" in server.output()


@dataclass(frozen=True)
class Ladder:
    """The sample bots threshold (alice's) and strong (carol's: a rated table never seats two bots of one
    author), submitted with the CLI and rated by the ladder."""

    submissions: dict[str, tuple[int, str]]
    """Each bot's `seka-arena submit`: its exit status and what it printed."""
    board: list[dict[str, object]]
    """The leaderboard once both bots have played their first blocks."""


@pytest.fixture(scope="module")
def ladder(service: Service, tmp_path_factory: pytest.TempPathFactory) -> Ladder:
    """Set up once for the module by whichever test needs a rated ladder first, so that each such test
    also passes alone (`-k browser`): the submissions and the first blocks take several seconds.

    Its board must hold these two bots only, so every test that submits a bot the ladder accepts asks for
    this fixture too: then the ladder comes first in any order of the tests."""
    assert service.client.get("/api/leaderboard").json() == [], "a test submitted a playing bot before the ladder"
    submissions: dict[str, tuple[int, str]] = {}
    tokens = tmp_path_factory.mktemp("token")
    for name, value in (("threshold", service.alice), ("strong", service.carol)):
        token_file = tokens / f"{name}.token"
        token_file.write_text(value + "\n")
        folder = tmp_path_factory.mktemp(name)
        for path, data in sample_bot(name).items():
            (folder / path).write_bytes(data)
        (folder / "__pycache__").mkdir()
        (folder / "__pycache__" / "junk.pyc").write_bytes(b"x")
        with redirect_stdout(StringIO()) as printed:
            status = main(["submit", "--server", service.server.url, "--token-file", str(token_file),
                           "--name", name, str(folder)])
        submissions[name] = (status, printed.getvalue())
        assert status == 0, printed.getvalue()

    def rated() -> list[dict[str, object]] | None:
        # Only these two: whatever else tests submitted before may or may not have played yet.
        board: list[dict[str, object]] = service.client.get("/api/leaderboard").json()
        sessions = {row["name"]: int(str(row["sessions"])) for row in board}
        return board if all(sessions.get(name, 0) >= 2 for name in submissions) else None

    return Ladder(submissions, wait_for("the ladder's first blocks", rated))


@dataclass(frozen=True)
class Broken:
    """bob's bot `broken`, which exits at once when started, submitted through the API and checked."""

    response: httpx.Response
    """The submission's response."""
    version: dict[str, object]
    """Its version once checked, as its author sees it."""


@pytest.fixture(scope="module")
def broken(service: Service) -> Broken:
    """Set up once for the module, by its own test or the author's pages (which show its report), since the
    check takes seconds."""
    data = tar_gz([file("bot.yaml", b"command: python3 bot.py\n"), file("bot.py", BROKEN_BOT)])
    response = post_archive(service.client, "broken", data, service.bob)
    assert response.status_code == 201, response.text
    return Broken(response, _checked(service, "broken", service.bob))


@pytest.fixture(scope="module")
def hostile(service: Service) -> dict[str, httpx.Response]:
    """Each hostile archive of REFUSED posted once as bob's bot `hostile`: the responses by kind, for their
    own tests and for the store's state after all of them, whichever runs first."""
    return {kind: post_archive(service.client, "hostile", build(), service.bob) for kind, (build, _) in REFUSED.items()}


def _signed_in(service: Service, token_value: str) -> httpx.Client:
    """A browser-like client holding the sign-in cookie, whose requests come from the site's own pages."""
    return httpx.Client(base_url=service.server.url, timeout=60.0, cookies={"seka_token": token_value},
                        headers={"Origin": service.server.url})


def _version(service: Service, bot: str, which: str, who: str) -> dict[str, object]:
    response = service.client.get(f"/api/bots/{bot}/versions/{which}", headers=bearer(who))
    assert response.status_code == 200, response.text
    return dict(response.json())


def _checked(service: Service, bot: str, who: str) -> dict[str, object]:
    return dict(wait_for(f"the check of {bot}", lambda: (version := _version(service, bot, "latest", who))["status"]
                         != "pending" and version))


def test_sample_bots_submitted_with_the_cli_are_checked_accepted_and_fill_the_ladder(
        service: Service, ladder: Ladder) -> None:
    for name, (status, printed) in ladder.submissions.items():
        assert status == 0, printed
        assert f"{name} v1: accepted" in printed and "PASS  ready" in printed and "conforms" in printed
    version = _version(service, "strong", "latest", service.carol)
    assert version["status"] == "accepted" and version["id"] == 1 and "PASS  stop" in str(version["report"])
    assert "INFO arena.sdk" in str(version["stderr"])  # the bot's own stderr, as the author sees it

    board = ladder.board
    assert {row["name"] for row in board} == {"threshold", "strong"}  # the module's first bots: nothing else
    assert all(set(row) == {"name", "version", "rating", "ci_low", "ci_high", "sessions", "unrated"} for row in board)
    assert all(row["ci_low"] <= row["rating"] <= row["ci_high"] for row in board)

    page = service.client.get("/").text
    assert "strong" in page and "<svg" in page  # the leaderboard with its intervals
    session = service.client.get("/bots/strong").text.split('href="/sessions/')[1].split('"')[0]
    replay = service.client.get(f"/sessions/{session}")
    assert replay.status_code == 200 and "every deal against the session&#39;s seed" in replay.text
    assert "Pot 1" in replay.text
    viewer = service.client.get(f"/sessions/{session}/viewer", follow_redirects=True)
    assert viewer.status_code == 200 and str(viewer.url).endswith(f"/ladder/replays/public/sessions/{session}.html")
    assert "replay.js" in viewer.text and "strong" in viewer.text and "spectator" in viewer.text
    assert f'<a class="back" href="/sessions/{session}">' in viewer.text  # a way back to the service
    assert service.client.get("/ladder/replays/public/assets/replay.js").status_code == 200
    assert service.client.get("/ladder/replays/../service.sqlite").status_code == 404


def test_a_broken_bot_is_refused_with_its_report_and_stderr_and_never_plays(service: Service,
                                                                           broken: Broken) -> None:
    assert broken.response.headers["location"] == "/api/bots/broken/versions/1"
    version = broken.version
    assert version["status"] == "refused"
    assert "FAIL  ready" in str(version["report"]) and "does NOT conform" in str(version["report"])
    assert "cannot start: no model file" in str(version["stderr"])
    assert "broken" not in {row["name"] for row in service.client.get("/api/leaderboard").json()}
    # Its author sees the report on the pages too; others see the status only.
    with _signed_in(service, service.bob) as bob, _signed_in(service, service.alice) as alice:
        assert "cannot start: no model file" in bob.get("/bots/broken/versions/1").text
        other = alice.get("/bots/broken/versions/1").text
    assert "refused" in other and "cannot start" not in other


@pytest.mark.usefixtures("ladder")  # perm plays: after the ladder's first board
def test_tokens_and_permissions(service: Service) -> None:
    data = sample_archive("minimal")
    assert post_archive(service.client, "perm", data, None).status_code == 401
    refused_upload = post_archive(service.client, "perm", data, "not-a-token")
    # Refused with its body perhaps unread: the client is told not to send its next request down the same
    # connection (it did, and met "Server disconnected" now and then).
    assert refused_upload.status_code == 401 and refused_upload.headers["connection"] == "close"
    assert post_archive(service.client, "perm", data, service.alice).status_code == 201
    refused = post_archive(service.client, "perm", data, service.bob)
    assert refused.status_code == 403 and "another author" in refused.json()["error"]
    assert service.client.get("/api/bots/perm/versions/latest").status_code == 401
    assert service.client.get("/api/bots/perm/versions/1", headers=bearer(service.bob)).status_code == 403
    assert service.client.get("/api/bots/perm/versions/1", headers=bearer(service.organiser)).status_code == 200
    assert service.client.get("/api/bots/perm/versions/7", headers=bearer(service.alice)).status_code == 404
    # A second submission of other files is a new version of the same bot.
    second = post_archive(service.client, "perm", sample_archive("threshold"), service.alice)
    assert second.status_code == 201 and second.json()["id"] == 2
    # Organiser actions need an organiser's token.
    assert service.client.post("/api/bots/perm/disqualify", headers=bearer(service.alice)).status_code == 403
    assert service.client.post("/api/freeze", json={"frozen": True}, headers=bearer(service.bob)).status_code == 403
    assert service.client.post("/api/schedules", json={"name": "x", "cron": "* * * * *"},
                               headers=bearer(service.alice)).status_code == 403


def test_the_organisers_freeze_disqualify_and_schedule(service: Service) -> None:
    client, organiser = service.client, service.organiser
    assert client.post("/api/freeze", json={"frozen": True}, headers=bearer(organiser)).json() == {"frozen": True}
    frozen = post_archive(client, "late", sample_archive("minimal"), service.bob)
    assert frozen.status_code == 409 and "frozen" in frozen.json()["error"]
    client.post("/api/freeze", json={"frozen": False}, headers=bearer(organiser))
    assert post_archive(client, "late", sample_archive("minimal"), service.bob).status_code == 201

    response = client.post("/api/bots/late/disqualify", json={"reason": "shares code with perm"},
                           headers=bearer(organiser))
    assert response.status_code == 200
    again = post_archive(client, "late", sample_archive("minimal"), service.bob)
    assert again.status_code == 403 and "disqualified" in again.json()["error"]

    bad = client.post("/api/schedules", json={"name": "weekly", "cron": "0 25 * * *"}, headers=bearer(organiser))
    assert bad.status_code == 422 and "cron" in bad.json()["error"]
    made = client.post("/api/schedules", json={"name": "weekly", "cron": "0 18 * * 5", "top": 4},
                       headers=bearer(organiser))
    assert made.status_code == 201
    listed = client.get("/api/tournaments").json()["schedules"]
    assert {schedule["name"] for schedule in listed} == {"nightly", "weekly"}
    assert "weekly" in client.get("/tournaments").text


@pytest.mark.parametrize("kind", sorted(REFUSED))
def test_every_refused_archive_gets_422_with_its_reason(hostile: dict[str, httpx.Response], kind: str) -> None:
    build, words = REFUSED[kind]
    response = hostile[kind]
    assert response.status_code == (413 if kind == "too many bytes" and len(build()) > 1 << 20 else 422)
    assert words in response.json()["error"]


@pytest.mark.usefixtures("hostile")
def test_refused_archives_leave_nothing_in_the_store(service: Service) -> None:
    data = service.config.parent / "data"
    assert sorted(path.name for path in (data / "bots").iterdir() if path.name.startswith(".")) == []
    assert service.client.get("/api/bots/hostile/versions/latest", headers=bearer(service.bob)).status_code == 404


def test_a_body_over_the_limit_is_refused_with_413(service: Service) -> None:
    big = tar_gz([file("bot.yaml", b"command: python3 bot.py\n")]) + b"\0" * (2 << 20)
    response = post_archive(service.client, "huge", big, service.bob)
    assert response.status_code == 413 and "over the limit of 1048576 bytes" in response.json()["error"]
    # Refused from its declared length before the body is read: the same with no archive at all.
    declared = service.client.post("/api/bots/huge/versions", headers={**bearer(service.bob),
                                   "content-type": "multipart/form-data; boundary=x"}, content=b"x" * (2 << 20))
    assert declared.status_code == 413


def test_bad_requests_get_422(service: Service) -> None:
    assert post_archive(service.client, "a.b", sample_archive("minimal"), service.bob).status_code == 422
    no_file = service.client.post("/api/bots/nofile/versions", headers=bearer(service.bob), data={"x": "y"})
    assert no_file.status_code == 422 and "archive" in no_file.json()["error"]


@pytest.mark.usefixtures("ladder", "broken")  # alice's strong and bob's refused broken; formbot plays
def test_the_pages_an_author_uses(service: Service) -> None:
    # Its own client: the sign-in below leaves a cookie in it, which would sign in the module's client.
    with httpx.Client(base_url=service.server.url, timeout=60.0, headers={"Origin": service.server.url}) as client:
        assert client.get("/me", follow_redirects=False).status_code == 303
        assert client.post("/login", data={"token": "wrong"}).status_code == 401
        signed = client.post("/login", data={"token": service.bob}, follow_redirects=False)
        assert signed.status_code == 303 and "httponly" in signed.headers["set-cookie"].lower()
        for page in ("/", "/bots", "/bots/strong", "/tournaments", "/upload", "/login"):
            assert client.get(page).status_code == 200, page
        assert client.get("/bots/nobody").status_code == 404
    with _signed_in(service, service.bob) as bob:
        mine = bob.get("/me").text
        uploaded = bob.post("/upload", data={"name": "formbot"}, follow_redirects=False,
                            files={"archive": ("b.tar.gz", sample_archive("minimal"), "application/gzip")})
        refused = bob.post("/upload", data={"name": "formbot"},
                           files={"archive": ("b.tar.gz", b"not an archive", "application/gzip")})
    assert "broken" in mine and "cannot start: no model file" in mine and 'href="/bots/strong"' not in mine
    assert uploaded.status_code == 303 and uploaded.headers["location"] == "/bots/formbot/versions/1"
    assert refused.status_code == 422 and "not a tar.gz or zip archive" in refused.text


@pytest.mark.slow
def test_the_submission_flow_and_the_leaderboard_in_a_real_browser(service: Service, ladder: Ladder,
                                                                   tmp_path: Path) -> None:
    archive = tmp_path / "browserbot.tar.gz"
    archive.write_bytes(sample_archive("threshold"))
    with open_chromium() as browser:
        browser.get(f"{service.server.url}/login")
        browser.find_element(By.NAME, "token").send_keys(service.alice)
        browser.find_element(By.TAG_NAME, "form").submit()
        wait_for("the author's page", lambda: browser.current_url.endswith("/me"))
        browser.get(f"{service.server.url}/upload")
        browser.find_element(By.NAME, "name").send_keys("browserbot")
        browser.find_element(By.NAME, "archive").send_keys(str(archive))
        browser.find_element(By.CSS_SELECTOR, "form[action='/upload'] button").click()
        wait_for("the version page", lambda: browser.current_url.endswith("/bots/browserbot/versions/1"))

        def accepted() -> bool:
            browser.refresh()
            return "accepted" in browser.find_element(By.TAG_NAME, "main").text

        wait_for("the check in the browser", accepted, every=1.0)
        summary = browser.find_element(By.CSS_SELECTOR, "#check-report summary")
        assert summary.text.startswith("conforms: ")  # its author sees the verdict, and the report a click away
        summary.click()
        assert "PASS  ready" in browser.find_element(By.TAG_NAME, "pre").text

        def drawn() -> list[str] | None:
            # Intervals are drawn once the ladder's leading group has ratings; a bot outside it (as when
            # other tests' new versions were placed against each other) is listed unrated meanwhile.
            browser.get(service.server.url + "/")
            rows = [row.text for row in browser.find_elements(By.CSS_SELECTOR, "main table tr")]
            return rows if browser.find_elements(By.CSS_SELECTOR, "svg#rating-intervals g.interval-row") else None

        rows = wait_for("the leaderboard's intervals in the browser", drawn, every=0.5)
        assert any("browserbot" in row for row in rows) and any("strong" in row for row in rows)


def test_a_command_naming_a_missing_program_is_refused_and_leaves_no_folder(service: Service) -> None:
    bots = service.config.parent / "data" / "bots"
    before = sorted(path.name for path in bots.iterdir())
    data = tar_gz([file("bot.yaml", b"command: ./run.sh --fast\n"), file("bot.py", b"x")])
    response = post_archive(service.client, "missing", data, service.bob)
    assert response.status_code == 422 and "'./run.sh' is not a file in the archive" in response.json()["error"]
    assert sorted(path.name for path in bots.iterdir()) == before
