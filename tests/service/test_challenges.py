"""Unrated challenges on a real store with real bots and the real ladder: every request checked, seen by
its challenger and the organisers only, rate-limited, played beside the ladder, never rated; and the
results API's listing of them."""

from __future__ import annotations

import os
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest
import trio

from arena.engine import profile
from arena.history import read_history, write_history
from arena.isolation import Isolation, ProcessLimits
from arena.service import Author, Ladder, LadderConfig, Quotas, Service, ServiceConfig, build_app, open_service
from arena.service._board import fit_ladder
from arena.service._challenges import MAX_BOT_FAILURES, challenge_json, plan_challenge
from arena.storage import AlreadyWrittenError
from arena.tournament import BotLimits

from .._launch import path_without_prlimit
from ._archives import MANIFEST, file, sample_archive, tar_gz

T = TypeVar("T")
_PROFILES = ["georgian", "seka36"]
_BOTS = (("call", "alice", "call"), ("call", "alice", "random"), ("threshold", "alice", "threshold"),
         ("minimal", "bob", "minimal"))
"""(bot, author, sample archive): alice's `call` has two versions, v1 the call bot and v2 the random one."""


def _open(data: Path, name: str) -> tuple[Service, dict[str, str]]:
    config = ServiceConfig(data=data, isolation=Isolation.NONE, rules=profile(name).with_table(pots_per_session=1),
                           quotas=Quotas(challenges_per_day=3, challenge_blocks=2),
                           ladder=LadderConfig(placement_blocks=1, random_share=0.0))
    service = open_service(config)
    for bot, author, archive in _BOTS:
        version = service.registry.submit(Author(author, organiser=False), bot, sample_archive(archive))
        service.store.finish_check(version.id, accepted=True, report="not checked: a challenge test", stderr="")
    tokens = {reader: service.store.create_token(reader, organiser=reader == "org")
              for reader in ("org", "alice", "bob")}
    return service, tokens


def _client(service: Service, token: str | None = None) -> httpx.AsyncClient:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=build_app(service)), base_url="http://arena",
                             headers=headers)


async def _until(what: str, check: Callable[[], T | None], *, timeout: float = 240.0) -> T:
    with trio.move_on_after(timeout):
        while not (value := check()):
            await trio.sleep(0.05)
        return value
    raise AssertionError(f"timed out waiting for {what}")


_REFUSED: list[tuple[dict[str, Any], str]] = [
    ({"bot": "minimal", "opponents": ["threshold"]}, "another author's bot"),
    ({"bot": "call", "opponents": []}, "opponents: a list of one or more names"),
    ({"bot": "call", "opponents": "threshold"}, "opponents: a list of one or more names"),
    ({"bot": "call", "opponents": ["minimal.v1"]}, "only your own bots' versions may be named"),
    ({"bot": "call", "opponents": ["sample:nope"]}, "no sample bot 'sample:nope'"),
    ({"bot": "call", "opponents": ["call"]}, "call.v2 is already at the table"),
    ({"bot": "call", "opponents": ["call.v9"]}, "bot 'call' has no version 'call.v9'"),
    ({"bot": "call", "opponents": ["nobody"]}, "no bot 'nobody'"),
    ({"bot": "sample:random", "opponents": ["minimal"]}, "the challenger is one of your own bots"),
    ({"bot": "call", "opponents": ["threshold"], "blocks": 3}, "blocks: an integer from 1 to 2"),
    ({"bot": "call", "opponents": ["threshold"], "blocks": True}, "blocks: an integer from 1 to 2"),
    ({"bot": "call", "opponents": ["threshold"], "rated": True}, "unknown field 'rated'"),
    ({"bot": "call", "opponents": ["minimal", "threshold", "call.v1", "sample:random", "sample:call",
                                   "sample:strong"]}, "make a table of 7"),
]


