"""Web hygiene against a real `seka-arena serve` on 127.0.0.1, as a hostile site, visitor or author would
try it: forged cookie-signed state changes, the sign-in cookie's flags, revoked and expired tokens, a
token that never goes on a command line, a visitor holding event streams or asking for replays again
and again, malformed paths, and a check that fails inside an exception group."""

from __future__ import annotations

import os
import sqlite3
import subprocess
from collections.abc import Iterator
from contextlib import redirect_stdout
from io import StringIO
from pathlib import Path

import httpx
import pytest

from arena.cli import main
from arena.service import ServiceStore

from ._archives import ROOT, file, sample_archive, sample_bot, tar_gz
from ._server import SEKA_ARENA, Server, bearer, post_archive, running, token, wait_for

CONFIG = """\
data: data
table: {pots: 12}
ladder: {enabled: false}
web: {events_total: 3, events_per_client: 1, replay_cache: 1, trusted_proxies: [127.0.0.1]}
tournaments:
  - {name: long, cron: "0 2 1 1 *", sessions_per_table: 1000}
"""
EVIL = "https://evil.example"
SLOW_BOT = b"""\
import time

from arena.sdk import run

from minimal import MinimalBot


class SlowBot(MinimalBot):
    def act(self, turn):
        time.sleep(0.05)  # a tournament that lasts the module's tests, at little CPU
        return super().act(turn)


if __name__ == "__main__":
    run(SlowBot())
"""


class Web:
    def __init__(self, server: Server, config: Path) -> None:
        self.server = server
        self.config = config
        self.url = server.url
        self.client = httpx.Client(base_url=server.url, timeout=60.0)
        self.organiser = token(config, "org", organiser=True)
        self.alice = token(config, "alice")
        self._run: str | None = None

    def running_run(self) -> str:
        """The name of a long scheduled tournament of two slow bots, started on first use and playing
        until the module's server stops, once two of its sessions are finished."""
        if self._run is None:
            # Of two authors: a scheduled run never seats two bots of one author (its teams).
            authors = {"slowa": self.alice, "slowb": token(self.config, "bob")}
            for name, author in authors.items():
                files = [file("bot.yaml", b"command: python3 bot.py\n"), file("bot.py", SLOW_BOT),
                         file("minimal.py", (ROOT / "sample_bots" / "minimal_bot.py").read_bytes())]
                assert post_archive(self.client, name, tar_gz(files), author).status_code == 201
            for name, author in authors.items():
                wait_for(f"{name} accepted", lambda name=name, author=author: self.client.get(
                    f"/api/bots/{name}/versions/latest", headers=bearer(author)).json()["status"] == "accepted")
            fired = self.client.post("/api/schedules/long/run", headers=bearer(self.organiser))
            assert fired.status_code == 201, fired.text
            self._run = str(fired.json()["name"])
            wait_for("two finished sessions", lambda: len(self.finished_sessions()) >= 2)
        return self._run

    def finished_sessions(self) -> list[str]:
        assert self._run is not None
        results = self.config.parent / "data" / "tournaments" / self._run / "results" / self._run
        if not (results / "tournament.sqlite").is_file():
            return []
        with sqlite3.connect(f"file:{results / 'tournament.sqlite'}?mode=ro", uri=True) as connection:
            return [row[0] for row in connection.execute("SELECT id FROM sessions WHERE status = 'finished' "
                                                         "ORDER BY idx")]

    def history(self, session: str) -> Path:
        assert self._run is not None
        return (self.config.parent / "data" / "tournaments" / self._run / "results" / self._run / "histories"
                / f"{session}.jsonl")

    def signed_in(self, token_value: str, origin: str | None) -> httpx.Client:
        """A browser's client holding the sign-in cookie; its requests come from `origin` (None: no Origin)."""
        return httpx.Client(base_url=self.url, timeout=60.0, cookies={"seka_token": token_value},
                            headers={"Origin": origin} if origin else {})


@pytest.fixture(scope="module")
def web(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Web]:
    folder = tmp_path_factory.mktemp("web")
    config = folder / "service.yaml"
    config.write_text(CONFIG)
    with running(config) as server:
        web = Web(server, config)
        yield web
        web.client.close()


def _upload(client: httpx.Client, name: str) -> httpx.Response:
    return client.post("/upload", data={"name": name}, follow_redirects=False,
                       files={"archive": ("b.tar.gz", sample_archive("minimal"), "application/gzip")})


