"""What each reader sees, against the real app over a real store and ladder sessions played by real bot
processes: a visitor and an author without a bot at the table see a spectator's view (no folded,
unseen or compared hand, no seed, no bot's log), an author sees its own seat's view and its own bot's
logs, an organiser sees everything; on every profile, through every route that serves a session."""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import sqlite3
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import trio

from arena.engine import profile
from arena.history import read_history
from arena.isolation import Isolation
from arena.ratings import VALUE_FUNCTION, value_function_digest
from arena.service import (
    Author,
    Ladder,
    LadderConfig,
    ScheduleConfig,
    Scheduler,
    Service,
    ServiceConfig,
    build_app,
    fire_now,
    open_service,
)
from arena.service._challenges import plan_challenge
from arena.service._challenges import play as _challenges_play
from arena.service._playing import SessionPlayer
from arena.service._store import LadderSession, from_iso
from arena.tournament import block_seed

from ._archives import MANIFEST, ROOT, file, sample_archive, tar_gz

LOG_MARKER = "CHATTY-BOT-WROTE-THIS"
"""What alice's bot writes to its stderr at every turn, with its cards: its author's alone."""
_CHATTY = (ROOT / "sample_bots" / "random_bot.py").read_text().replace(
    "    run(RandomBot(args.seed), address=args.address)",
    "    run(ChattyBot(args.seed), address=args.address)",
) + f'''

class ChattyBot(RandomBot):
    def act(self, turn: Turn) -> Action:
        import sys
        sys.stderr.write("{LOG_MARKER} " + repr(turn.cards) + "\\n")
        sys.stderr.flush()
        return super().act(turn)
'''
_MAIN = '\n\nif __name__ == "__main__":\n    main()\n'
_CHATTY = _CHATTY.replace(_MAIN, "") + _MAIN  # the subclass is defined before main() runs

_PROFILES = [("georgian", {"dark": "true"}, 3), ("classic", {"open": "multiway", "dark": "true"}, 3),
             ("seka36", {}, 2), ("svara32", {}, 2), ("seka21", {}, 2)]


@dataclass
class Arena:
    service: Service
    tokens: dict[str, str]
    """A token by reader: org (an organiser), alice, bob and carol (each with a bot), dave (none)."""
    seats: dict[str, str]
    """Each bot's author, by bot name."""


def _open(data: Path, name: str, options: dict[str, str], table_size: int,
          schedules: tuple[ScheduleConfig, ...] = (), clock: Callable[[], float] = time.time,
          secret_days: int = 7) -> Arena:
    rules = profile(name, options).with_table(pots_per_session=6)
    config = ServiceConfig(data=data, isolation=Isolation.NONE, rules=rules, schedules=schedules,
                           ladder=LadderConfig(placement_blocks=1, random_share=0.0, table_size=table_size,
                                               secret_days=secret_days))
    service = open_service(config, clock=clock)
    bots = {"chatty": "alice", "rb": "bob", "rc": "carol"}
    archives = {"chatty": tar_gz([file("bot.py", _CHATTY.encode()), file("bot.yaml", MANIFEST)])}
    for bot, author in list(bots.items())[:table_size]:
        version = service.registry.submit(Author(author, organiser=False), bot,
                                          archives.get(bot) or sample_archive("random"))
        service.store.finish_check(version.id, accepted=True, report="not checked: a views test", stderr="")
    tokens = {reader: service.store.create_token(reader, organiser=reader == "org")
              for reader in ("org", "alice", "bob", "carol", "dave")}
    return Arena(service, tokens, bots)


async def _play_block(arena: Arena) -> list[str]:
    ladder = Ladder(arena.service, rng=random.Random(1))
    block = ladder.next_block()
    assert block is not None
    for session in block:
        await ladder.play(session)
    return [session.id for session in block]