@pytest.mark.parametrize("name", _PROFILES)
async def test_a_challenge_is_checked_played_beside_the_ladder_seen_by_its_challenger_and_never_rated(
        tmp_path: Path, name: str) -> None:
    service, tokens = _open(tmp_path / "data", name)
    store = service.store
    async with _client(service) as visitor, _client(service, tokens["alice"]) as alice, \
            _client(service, tokens["bob"]) as bob, _client(service, tokens["org"]) as org:
        anonymous = await visitor.post("/api/challenges", json={"bot": "call", "opponents": ["minimal"]})
        assert anonymous.status_code == 401
        for body, said in _REFUSED:
            refused = await alice.post("/api/challenges", json=body)
            assert refused.status_code == 422 and said in refused.json()["error"], (body, refused.text)
        assert (await alice.post("/api/challenges", content=b"[1")).status_code == 422
        assert store.challenge(1) is None  # nothing refused was stored

        # Her own other bot is a fair opponent in an unrated challenge; the ladder never seats them together.
        made = [await alice.post("/api/challenges", json=body) for body in (
            {"bot": "call", "opponents": ["threshold"]}, {"bot": "call.v1", "opponents": ["sample:random"]},
            {"bot": "threshold", "opponents": ["minimal"], "blocks": 1})]
        assert [(answer.status_code, answer.json(), answer.headers["location"]) for answer in made] == [
            (201, {"id": number}, f"/api/challenges/{number}") for number in (1, 2, 3)]
        over = await alice.post("/api/challenges", json={"bot": "call", "opponents": ["minimal"]})
        assert over.status_code == 429 and "quotas.challenges_per_day" in over.json()["error"]
        assert 0 < int(over.headers["retry-after"]) <= 24 * 3600

        queued = await alice.get("/api/challenges/1")
        assert queued.status_code == 200 and queued.json()["status"] == "queued"
        assert queued.json()["players"] == ["call.v2", "threshold.v1"] and queued.json()["rated"] is False
        assert (await org.get("/api/challenges/1")).status_code == 200
        for reader, number in ((bob, 1), (visitor, 1), (alice, 99)):  # another's and none: the same answer
            hidden = await reader.get(f"/api/challenges/{number}")
            assert (hidden.status_code, hidden.json()) == (404, {"error": f"no challenge {number}"})

        async with trio.open_nursery() as nursery:
            nursery.start_soon(Ladder(service, rng=random.Random(1)).run)
            await _until("the challenges played", lambda: all(
                session.status == "finished" for number in (1, 2, 3) for session in store.challenge_sessions(number)))
            await _until("two ladder blocks played", lambda: store.finished_ladder_sessions() >= 4)
            nursery.cancel_scope.cancel()

        shown = (await alice.get("/api/challenges/1")).json()
        assert shown["status"] == "finished" and shown["rated"] is False
        assert [session["seats"] for session in shown["sessions"]] == [["call.v2", "threshold.v1"],
                                                                        ["threshold.v1", "call.v2"]]
        assert sum(int(total["chips"]) for total in shown["totals"]) == 0
        assert [total["sessions"] for total in shown["totals"]] == [2, 2]
        with_sample = (await org.get("/api/challenges/2")).json()
        assert with_sample["players"] == ["call.v1", "sample:random"] and with_sample["status"] == "finished"

        # The results API lists a challenge's sessions to its challenger and the organisers only.
        lists = {reader: [session["id"] for session in (await client.get("/api/sessions?bot=threshold")).json()[
            "sessions"]] for reader, client in (("visitor", visitor), ("alice", alice), ("bob", bob), ("org", org))}
        challenged = {"C000001-1-1", "C000001-1-2", "C000003-1-1", "C000003-1-2"}
        assert challenged <= set(lists["alice"]) and challenged <= set(lists["org"])
        assert not any(session.startswith("C") for session in lists["visitor"] + lists["bob"])
        assert lists["visitor"] == lists["bob"] == [session for session in lists["alice"] if session.startswith("L")]
        assert (await bob.get("/api/sessions/C000003-1-1/history")).status_code == 404  # bob's bot sat there
        assert (await visitor.get("/api/sessions/C000001-1-1/history")).status_code == 404
        history = await alice.get("/api/sessions/C000001-1-1/history")
        assert history.status_code == 200 and history.text.splitlines()[0].startswith('{"event":"session_start"')

    # Ratings read rated sessions only: the ladder's. The challenges seated alice's two bots together; the
    # ladder never does, so their pair is in no rating, and every count is the ladder's own.
    ladder = store.ladder_sessions()
    authors = {version.id: store.bot(version.bot).author for version in store.versions()}  # type: ignore[union-attr]
    assert all(len({authors[seat] for seat in session.seating}) == len(session.seating) for session in ladder)
    snapshot = store.ladder_snapshot()
    finished = [session for session in ladder if session.status == "finished"]
    assert snapshot.finished == len(finished) and not any(s.id.startswith("C") for s in snapshot.sessions)
    played: dict[str, int] = {}
    for session in finished:
        for seat in session.seating:
            played[str(seat)] = played.get(str(seat), 0) + 1
    assert fit_ladder(snapshot, resamples=10).played == played
    call, threshold = (store.version(bot, "latest") for bot in ("call", "threshold"))
    assert call is not None and threshold is not None
    pair = tuple(sorted((str(call.id), str(threshold.id))))
    assert pair not in store.ladder_standing().pairs
    fit = await service.board.refresh()  # the leaderboard's own worker process
    assert fit.played == played and fit.finished == len(finished)
    await service.board.aclose()

    # Histories are written once: the challenge's first session's is never replaced.
    session = store.challenge_session("C000001-1-1")
    assert session is not None and session.history_path is not None
    path = service.config.data / session.history_path
    assert path.parent == service.config.data / "challenges" / "histories"
    with pytest.raises(AlreadyWrittenError):
        write_history(path, [], once=True)
    assert read_history(path)[0]["event"] == "session_start"
    store.close()