def test_cookie_signed_state_changes_from_another_site_are_refused(web: Web) -> None:
    with web.signed_in(web.alice, EVIL) as forged, web.signed_in(web.alice, None) as bare:
        refused = _upload(forged, "forged")
        assert refused.status_code == 403 and "another site" in refused.text
        assert _upload(bare, "forged").status_code == 403  # neither Origin nor Referer: refused too
        referred = bare.post("/upload", data={"name": "forged"}, headers={"Referer": f"{EVIL}/page"},
                             files={"archive": ("b.tar.gz", sample_archive("minimal"), "application/gzip")})
        assert referred.status_code == 403
        assert forged.post("/logout").status_code == 403
    assert web.client.get("/api/bots/forged/versions/latest", headers=bearer(web.alice)).status_code == 404
    with web.signed_in(web.organiser, EVIL) as forged:  # the API's state changes, signed by the cookie
        response = forged.post("/api/freeze", json={"frozen": True})
        assert response.status_code == 403 and "another site" in response.json()["error"]
    assert _upload(web.signed_in(web.alice, web.url), "sameorigin").status_code == 303  # the site's own form
    # A program's bearer token is never sent by a browser on its own: no Origin needed.
    assert web.client.post("/api/freeze", json={"frozen": False}, headers=bearer(web.organiser)).status_code == 200
    # Signing a visitor in to the attacker's account (login CSRF) is refused as well.
    assert web.client.post("/login", data={"token": web.alice}, headers={"Origin": EVIL}).status_code == 403


def test_the_sign_in_cookie_is_httponly_strict_and_secure_behind_https(web: Web) -> None:
    plain = web.client.post("/login", data={"token": web.alice}, headers={"Origin": web.url}, follow_redirects=False)
    behind_https = web.client.post("/login", data={"token": web.alice}, follow_redirects=False,
                                   headers={"Origin": web.url, "X-Forwarded-Proto": "https"})
    web.client.cookies.clear()
    for response in (plain, behind_https):
        assert response.status_code == 303
        flags = [part.strip().lower() for part in response.headers["set-cookie"].split(";")]
        assert "httponly" in flags and "samesite=strict" in flags
    assert "secure" not in [part.strip().lower() for part in plain.headers["set-cookie"].split(";")]
    assert "secure" in [part.strip().lower() for part in behind_https.headers["set-cookie"].split(";")]


def _token_command(web: Web, *words: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(SEKA_ARENA), "token", str(web.config), *words], capture_output=True, text=True)


def test_a_revoked_or_expired_token_is_refused_with_a_clear_401(web: Web) -> None:
    given = _token_command(web, "--author", "mallory", "--expires-days", "30")
    assert given.returncode == 0, given.stderr
    mallory, token_id = given.stdout.strip(), given.stderr.split()[1]
    assert web.client.get("/api/bots/x/versions/1", headers=bearer(mallory)).status_code == 404  # valid
    listed = _token_command(web, "--list").stdout
    assert token_id in listed and "mallory" in listed and "expires" in listed and mallory not in listed
    revoked = _token_command(web, "--revoke", token_id)
    assert revoked.returncode == 0 and "revoked" in revoked.stdout, revoked.stderr
    refused = web.client.get("/api/bots/x/versions/1", headers=bearer(mallory))
    assert refused.status_code == 401 and "revoked" in refused.json()["error"]
    with web.signed_in(mallory, web.url) as browser:  # its cookie signs nothing in any more
        assert _upload(browser, "revokedbot").status_code == 401
        assert browser.get("/me", follow_redirects=False).status_code == 303
    login = web.client.post("/login", data={"token": mallory}, headers={"Origin": web.url})
    assert login.status_code == 401 and "revoked" in login.text
    assert _token_command(web, "--revoke", "000000000000").returncode != 0  # no such token: said so

    short = _token_command(web, "--author", "mallory", "--expires-days", "0.00002")  # 1.7 seconds
    expired_token = short.stdout.strip()
    wait_for("the token's expiry", lambda: web.client.get(
        "/api/bots/x/versions/1", headers=bearer(expired_token)).status_code == 401, timeout=30)
    expired = web.client.get("/api/bots/x/versions/1", headers=bearer(expired_token))
    assert "expired" in expired.json()["error"]
    assert _token_command(web, "--author", "x", "--list").returncode != 0  # one thing at a time