@dataclass(frozen=True)
class Hand:
    deal: int
    seat: int
    cards: tuple[str, ...]

    def shown_in(self, body: str) -> bool:
        """Whether a page or an account holds this hand as the viewer or the account write one."""
        return (json.dumps(list(self.cards), separators=(",", ":")) in body
                or " ".join(self.cards) in body)


def _hands(records: list[dict[str, Any]]) -> list[Hand]:
    return [Hand(number, int(seat), tuple(cards)) for number, record in enumerate(records)
            if record["event"] == "deal" for seat, cards in record["hands"].items()]


def may_see(records: list[dict[str, Any]], seat: int | None) -> set[Hand]:
    """The hands a reader at `seat` may see (None: an organiser, every hand; -1: a spectator): its own
    once it saw them, the hands turned over at a showdown or a reveal, a comparison's two hands if it
    was one of them. Written from docs/history.md apart from the arena's code, to check it."""
    seen: set[Hand] = set()
    deal: dict[int, Hand] = {}
    for number, record in enumerate(records):
        kind = record["event"]
        if kind == "deal":
            deal = {int(key): Hand(number, int(key), tuple(cards)) for key, cards in record["hands"].items()}
            if seat in deal and seat not in record.get("unseen", []):
                seen.add(deal[seat])
        elif kind == "look" and record["seat"] == seat:
            seen.add(deal[seat])
        elif kind in ("showdown", "reveal") or (kind == "comparison" and seat in (record["opener"], record["target"])):
            seen.update(deal[int(key)] for key in record["hands"])
    return set(_hands(records)) if seat is None else seen


def _client(arena: Arena, reader: str | None) -> httpx.AsyncClient:
    cookies = {"seka_token": arena.tokens[reader]} if reader else {}
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=build_app(arena.service)), base_url="http://arena",
                             cookies=cookies, follow_redirects=True)


_VIEWER_DATA = re.compile(r'<script type="application/json" id="replay-data">(.*?)</script>', re.S)


def _viewer_steps(page: str) -> list[dict[str, Any]]:
    match = _VIEWER_DATA.search(page)
    assert match is not None, "no replay data in the viewer's page"
    steps: list[dict[str, Any]] = json.loads(match.group(1))["steps"]
    return steps


async def _bodies(client: httpx.AsyncClient, session: str) -> tuple[str, str]:
    """The session's account page and its replay viewer's page, as this reader gets them."""
    account = await client.get(f"/sessions/{session}")
    viewer = await client.get(f"/sessions/{session}/viewer")
    assert account.status_code == viewer.status_code == 200, (account.text, viewer.text)
    return account.text, viewer.text


@dataclass
class Played:
    arena: Arena
    sessions: list[str]
    """The ladder block's sessions, in play order."""


@pytest.fixture(scope="module", params=_PROFILES,
                ids=[f"{name}-{'-'.join(f'{k}={v}' for k, v in options.items()) or 'default'}"
                     for name, options, _ in _PROFILES])
def played(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Played]:
    """A service of the profile with one ladder block played by real bots (once for the module)."""
    name, options, table_size = request.param
    arena = _open(tmp_path_factory.mktemp(name) / "data", name, options, table_size)
    sessions = trio.run(_play_block, arena)
    yield Played(arena, sessions)
    arena.service.store.close()


