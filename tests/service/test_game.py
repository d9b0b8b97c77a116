"""One game, everywhere: a service checks submissions with its own profile and options, says which game
it plays on every page and in `GET /api/game`, and gives the exact `check-bot` command for it.

A bot that knows only the stake profiles' turns is submitted over HTTP to a real `seka36` service and to a
real `georgian` one: the first accepts it, the second refuses it (until 904e8eb both checked with the
georgian rules, and a `seka36` service refused a bot that passed `check-bot --profile seka36`)."""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from arena.engine import profile
from arena.isolation import Isolation
from arena.service import ScheduleConfig, ServiceConfig, build_app, open_service

from ._archives import MANIFEST, file, tar_gz
from ._server import SEKA_ARENA, bearer, post_archive, running, token, wait_for

STAKE_ONLY_BOT = b'''"""Knows only the stake profiles' turns: look, then open or call when it may, else support."""
from arena.sdk import Bot, Call, Look, Open, Support, Turn, run


class StakeOnly(Bot):
    name = "stake-only"
    version = "1.0"

    def act(self, turn: Turn):
        legal = turn.legal
        if legal.can_look and turn.cards_unseen:
            return Look()
        if legal.open_amount is not None:
            return Open()
        if legal.call_amount is not None:
            return Call()
        return Support()  # a georgian turn has no support: the arena folds for it, an illegal reply


if __name__ == "__main__":
    run(StakeOnly())
'''

SEKA36 = "data: data\nprofile: seka36\ntable: {dark: true, pots: 1}\nlimits: {decision_ms: 2000}\n"
GEORGIAN = "data: data\ntable: {pots: 1}\nlimits: {decision_ms: 2000}\n"


def _checked(client: httpx.Client, author: str) -> dict[str, object]:
    def done() -> dict[str, object] | None:
        version = client.get("/api/bots/stake/versions/latest", headers=bearer(author)).json()
        return None if version["status"] == "pending" else dict(version)

    return dict(wait_for("the check of the stake-only bot", done, timeout=180))


@pytest.fixture(scope="module", params=["seka36", "georgian"])
def submitted(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
              ) -> Iterator[tuple[str, httpx.Client, dict[str, object]]]:
    """The stake-only bot submitted to a real service of that game: its client and the checked version."""
    folder = tmp_path_factory.mktemp(request.param)
    config = folder / "service.yaml"
    config.write_text(SEKA36 if request.param == "seka36" else GEORGIAN)
    with running(config) as server, httpx.Client(base_url=server.url, timeout=60.0) as client:
        author = token(config, "alice")
        archive = tar_gz([file("bot.yaml", MANIFEST), file("bot.py", STAKE_ONLY_BOT)])
        response = post_archive(client, "stake", archive, author)
        assert response.status_code == 201, response.text
        yield request.param, client, _checked(client, author) | {"token": author}


def test_a_service_checks_with_its_own_game(submitted: tuple[str, httpx.Client, dict[str, object]]) -> None:
    game, _, version = submitted
    report = str(version["report"]).splitlines()
    if game == "seka36":
        assert version["status"] == "accepted", version["report"]
        assert report[0] == ("-- rules: seka36 (stack 50, dark true, tie svara): ante and table stake 1, "
                             "1 pot a session, at most 200 actions a deal")
        assert any("dark" in line for line in report) and report[-1] == "conforms"
    else:
        assert version["status"] == "refused", version["report"]
        assert report[0].startswith("-- rules: georgian (deck 36, tie svara, dark false)")
        assert any(line.startswith("FAIL") and "support" in line for line in report), version["report"]


def test_the_game_is_in_the_api_and_on_every_page(submitted: tuple[str, httpx.Client, dict[str, object]]) -> None:
    game, client, version = submitted
    described = client.get("/api/game").json()
    assert described["profile"] == game and described["limits"]["decision_ms"] == 2000
    assert described["isolation"] in ("sandbox", "none")
    if game == "seka36":
        assert described["options"] == {"stack": "50", "dark": "true", "tie": "svara"}
        assert described["table"] == {"ante": "1", "opening_stake": "1", "max_bet": None, "pots": 1,
                                      "max_actions": 200, "seats": 2}
        assert described["check_bot"] == ("seka-arena check-bot --profile seka36 --stack 50 --dark true --tie svara "
                                          "--decision-ms 2000 --start-ms 10000 -- python3 bot.py")
    signed = httpx.Client(base_url=str(client.base_url), cookies={"seka_token": str(version["token"])})
    report = signed.get("/bots/stake/versions/1").text
    fails = str(version["report"]).count("\nFAIL")
    verdict = "conforms" if game == "seka36" else "does NOT conform"
    assert f"<summary>{verdict}: " in report and f", {fails} failed</summary>" in report
    assert ('<details id="check-report" open>' in report) == (game == "georgian")  # a refusal opens at once
    for page in ("/", "/bots", "/tournaments", "/upload", "/login", "/bots/stake"):
        html = client.get(page).text
        assert f'id="game">Game: <strong>{described["description"]}' in html, page
    upload = client.get("/upload").text
    assert f"<code>{described['check_bot']}</code>" in upload