async def test_the_bot_page_form_makes_a_challenge_from_the_sites_own_pages_only(tmp_path: Path) -> None:
    service, tokens = _open(tmp_path / "data", "georgian")

    def signed_in(reader: str, origin: str | None) -> httpx.AsyncClient:
        return httpx.AsyncClient(transport=httpx.ASGITransport(app=build_app(service)), base_url="http://arena",
                                 cookies={"seka_token": tokens[reader]},
                                 headers={"Origin": origin} if origin else {})

    form = {"opponents": "minimal, sample:threshold", "blocks": "2"}
    async with signed_in("alice", "http://arena") as alice, signed_in("alice", "http://evil.example") as forged, \
            signed_in("alice", None) as bare, signed_in("bob", "http://arena") as bob, _client(service) as visitor:
        page = (await alice.get("/bots/call")).text
        assert 'form id="challenge" method="post" action="/bots/call/challenge"' in page and "sample:strong" in page
        assert 'id="challenge"' not in (await bob.get("/bots/call")).text  # another author's bot: no form
        assert 'id="challenge"' not in (await visitor.get("/bots/call")).text
        for refused in (forged, bare):  # a cookie-signed form from another site, or from nowhere said
            answer = await refused.post("/bots/call/challenge", data=form)
            assert answer.status_code == 403 and "this site" in answer.text
        assert (await visitor.post("/bots/call/challenge", data=form, headers={"Origin": "http://arena"})
                ).status_code == 401
        wrong = await alice.post("/bots/call/challenge", data={"opponents": "nobody"})
        assert wrong.status_code == 422 and "no bot &#39;nobody&#39;" in wrong.text
        assert service.store.challenge(1) is None
        made = await alice.post("/bots/call/challenge", data=form)
        assert made.status_code == 303 and made.headers["location"] == "/challenges/1"
        shown = await alice.get("/challenges/1")
        assert shown.status_code == 200 and "call.v2 against minimal.v1 against sample:threshold" in shown.text
        assert "queued" in shown.text and 'href="/challenges/1"' in (await alice.get("/bots/call")).text
        assert (await bob.get("/challenges/1")).status_code == 404 and (await visitor.get("/challenges/1")
                                                                         ).status_code == 404
        assert len(service.store.challenge_sessions(1)) == 2 * 6  # two blocks of a three-seat table's mirrors
    service.store.close()