async def test_every_reader_sees_its_own_view_of_the_ladders_sessions(played: Played) -> None:
    arena, sessions = played.arena, played.sessions
    store = arena.service.store
    secret_to_spectators = compared = mixed = 0
    for session_id in sessions:
        session = store.ladder_session(session_id)
        assert session is not None and session.history_path is not None
        records = read_history(arena.service.config.data / session.history_path)
        seat_of = {arena.seats[store.version_by_id(version).bot]: seat for seat, version in enumerate(session.seating)}
        every = set(_hands(records))
        compared += sum(record["event"] == "comparison" for record in records)
        for reader in (None, "dave", "alice", "bob", "carol", "org"):
            async with _client(arena, reader) as client:
                account, viewer = await _bodies(client, session_id)
            view = None if reader == "org" else seat_of.get(reader or "", -1)
            allowed = may_see(records, view)
            leaked = {hand for hand in every - allowed if hand.shown_in(account) or hand.shown_in(viewer)}
            assert leaked == set(), f"{reader or 'a visitor'} sees {len(leaked)} hands of {session_id} not theirs"
            # What a reader may see is there: the viewer holds every hand of its view.
            assert all(hand.shown_in(viewer) for hand in allowed), reader
            shown_seed = records[0]["seed"] in account + viewer
            assert shown_seed == (reader == "org"), reader
            # A mixed reply's distribution and draw are its seat's author's and the organisers' alone: the
            # viewer's step of each record says so or not, and the account tells exactly the reader's own
            # (matched by step and by count: two draws may agree to the places a page shows).
            steps = {step["record"]: step["text"] for step in _viewer_steps(viewer)}
            own = 0
            for number, record in enumerate(records, start=1):
                if "mix" in record:
                    mine = view is None or view == record["seat"]
                    assert ("drawn by the arena, at " in steps[number]) == mine, (reader, record)
                    assert not mine or f"(drawn {record['draw']:.6f} from: " in account, (reader, record)
                    own += mine
                    mixed += 1
            assert account.count("(drawn ") == own, reader
            assert LOG_MARKER not in account + viewer  # a log is linked from the pages of those it belongs to
            if "alice" in seat_of:
                async with _client(arena, reader) as client:
                    log = await client.get(f"/bots/chatty/logs/{session_id}")
                assert (log.status_code, LOG_MARKER in log.text) == (
                    (200, True) if reader in ("org", "alice") else (403, False)), reader
            if reader is None:
                secret_to_spectators += len(every - allowed)
    # The sessions held secrets to keep: hands folded or never shown, and the random bots' distributions.
    assert secret_to_spectators > 0 and mixed > 0
    if arena.service.config.rules.name == "classic":
        assert compared > 0, "no multiway comparison to check: play more pots"


@pytest.mark.parametrize(("name", "options", "table_size"), _PROFILES,
                         ids=[f"{name}-{'-'.join(f'{k}={v}' for k, v in options.items()) or 'default'}"
                              for name, options, _ in _PROFILES])
async def test_a_challenges_sessions_have_pages_and_a_viewer_in_the_challengers_seats_view_only(
        tmp_path: Path, name: str, options: dict[str, str], table_size: int) -> None:
    arena = _open(tmp_path / "data", name, options, table_size)  # not the module's: it lists no challenge
    service, store = arena.service, arena.service.store
    challenge = plan_challenge(service, Author("alice", organiser=False),
                               {"bot": "chatty", "opponents": ["rb", "rc"][:table_size - 1]})
    async with SessionPlayer(service) as playing:  # as the ladder's process plays them, here
        for session in store.challenge_sessions(challenge.id):
            await _challenges_play(service, session, playing)
    finished = store.challenge_sessions(challenge.id)
    hidden = 0
    for session in finished:
        assert session.history_path is not None
        records = read_history(service.config.data / session.history_path)
        every = set(_hands(records))
        challenger = session.seating.index(challenge.players[0])
        for reader in ("alice", "org"):
            async with _client(arena, reader) as client:
                account, viewer = await _bodies(client, session.id)
                view = None if reader == "org" else challenger
                allowed = may_see(records, view)
                leaked = {hand for hand in every - allowed if hand.shown_in(account) or hand.shown_in(viewer)}
                assert leaked == set(), f"{reader} sees {len(leaked)} hands of {session.id} not theirs"
                assert all(hand.shown_in(viewer) for hand in allowed), reader
                assert (records[0]["seed"] in account + viewer) == (reader == "org"), reader
                hidden += len(every - allowed)
                pages = (await client.get(f"/challenges/{challenge.id}")).text
                assert f'href="/sessions/{session.id}"' in pages and f'href="/sessions/{session.id}/viewer"' in pages
                if reader == "alice":
                    assert f'href="/sessions/{session.id}/viewer"' in (await client.get("/bots/chatty")).text
                    seat_page = (await client.get(f"/sessions/{session.id}/viewer", follow_redirects=False)
                                 ).headers["location"]
                    assert seat_page.startswith("/challenges/replays/full/"), seat_page
        # Anyone else, at the table or not: the challenge and its sessions do not exist for them.
        for reader in (None, "dave", "bob", "carol"):
            async with _client(arena, reader) as client:
                for url in (f"/sessions/{session.id}", f"/sessions/{session.id}/viewer", seat_page,
                            seat_page.replace("/full/", "/public/"),
                            f"/challenges/replays/full/sessions/{session.id}.html"):
                    assert (await client.get(url)).status_code == 404, (reader, url)
    assert hidden > 0  # the challenger's view kept its opponents' unseen hands from it
    store.close()