def test_the_check_command_the_service_gives_passes_the_bot_it_accepts(
        submitted: tuple[str, httpx.Client, dict[str, object]]) -> None:
    """What an author is told to run first gives the verdict the service gives."""
    game, client, version = submitted
    with tempfile.TemporaryDirectory() as folder:  # readable by the sandbox's user, unlike pytest's tmp_path
        os.chmod(folder, 0o755)
        (Path(folder) / "bot.py").write_bytes(STAKE_ONLY_BOT)
        result = _check_locally(client.get("/api/game").json()["check_bot"], Path(folder))
    assert (result.returncode == 0) == (version["status"] == "accepted"), result.stdout + result.stderr
    # The same game, said the same (the table's pots and cap are the service's; check-bot plays its own deals).
    assert result.stdout.split(":")[:2] == str(version["report"]).split(":")[:2]


def _check_locally(command: str, folder: Path) -> subprocess.CompletedProcess[str]:
    words = shlex.split(command)
    assert words[:2] == ["seka-arena", "check-bot"] and words[-2:] == ["python3", "bot.py"]
    python = str(Path(SEKA_ARENA).parent / "python")  # the one with the SDK installed
    return subprocess.run([str(SEKA_ARENA), *words[1:-2], python, "bot.py"], cwd=folder, capture_output=True,
                          text=True, timeout=300)


def test_a_schedule_whose_tables_the_game_cannot_seat_is_refused(
        submitted: tuple[str, httpx.Client, dict[str, object]], tmp_path_factory: pytest.TempPathFactory) -> None:
    game, client, _ = submitted
    config = next(Path(str(tmp_path_factory.getbasetemp())).glob(f"{game}*/service.yaml"))
    organiser = token(config, "org", organiser=True)
    response = client.post("/api/schedules", headers=bearer(organiser),
                           json={"name": "triples", "cron": "0 2 * * *", "table_size": 3})
    if game == "seka36":
        assert response.status_code == 422
        assert response.json()["error"].startswith("table_size: profile 'seka36' seats 2 to 2 players, not 3")
    else:
        assert response.status_code == 201, response.text


async def test_a_failed_runs_message_shows_no_server_path_to_visitors(tmp_path: Path) -> None:
    """A scheduled run that failed printed the server's absolute path on public pages."""
    config = ServiceConfig(data=tmp_path / "data", isolation=Isolation.NONE, rules=profile("seka36"))
    service = open_service(config)
    service.store.ensure_schedule("nightly", "0 2 * * *", ScheduleConfig("nightly", "0 2 * * *").settings())
    run = service.store.claim_firing("nightly", "2030-01-01T02:00:00+00:00", name="nightly-20300101T0200")
    assert run is not None
    where = tmp_path / "data" / "tournaments" / run.name / "tournament.yaml"
    service.store.finish_run(run.id, status="failed", message=f"TournamentConfigError: {where}:7: table_size: 3")
    organiser = service.store.create_token("org", organiser=True)
    transport = httpx.ASGITransport(app=build_app(service))
    async with httpx.AsyncClient(transport=transport, base_url="http://arena") as client:
        for page in ("/tournaments", f"/tournaments/{run.name}", "/api/tournaments"):
            shown = (await client.get(page)).text
            assert "tournament.yaml:7: table_size: 3" in shown and str(tmp_path) not in shown, page
        signed = await client.get("/api/tournaments", headers=bearer(organiser))
        assert signed.json()["runs"][0]["message"] == f"TournamentConfigError: {where}:7: table_size: 3"
    service.store.close()


async def test_an_organiser_deletes_a_schedule_and_its_past_runs_stay(tmp_path: Path) -> None:
    nightly = ScheduleConfig("nightly", "0 2 * * *")
    config = ServiceConfig(data=tmp_path / "data", isolation=Isolation.NONE, schedules=(nightly,))
    service = open_service(config)
    service.store.ensure_schedule(nightly.name, nightly.cron, nightly.settings())  # as the scheduler does at start
    organiser, alice = (bearer(service.store.create_token(who, organiser=who == "org")) for who in ("org", "alice"))
    transport = httpx.ASGITransport(app=build_app(service))
    async with httpx.AsyncClient(transport=transport, base_url="http://arena") as client:
        made = await client.post("/api/schedules", headers=organiser, json={"name": "weekly", "cron": "0 3 * * 1"})
        assert made.status_code == 201, made.text
        run = service.store.claim_firing("weekly", "2030-01-07T03:00:00+00:00", name="weekly-20300107T0300")
        assert run is not None
        assert (await client.delete("/api/schedules/weekly", headers=alice)).status_code == 403
        in_play = await client.delete("/api/schedules/weekly", headers=organiser)
        assert in_play.status_code == 409 and "in play" in in_play.json()["error"]
        service.store.finish_run(run.id, status="finished")
        assert (await client.delete("/api/schedules/weekly", headers=organiser)).status_code == 204
        listed = (await client.get("/api/tournaments")).json()
        assert [schedule["name"] for schedule in listed["schedules"]] == ["nightly"]
        assert [past["name"] for past in listed["runs"]] == ["weekly-20300107T0300"]  # its results stay
        assert (await client.delete("/api/schedules/weekly", headers=organiser)).status_code == 404
        in_file = await client.delete("/api/schedules/nightly", headers=organiser)
        assert in_file.status_code == 409 and "service's file" in in_file.json()["error"]
        cookie = {"Cookie": f"seka_token={organiser['Authorization'].split()[1]}"}
        assert (await client.delete("/api/schedules/nightly", headers=cookie)).status_code == 403  # no Origin
        again = await client.post("/api/schedules", headers=organiser, json={"name": "weekly", "cron": "0 4 * * 1"})
        assert again.status_code == 201 and again.json()["cron"] == "0 4 * * 1"
        assert [schedule.name for schedule in service.store.schedules()] == ["nightly", "weekly"]
    service.store.close()
