"""Web hygiene against a real `seka-arena serve` on 127.0.0.1, as a hostile site, visitor or author would
try it: forged cookie-signed state changes, the sign-in cookie's flags, revoked and expired tokens, and a
token that never goes on a command line."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import redirect_stdout
from io import StringIO
from pathlib import Path

import httpx
import pytest

from arena.cli import main

from ._archives import sample_archive, sample_bot
from ._server import SEKA_ARENA, Server, bearer, running, token, wait_for

CONFIG = """\
data: data
table: {pots: 1}
ladder: {enabled: false}
"""
EVIL = "https://evil.example"


class Web:
    def __init__(self, server: Server, config: Path) -> None:
        self.server = server
        self.config = config
        self.url = server.url
        self.client = httpx.Client(base_url=server.url, timeout=60.0)
        self.organiser = token(config, "org", organiser=True)
        self.alice = token(config, "alice")

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