async def test_the_results_api_lists_the_sessions_and_gives_each_reader_its_view_of_a_history(
        played: Played) -> None:
    arena, sessions = played.arena, played.sessions
    store = arena.service.store
    for reader in (None, "dave", "alice", "org"):
        async with _client(arena, reader) as client:
            listed = (await client.get("/api/sessions?bot=rb")).json()
            assert [session["id"] for session in listed["sessions"]] == sessions[::-1] and listed["next"] is None
            assert (await client.get("/api/sessions?bot=nobody")).status_code == 422
            assert (await client.get("/api/sessions?since=2100-01-01")).json() == {"sessions": [], "next": None}
            assert (await client.get("/api/sessions?limit=0")).status_code == 422
            pages, following = [], "/api/sessions?limit=1"
            while following is not None:  # newest first, one a page, each once
                page = (await client.get(following)).json()
                pages += [session["id"] for session in page["sessions"]]
                following = page["next"]
            assert pages == sessions[::-1]
    for session_id in sessions:
        session = store.ladder_session(session_id)
        assert session is not None and session.history_path is not None
        path = arena.service.config.data / session.history_path
        records = read_history(path)
        seat_of = {arena.seats[store.version_by_id(version).bot]: seat for seat, version in enumerate(session.seating)}
        every = set(_hands(records))
        for reader in (None, "dave", "alice", "bob", "carol", "org"):
            async with _client(arena, reader) as client:
                answer = await client.get(f"/api/sessions/{session_id}/history")
            assert answer.status_code == 200 and answer.headers["content-type"].startswith("application/jsonl")
            view = None if reader == "org" else seat_of.get(reader or "", -1)
            allowed = may_see(records, view)
            shown = {hand for hand in every if hand.shown_in(answer.text)}
            assert shown == allowed, f"{reader or 'a visitor'} is given other hands than its view's in {session_id}"
            assert [json.loads(line)["event"] for line in answer.text.splitlines()] == [r["event"] for r in records]
            assert (records[0]["seed"] in answer.text) == (reader == "org"), reader
            if reader == "org":
                assert answer.content == path.read_bytes()  # the history as written
    async with _client(arena, None) as client:
        assert (await client.get("/api/sessions/L999999-1/history")).status_code == 404