def _crashing(line: str) -> bytes:
    """A bot that writes `line` to its stderr and exits before it is ready (a program its start script needs
    is missing, say)."""
    return tar_gz([file("bot.py", f"import sys\nsys.stderr.write({line!r} + '\\n')\nsys.exit(127)\n".encode()),
                   file("bot.yaml", MANIFEST)])


async def test_a_challenge_its_bots_keep_from_playing_ends_failed_and_the_arenas_failures_are_never_counted(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = ServiceConfig(data=tmp_path / "data", isolation=Isolation.NONE,
                           rules=profile("georgian").with_table(pots_per_session=1),
                           limits=BotLimits(process=ProcessLimits(cpu_seconds=60)),  # prlimit in the launch chain
                           ladder=LadderConfig(placement_blocks=1, random_share=0.0, retry_seconds=0.5))
    service = open_service(config)
    store = service.store
    # alice's bots only: the ladder (two authors a table) plays nothing, the challenges whenever they are due.
    for bot, archive in (("crash", _crashing("sh: 1: ./engine: not found")),
                         ("crash2", _crashing("sh: 1: ./engine: not found")),
                         ("call", sample_archive("call")), ("gone", sample_archive("threshold"))):
        version = service.registry.submit(Author("alice", organiser=False), bot, archive)
        store.finish_check(version.id, accepted=True, report="not checked: a challenge test", stderr="")
    alice = Author("alice", organiser=False)
    shared, fine, arena, dropped = (plan_challenge(service, alice, body) for body in (
        {"bot": "crash", "opponents": ["crash2"]}, {"bot": "crash", "opponents": ["sample:call"]},
        {"bot": "call", "opponents": ["sample:random"]}, {"bot": "gone", "opponents": ["sample:random"]}))
    store.disqualify("gone", "a test: disqualified after its challenge was made")

    async def play(until: Callable[[], bool], what: str) -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(Ladder(service, rng=random.Random(1)).run)
            await _until(what, until, timeout=120)
            nursery.cancel_scope.cancel()

    def tries(challenge: int) -> int:
        return store.challenge_sessions(challenge)[0].attempts

    # The arena cannot start any bot (prlimit is not on its PATH): nothing is counted against the challenges.
    programs = path_without_prlimit(tmp_path)
    path = os.environ["PATH"]
    monkeypatch.setenv("PATH", programs)
    await play(lambda: tries(shared.id) >= 3 and tries(arena.id) >= 3, "three tries of the arena's failure")
    for challenge in (shared, arena):
        assert store.challenge(challenge.id).failed is None  # type: ignore[union-attr]
        assert [session.failures for session in store.challenge_sessions(challenge.id)] == [0, 0]
    monkeypatch.setenv("PATH", path)

    # The arena starts bots again: the crashing pair fails three times by its own doing and its challenge ends,
    # failed, its second session never played; a crash beside a bot that starts is that bot's faults, played.
    await play(lambda: all(challenge_json(store, store.challenge(challenge.id)  # type: ignore[arg-type]
                                          )["status"] in ("finished", "failed")
                           for challenge in (shared, fine, arena, dropped)), "every challenge ended")
    async with _client(service, store.create_token("alice", organiser=False)) as client:
        failed = (await client.get(f"/api/challenges/{shared.id}")).json()
        assert failed["status"] == "failed" and failed["failed_at"] is not None, failed
        assert failed["failed"] == ("session C000001-1-1: every bot failed to start with the same error (sh: 1: "
                                    "./engine: not found), while the arena starts its own sample bots: the bots' own "
                                    "failure")
        assert [(session["status"], session["failures"]) for session in failed["sessions"]] == [
            ("running", MAX_BOT_FAILURES), ("planned", 0)]
        assert [session.attempts for session in store.challenge_sessions(shared.id)][0] >= 3 + MAX_BOT_FAILURES
        played = (await client.get(f"/api/challenges/{fine.id}")).json()
        assert played["status"] == "finished" and played["totals"][0]["faults"] > 0
        assert (await client.get(f"/api/challenges/{arena.id}")).json()["status"] == "finished"
        refused = (await client.get(f"/api/challenges/{dropped.id}")).json()
        assert refused["status"] == "failed" and refused["sessions"][0]["failures"] == 1
        assert refused["failed"] == "gone.v1 was disqualified after the challenge was made: it plays no more"
        page = (await client.get(f"/challenges/{shared.id}")).text
        assert ">failed<" in page and "the bots&#39; own failure" in page
        listed = (await client.get("/bots/crash")).text
        assert "failed: session C000001-1-1: every bot failed to start" in listed

    # An organiser puts the failed challenge back in play (nobody else may, nor resume one that has not failed
    # or seats a disqualified bot): its failures count from zero, and it fails again after as many tries.
    async with _client(service) as visitor, _client(service, store.create_token("alice", organiser=False)) as author, \
            _client(service, store.create_token("org", organiser=True)) as organiser:
        assert (await visitor.post(f"/api/challenges/{shared.id}/resume")).status_code == 401
        assert (await author.post(f"/api/challenges/{shared.id}/resume")).status_code == 403
        assert (await organiser.post("/api/challenges/99/resume")).status_code == 404
        done = await organiser.post(f"/api/challenges/{fine.id}/resume")
        assert done.status_code == 409 and "has not failed" in done.text, done.text
        gone = await organiser.post(f"/api/challenges/{dropped.id}/resume")
        assert gone.status_code == 409 and "gone.v1 is disqualified" in gone.text, gone.text
        resumed = await organiser.post(f"/api/challenges/{shared.id}/resume")
        assert resumed.status_code == 200, resumed.text
        assert resumed.json()["status"] == "running" and resumed.json()["failed"] is None
        assert [session["failures"] for session in resumed.json()["sessions"]] == [0, 0]
        assert [(entry["failed"], entry["failed_at"], entry["resumed_by"]) for entry in resumed.json()["resumes"]
                ] == [(failed["failed"], failed["failed_at"], "org")]
        again = await organiser.post(f"/api/challenges/{shared.id}/resume")  # pending now
        assert again.status_code == 409 and "has not failed" in again.text
        assert "Resumed by the organiser org" in (await author.get(f"/challenges/{shared.id}")).text
    before = store.challenge_sessions(shared.id)[0].attempts
    await play(lambda: store.challenge(shared.id).failed is not None,  # type: ignore[union-attr]
               "the resumed challenge failed again")
    assert [session.failures for session in store.challenge_sessions(shared.id)] == [MAX_BOT_FAILURES, 0]
    assert store.challenge_sessions(shared.id)[0].attempts >= before + MAX_BOT_FAILURES
    assert len(store.challenge_resumes(shared.id)) == 1
    store.close()


async def test_ladder_bots_that_forge_a_launch_chain_line_are_charged_their_crashes_not_the_ladder_paused(
        tmp_path: Path) -> None:
    # Two authors' bots write a line of the launch chain's shape to their stderr and exit before they are ready:
    # every seat fails "for the same reason, the arena's", which paused the ladder for everyone (a stranger's
    # way to stop it). The arena starts its own sample bots meanwhile, so the failure is theirs: played, charged.
    config = ServiceConfig(data=tmp_path / "data", isolation=Isolation.NONE,
                           rules=profile("georgian").with_table(pots_per_session=1),
                           ladder=LadderConfig(placement_blocks=1, random_share=0.0, retry_seconds=0.5))
    service = open_service(config)
    store = service.store
    for bot, author in (("forger", "alice"), ("forger2", "bob")):
        version = service.registry.submit(Author(author, organiser=False), bot,
                                          _crashing("bwrap: execvp ./engine: No such file or directory"))
        store.finish_check(version.id, accepted=True, report="not checked: a ladder test", stderr="")

    def finished() -> list[Any]:
        return [session for session in store.ladder_sessions() if session.balances is not None]

    async with trio.open_nursery() as nursery:
        nursery.start_soon(Ladder(service, rng=random.Random(1)).run)
        played = await _until("a ladder session of the forgers played and charged", finished)
        nursery.cancel_scope.cancel()
    assert all(count > 0 for count in played[0].faults), played[0]
    assert all(reason.kind == "crash" for reasons in played[0].fault_reasons for reason in reasons), played[0]
    store.close()