def test_submit_takes_the_token_from_the_environment_or_a_file_never_argv(
        web: Web, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "bot"
    folder.mkdir()
    for path, data in sample_bot("minimal").items():
        (folder / path).write_bytes(data)
    with pytest.raises(SystemExit):  # no --token option: a command line is readable by every user
        main(["submit", "--server", web.url, "--token", web.alice, "--name", "envbot", str(folder)])
    monkeypatch.delenv("SEKA_ARENA_TOKEN", raising=False)
    with redirect_stdout(StringIO()):
        assert main(["submit", "--server", web.url, "--name", "envbot", str(folder)]) != 0  # no token at all
    monkeypatch.setenv("SEKA_ARENA_TOKEN", web.alice)
    with redirect_stdout(StringIO()) as printed:
        assert main(["submit", "--server", web.url, "--name", "envbot", "--wait", "0", str(folder)]) == 1
    assert "submitted envbot v1" in printed.getvalue()
    monkeypatch.delenv("SEKA_ARENA_TOKEN")
    token_file = tmp_path / "token"
    token_file.write_text(web.alice + "\n")
    with redirect_stdout(StringIO()) as printed:
        main(["submit", "--server", web.url, "--name", "filebot", "--token-file", str(token_file), "--wait", "0",
              str(folder)])
    assert "submitted filebot v1" in printed.getvalue()
    with web.signed_in(web.alice, web.url) as browser:  # the upload page steers away from argv too
        page = browser.get("/upload").text
    assert "SEKA_ARENA_TOKEN" in page and "--token-file" in page and "--token TOKEN" not in page


def _first_event(lines: Iterator[str]) -> str:
    """The first event of a stream's lines (kept by the caller: a line iterator dropped closes its stream)."""
    return next(line for line in lines if line.startswith("data:"))


def test_event_streams_are_capped_overall_and_per_client_address(web: Web) -> None:
    """One stream per client and three in all here; 127.0.0.1 is a trusted proxy, whose X-Forwarded-For
    names its clients, and 127.0.0.2 a client that writes any address there (ignored)."""
    run = web.running_run()
    url = f"/tournaments/{run}/events"
    other_address = httpx.HTTPTransport(local_address="127.0.0.2")  # a second client, on the loopback

    def forwarded(address: str) -> dict[str, str]:
        return {"X-Forwarded-For": f"10.9.9.9, {address}"}  # the last address is the one the proxy added

    with httpx.Client(base_url=web.url, timeout=60.0) as proxy, \
            httpx.Client(base_url=web.url, timeout=60.0, transport=other_address) as client:
        with proxy.stream("GET", url) as one:
            lines_one = one.iter_lines()
            assert '"status": "running"' in _first_event(lines_one)
            with proxy.stream("GET", url) as refused:  # a second from the same address
                assert refused.status_code == 429 and "already listens to 1" in refused.read().decode()
                assert int(refused.headers["retry-after"]) > 0
            with proxy.stream("GET", url, headers=forwarded("198.51.100.7")) as two:  # the proxy's client
                lines_two = two.iter_lines()
                assert _first_event(lines_two)
                with client.stream("GET", url, headers=forwarded("203.0.113.5")) as three:
                    lines_three = three.iter_lines()
                    assert _first_event(lines_three)
                    with client.stream("GET", url, headers=forwarded("203.0.113.6")) as spoofed:
                        assert spoofed.status_code == 429 and "already listens to 1" in spoofed.read().decode()
                    with proxy.stream("GET", url, headers=forwarded("198.51.100.8")) as overall:
                        assert overall.status_code == 429 and "at most 3" in overall.read().decode()
        # Streams closed by their clients are counted out (at their next event at the latest).
        wait_for("the closed streams counted out", lambda: _opens(client, url), timeout=60)


def _opens(client: httpx.Client, url: str) -> bool:
    with client.stream("GET", url) as response:
        return response.status_code == 200


def test_replay_pages_do_not_recheck_a_history_each_time_and_the_cache_is_bounded(web: Web) -> None:
    run = web.running_run()
    first, second = web.finished_sessions()[:2]
    checked = "every deal against the session&#39;s seed"
    assert checked in web.client.get(f"/sessions/{first}", params={"tournament": run}).text
    history = web.history(first)
    original, status = history.read_bytes(), history.stat()
    try:
        # The same file (inode, size, modification time) with other bytes: a page served from the cache
        # still shows the first check; one that re-checked the history would find it broken.
        with open(history, "r+b") as rewrite:
            rewrite.write(b"x" * len(original))
        os.utime(history, ns=(status.st_atime_ns, status.st_mtime_ns))
        assert checked in web.client.get(f"/sessions/{first}", params={"tournament": run}).text
        # The cache holds one session here (`web.replay_cache: 1`): another one's check evicts it.
        assert checked in web.client.get(f"/sessions/{second}", params={"tournament": run}).text
        assert "BROKEN" in web.client.get(f"/sessions/{first}", params={"tournament": run}).text
    finally:
        history.write_bytes(original)


def test_malformed_paths_are_404_on_every_route_family(web: Web) -> None:
    run = web.running_run()
    long = "a" * 5000
    paths = [
        "/ladder/replays/%00", "/ladder/replays/a%00b", f"/ladder/replays/{long}", "/ladder/replays/%ff",
        f"/tournaments/{run}/replays/%00", f"/tournaments/{run}/replays/{long}",
        f"/tournaments/{run}/report/%00", f"/tournaments/{run}/report/{long}", f"/tournaments/{run}/report/..%2f..",
        "/tournaments/%00", f"/tournaments/{long}", f"/tournaments/{run}%00/events",
        "/sessions/%00", f"/sessions/{long}", f"/sessions/{long}/viewer", f"/sessions/%00?tournament={run}",
        "/sessions/x?tournament=%00", f"/sessions/{long}?tournament={run}", "/sessions/..%2f..%2fservice",
        "/bots/%00", f"/bots/{long}", "/bots/a/versions/%00", f"/bots/slowa/versions/{long}", "/bots/%00/logs/%00",
        f"/bots/slowa/logs/{long}", "/api/bots/%00/versions/1", f"/api/bots/{long}/versions/latest",
        f"/api/bots/slowa/versions/{long}", "/static/%00", "/static/report/%00", "/static/report/..%2fstyle.css",
        "/live/ladder/%00", f"/live/ladder/{long}", "/live/ladder/..%2f..%2fservice/events",
        f"/live/tournaments/{run}/%00", f"/live/tournaments/{run}/{long}/events", f"/live/tournaments/{long}/s0001",
    ]
    with httpx.Client(base_url=web.url, timeout=60.0, headers=bearer(web.organiser)) as organiser:
        answers = {path: organiser.get(path).status_code for path in paths}
        answers["POST /api/ladder/blocks/99999999999999999999999/resume"] = organiser.post(
            "/api/ladder/blocks/99999999999999999999999/resume").status_code
        answers["POST /api/challenges/99999999999999999999999/resume"] = organiser.post(
            "/api/challenges/99999999999999999999999/resume").status_code
        answers["POST /api/schedules/%00/run"] = organiser.post("/api/schedules/%00/run").status_code
    assert {path: status for path, status in answers.items() if status != 404} == {}
    assert "Traceback" not in web.server.output()


def test_a_check_that_fails_inside_an_exception_group_ends_refused_with_its_reason(tmp_path: Path) -> None:
    """Versions stored pending (by an older service whose submit check was laxer, say): one whose command
    the service no longer starts (it names '/'), one whose unpacked folder is gone, so that its launch
    fails inside the launcher's nursery: each refused, with the reason, never pending."""
    config = tmp_path / "service.yaml"
    config.write_text("data: data\nladder: {enabled: false}\n")
    alice = token(config, "alice")
    store = ServiceStore.open(tmp_path / "data" / "service.sqlite")
    for bot, sha256, command in (("rooted", "ab" * 32, "python3 bot.py /"), ("unpacked-gone", "cd" * 32,
                                                                            "python3 bot.py")):
        store.add_version(bot, "alice", sha256=sha256, kind="tar.gz", size=1, command=command, language=None,
                          description=None)
    store.close()
    folder = tmp_path / "data" / "bots" / ("ab" * 32)
    folder.mkdir(parents=True)
    (folder / "bot.yaml").write_text("command: python3 bot.py /\n")
    (folder / "bot.py").write_bytes((ROOT / "sample_bots" / "minimal_bot.py").read_bytes())
    with running(config) as server, httpx.Client(base_url=server.url, timeout=60.0) as client:
        versions = {bot: wait_for(f"the check of {bot}", lambda bot=bot: (found := client.get(
            f"/api/bots/{bot}/versions/1", headers=bearer(alice)).json())["status"] != "pending" and found,
            timeout=60) for bot in ("rooted", "unpacked-gone")}
    assert all(version["status"] == "refused" for version in versions.values()), versions
    assert "'/' is an absolute path" in versions["rooted"]["report"], versions["rooted"]["report"]
    assert "FAIL  the arena could not run the check (FileNotFoundError)" in versions["unpacked-gone"]["report"], (
        versions["unpacked-gone"]["report"])