async def test_a_full_copy_is_served_only_to_those_it_belongs_to(played: Played) -> None:
    arena, first = played.arena, played.sessions[0]
    store = arena.service.store
    session = store.ladder_session(first)
    assert session is not None
    authors = [{"chatty": "alice", "rb": "bob", "rc": "carol"}[store.version_by_id(v).bot] for v in session.seating]
    for reader in ("org", *authors):  # their pages written first, so each exists when others ask for it
        async with _client(arena, reader) as client:
            await _bodies(client, first)
    pages = [f"full/sessions/{first}.html"] + [f"full/sessions/{first}.seat{seat}.html" for seat in range(len(authors))]
    logs = [path.relative_to(arena.service.config.data / "ladder" / "replays").as_posix()
            for path in (arena.service.config.data / "ladder" / "replays" / "full" / "logs").rglob("*.txt")]
    assert any("chatty" in log for log in logs)
    for reader in (None, "dave", *authors, "org"):
        async with _client(arena, reader) as client:
            for page in pages + logs + ["full/assets/replay.js", f"sessions/{first}.html", "../../service.sqlite",
                                        f"full/assets/../sessions/{first}.html"]:
                status = (await client.get(f"/ladder/replays/{page}")).status_code
                if page.startswith("full/assets/replay.js"):
                    want = 200
                elif page == f"sessions/{first}.html" or page.startswith(".."):
                    want = 404
                elif reader == "org":
                    want = 200
                elif (match := re.search(r"\.seat(\d)\.html$", page)) is not None:
                    want = 200 if authors[int(match.group(1))] == reader else 403
                elif page.startswith("full/logs/"):
                    owner = next(author for bot, author in arena.seats.items() if page.split("/")[-1].startswith(bot))
                    want = 200 if reader == owner else 403
                else:
                    want = 403
                assert status == want, (reader, page, status)


# --- scheduled tournaments: their published reports and their sessions ---------------------------------------


@pytest.mark.slow
async def test_a_tournaments_public_report_is_a_spectators_and_its_full_report_is_behind_sign_in(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A fixed secret for the runs: with a drawn one, some draws deal hands every one of which is shown
    # somewhere (mirrors share deals), leaving no hidden hand to look for (seen twice in CI).
    monkeypatch.setattr("arena.service._cron.secrets.token_hex", lambda _bytes=16: "9f1c2ab47e03d5c88b61f0e2a4d7c935")
    schedules = (ScheduleConfig("cup", "0 2 * * *", table_size=3),
                 ScheduleConfig("open", "0 3 * * *", table_size=3, publish="organiser"))
    later = [0.0]
    arena = _open(tmp_path / "data", "classic", {"open": "multiway"}, 3, schedules,
                  clock=lambda: time.time() + later[0])
    scheduler = Scheduler(arena.service)
    later[0] = 120.0  # a minute after the schedules were made: they may fire
    runs = {}
    for schedule in ("cup", "open"):
        run = fire_now(arena.service.store, schedule)
        assert run is not None
        await scheduler.play(run)
        runs[schedule] = arena.service.store.run(run.id)
        assert runs[schedule].status == "finished", runs[schedule].message
    for schedule, run in runs.items():
        results = arena.service.config.data / "tournaments" / run.name / "results" / run.name
        histories = sorted((results / "histories").glob("*.jsonl"))
        records = {path.stem: read_history(path) for path in histories}
        # Mirrors share their deals: a hand folded in one may be shown at a showdown of another, which
        # every spectator sees; the hands never shown in any session are the secrets to keep.
        shown = {hand.cards for session in records.values() for hand in may_see(session, -1)}
        hidden = {hand for session in records.values() for hand in set(_hands(session)) - may_see(session, -1)
                  if hand.cards not in shown}
        assert hidden
        full = sorted(path.relative_to(results / "report").as_posix()
                      for path in (results / "report").rglob("*") if path.is_file())
        assert any(path.startswith("logs/") for path in full) and any(".seat1." in path for path in full)
        for reader in (None, "dave", "alice", "org"):
            async with _client(arena, reader) as client:
                bodies = {}
                for path in full:  # every file of the full report, asked for through both routes
                    for route in ("report", "full-report"):
                        answer = await client.get(f"/tournaments/{run.name}/{route}/{path}")
                        if answer.status_code == 200:
                            bodies[f"{route}/{path}"] = answer.text
                        else:
                            assert answer.status_code in (403, 404), (route, path, answer.status_code)
                for session in records:
                    account = await client.get(f"/sessions/{session}?tournament={run.name}")
                    viewer = await client.get(f"/sessions/{session}/viewer?tournament={run.name}")
                    bodies[f"account {session}"], bodies[f"viewer {session}"] = account.text, viewer.text
            text = "\n".join(bodies.values())
            if reader == "org":
                assert set(full) <= {path.partition("/")[2] for path in bodies if path.startswith("full-report/")}
                assert all(hand.shown_in(text) for hand in hidden) and LOG_MARKER in text
                continue
            assert LOG_MARKER not in text if reader != "alice" else LOG_MARKER in text, reader
            assert "report/index.html" in bodies and "report/crosstable.html" in bodies
            if reader == "alice":  # her own seat's pages and her bot's logs; no other seat's, no organiser's page
                mine = {path for path in bodies if path.startswith("full-report/")}
                assert mine and all(".seat" in path or "/logs/" in path or "/assets/" in path for path in mine)
                continue
            assert not any(path.startswith("full-report/") and "/assets/" not in path for path in bodies), reader
            public_text = "\n".join(body for path, body in bodies.items() if not path.startswith("report/"))
            assert not [hand for hand in hidden if hand.shown_in(public_text)], reader
            published = [hand for hand in hidden if hand.shown_in(text)]
            # The organiser's view is published once over when the schedule says so; else never.
            assert (len(published) == len(hidden)) if schedule == "open" else not published, (reader, schedule)
    arena.service.store.close()


# --- the ladder's deal secrets: one per period, committed before, revealed after ----------------------------


async def test_the_ladders_secret_changes_each_period_committed_before_and_revealed_after(tmp_path: Path) -> None:
    now = [from_iso("2026-03-02T10:00:00+00:00")]
    arena = _open(tmp_path / "data", "georgian", {}, 2, clock=lambda: now[0], secret_days=1)
    service = arena.service
    ladder = Ladder(service, rng=random.Random(1))

    async def secrets() -> list[dict[str, str | None]]:
        async with _client(arena, None) as client:
            found: list[dict[str, str | None]] = (await client.get("/api/ladder")).json()["secrets"]
            assert "Deal secrets" in (await client.get("/")).text
        return found

    async def play(block: list[LadderSession]) -> None:
        for session in block:
            await ladder.play(session)

    ladder.secret(now[0])  # as the ladder does when it starts
    committed = await secrets()
    assert [(s["start"], s["end"], s["secret"]) for s in committed] == [
        ("2026-03-03T00:00:00+00:00", "2026-03-04T00:00:00+00:00", None),  # the next period's, published now
        ("2026-03-02T00:00:00+00:00", "2026-03-03T00:00:00+00:00", None)]
    first = ladder.next_block()
    assert first is not None
    await play(first)
    second = ladder.next_block()  # planned in the same period, left unplayed over its end
    assert second is not None
    now[0] = from_iso("2026-03-03T09:00:00+00:00")
    assert [s["secret"] for s in await secrets()] == [None, None]  # over, but block 2 is still to play
    third = ladder.next_block(skip={second[0].block})  # the new period's secret deals it
    assert third is not None
    await play(second)
    shown = await secrets()
    assert [(s["start"], s["secret"] is not None) for s in shown] == [
        ("2026-03-04T00:00:00+00:00", False), ("2026-03-03T00:00:00+00:00", False),
        ("2026-03-02T00:00:00+00:00", True)]
    revealed = shown[-1]["secret"]
    # The commitment binds the value function the ladder chooses tables with (docs/tournaments.md, step 2).
    q = committed[1]["value_function"]
    assert q == {"name": VALUE_FUNCTION, "sha256": value_function_digest()}
    text = f"seka-arena/2|q|{q['name']}|{q['sha256']}|deals|-|{revealed}"
    assert revealed is not None and hashlib.sha256(text.encode()).hexdigest() == committed[1]["commitment"]
    # Anyone can now re-derive the seed of every session of that period, and the seeds of the next
    # period's blocks are another secret's.
    for block in (first, second, third):
        table = tuple(str(seat) for seat in block[0].seating)
        for session in block:
            stored = service.store.ladder_session(session.id)
            assert stored is not None
            derived = block_seed(revealed, table, block[0].block) == stored.seed
            assert derived == (block is not third), session.id
    await play(third)
    now[0] = from_iso("2026-03-04T00:00:00+00:00")
    assert [s["secret"] is not None for s in await secrets()] == [False, True, True]
    # A secret a service drew before the commitment bound the value function: none shown, and its commitment
    # stays the SHA-256 of the secret alone (form 1).
    service.store.set_setting("ladder_secret:2026-03-01T00:00:00+00:00", "5e" * 16)
    old = (await secrets())[-1]
    assert old["value_function"] is None and old["commitment"] == hashlib.sha256(("5e" * 16).encode()).hexdigest()
    service.store.close()


async def test_a_service_upgraded_to_another_value_function_mid_period_shows_when_beside_the_commitment(
        tmp_path: Path) -> None:
    now = [from_iso("2026-03-02T10:00:00+00:00")]
    arena = _open(tmp_path / "data", "georgian", {}, 2, clock=lambda: now[0], secret_days=1)
    service = arena.service
    ladder = Ladder(service, rng=random.Random(1))
    # The current and next periods' secrets drawn by a service of another value function (an older release).
    older = f"hindsight/0 {'0a' * 32}"
    for period in ("2026-03-02T00:00:00+00:00", "2026-03-03T00:00:00+00:00"):
        service.store.secret(f"ladder_secret:{period}", beside={f"ladder_value_function:{period}": older})
    ladder.secret(now[0])  # this service plans a block in the period
    now[0] = from_iso("2026-03-02T11:00:00+00:00")
    ladder.secret(now[0])  # and another: the change is recorded once, when it was first seen
    async with _client(arena, None) as client:
        shown = (await client.get("/api/ladder")).json()["secrets"]
        page = (await client.get("/")).text
    q = {"name": VALUE_FUNCTION, "sha256": value_function_digest()}
    assert [(s["start"], s["value_function"]["name"], s["value_function_changes"]) for s in shown] == [
        ("2026-03-03T00:00:00+00:00", "hindsight/0", []),  # not yet in play: nothing valued with it
        ("2026-03-02T00:00:00+00:00", "hindsight/0", [{"from": "2026-03-02T10:00:00+00:00", **q}])]
    assert "changed during the period" in page and q["sha256"] in page
    # A period this service drew itself shows no change.
    now[0] = from_iso("2026-03-05T10:00:00+00:00")
    ladder.secret(now[0])
    async with _client(arena, None) as client:
        shown = (await client.get("/api/ladder")).json()["secrets"]
    assert [s["value_function_changes"] for s in shown[:2]] == [[], []]
    service.store.close()


# --- the results API over scheduled tournaments -------------------------------------------------------------


@pytest.mark.parametrize(("name", "options", "table_size"), [_PROFILES[0], _PROFILES[2]], ids=["georgian", "seka36"])
async def test_the_results_api_lists_the_tournaments_sessions_and_gives_each_reader_the_view_its_pages_give(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, options: dict[str, str], table_size: int) -> None:
    # A fixed secret, as above: a drawn one may deal no hand that stays hidden in every session.
    monkeypatch.setattr("arena.service._cron.secrets.token_hex", lambda _bytes=16: "9f1c2ab47e03d5c88b61f0e2a4d7c935")
    schedules = (ScheduleConfig("cup", "0 2 * * *", table_size=table_size),
                 ScheduleConfig("open", "0 3 * * *", table_size=table_size, publish="organiser"))
    later = [0.0]
    arena = _open(tmp_path / "data", name, options, table_size, schedules, clock=lambda: time.time() + later[0])
    scheduler = Scheduler(arena.service)
    ladder = [(None, session) for session in await _play_block(arena)]  # listed among them, by finish time
    later[0] = 120.0
    played: dict[tuple[str, str], Path] = {}  # each session's history, by (run, session id)
    for schedule in ("cup", "open"):
        run = fire_now(arena.service.store, schedule)
        assert run is not None
        await scheduler.play(run)
        assert arena.service.store.run(run.id).status == "finished"
        histories = arena.service.config.data / "tournaments" / run.name / "results" / run.name / "histories"
        played.update({(run.name, path.stem): path for path in histories.glob("*.jsonl")})
    # The two runs play sessions of the same ids: only the run tells them apart.
    assert len({session for _, session in played}) < len(played)
    hidden = 0
    for reader in (None, "dave", "alice", "bob", "org"):
        async with _client(arena, reader) as client:
            listed = (await client.get("/api/sessions?bot=rb")).json()
            assert listed["next"] is None
            rows = {(row.get("tournament"), row["id"]): row for row in listed["sessions"]}
            assert list(rows)[-len(ladder):] == ladder[::-1], reader  # played first, listed last
            assert set(rows) == set(played) | set(ladder) and len(listed["sessions"]) == len(rows), reader
            assert all((row["kind"] == "tournament") == (key in played) and row["rated"] == (key not in played)
                       for key, row in rows.items())
            finished = [row["finished_at"] for row in listed["sessions"]]
            assert finished == sorted(finished, reverse=True)
            pages, following = [], "/api/sessions?bot=chatty&limit=1"
            while following is not None:  # one a page, each once, though ids repeat across runs
                page = (await client.get(following)).json()
                pages += [(row.get("tournament"), row["id"]) for row in page["sessions"]]
                following = page["next"]
            assert pages == list(rows), reader
            for (run_name, session_id), path in played.items():
                records = read_history(path)
                seat_of = {arena.seats[seat["bot"]]: number for number, seat in enumerate(records[0]["seats"])}
                view = None if reader == "org" else seat_of.get(reader or "", -1)
                answer = await client.get(rows[run_name, session_id]["history"])
                assert answer.status_code == 200 and answer.headers["content-type"].startswith("application/jsonl")
                every = set(_hands(records))
                allowed = may_see(records, view)
                # The session's pages' view, whatever the run publishes in its report: a visitor never
                # gets more than a spectator's, and the seed is the organisers' alone.
                assert {hand for hand in every if hand.shown_in(answer.text)} == allowed, (reader, run_name)
                assert (records[0]["seed"] in answer.text) == (reader == "org"), reader
                if reader == "org":
                    assert answer.content == path.read_bytes()
                if reader is None:
                    hidden += len(every - allowed)
            first_run, first = next(iter(played))
            for url in (f"/api/sessions/{first}/history", f"/api/sessions/{first}/history?tournament=nope",
                        f"/api/sessions/..%2F{first}/history?tournament={first_run}"):
                assert (await client.get(url)).status_code == 404, url
    assert hidden > 0

    # A run's results file is read once while it is unchanged: the same file (inode, size, time) with other
    # bytes is listed as first read; a file that changed (a session's result taken out) is read again.
    async with _client(arena, "org") as client:
        async def listed() -> set[tuple[str | None, str]]:
            page = (await client.get("/api/sessions?limit=500")).json()
            return {(row.get("tournament"), row["id"]) for row in page["sessions"]}

        everything = await listed()
        cup, other = sorted({run for run, _ in played})
        garbled, changed = (arena.service.config.data / "tournaments" / run / "results" / run / "tournament.sqlite"
                            for run in (other, cup))
        status, size = garbled.stat(), garbled.stat().st_size
        with open(garbled, "r+b") as rewrite:
            rewrite.write(b"\0" * size)
        os.utime(garbled, ns=(status.st_atime_ns, status.st_mtime_ns))
        assert await listed() == everything
        dropped = next(session for run, session in sorted(played) if run == cup)
        with sqlite3.connect(changed) as connection:
            connection.execute("DELETE FROM sessions WHERE id = ?", (dropped,))
        connection.close()
        assert await listed() == everything - {(cup, dropped)}
    arena.service.store.close()
