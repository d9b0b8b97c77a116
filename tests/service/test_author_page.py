"""Author pages: each of an author's bots with its standing, wins, chip rate and faults by kind (by reason too
for its author and the organisers, never for a visitor), its versions with their own results, and the
author's recent ladder sessions with their winners named; on every profile, over sessions played by real bot
processes through the real ladder and the real app."""

from __future__ import annotations

import random
import re
import statistics
import time
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction

import httpx
import pytest
import trio

from arena.engine import format_amount, profile
from arena.history import read_resources
from arena.isolation import Isolation
from arena.service import Author, Ladder, LadderConfig, Service, ServiceConfig, build_app, open_service

from ._archives import MANIFEST, file, sample_archive, tar_gz

_OVERBET = b'''"""Answers every turn with a bet no table allows: an illegal action, folded for it by the arena."""
from fractions import Fraction

from arena.sdk import Bet, Bot, run


class Overbet(Bot):
    name = "overbet"

    def act(self, turn):
        return Bet(Fraction(10 ** 6))


if __name__ == "__main__":
    run(Overbet())
'''
_PROFILES = [("georgian", {"dark": "true", "tie": "split"}), ("classic", {"open": "multiway"}), ("seka36", {}),
             ("svara32", {}), ("seka21", {})]


@dataclass
class Played:
    service: Service
    tokens: dict[str, str]
    """org, alice (the bot 'over'), bob (the bot 'rb')."""
    sessions: list[str]


async def _play_block(service: Service) -> list[str]:
    ladder = Ladder(service, rng=random.Random(1))
    block = ladder.next_block()
    assert block is not None
    for session in block:
        await ladder.play(session)
    await service.board.refresh()
    return [session.id for session in block]


@pytest.fixture(scope="module", params=_PROFILES, ids=[name for name, _ in _PROFILES])
def played(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Played]:
    """A heads-up service of the profile whose ladder played one block between alice's overbetting bot and
    bob's random bot; alice then submitted a second version, not played yet."""
    name, options = request.param
    config = ServiceConfig(data=tmp_path_factory.mktemp(name) / "data", isolation=Isolation.NONE,
                           rules=profile(name, options).with_table(pots_per_session=6),
                           ladder=LadderConfig(placement_blocks=1, random_share=0.0, table_size=2))
    service = open_service(config, clock=time.time)
    for author, bot, archive in (("alice", "over", tar_gz([file("bot.py", _OVERBET), file("bot.yaml", MANIFEST)])),
                                 ("bob", "rb", sample_archive("random"))):
        version = service.registry.submit(Author(author, organiser=False), bot, archive)
        service.store.finish_check(version.id, accepted=True, report="not checked: an author page test", stderr="")
    sessions = trio.run(_play_block, service)
    second = service.registry.submit(Author("alice", organiser=False), "over",
                                     tar_gz([file("bot.py", _OVERBET + b"# v2\n"), file("bot.yaml", MANIFEST)]))
    service.store.finish_check(second.id, accepted=True, report="not checked: an author page test", stderr="")
    tokens = {reader: service.store.create_token(reader, organiser=reader == "org") for reader in ("org", "alice",
                                                                                                   "bob")}
    yield Played(service, tokens, sessions)
    service.store.close()


async def _page(played: Played, reader: str | None, path: str) -> httpx.Response:
    cookies = {"seka_token": played.tokens[reader]} if reader else {}
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=build_app(played.service)),
                                 base_url="http://arena", cookies=cookies) as client:
        return await client.get(path)


def _text(html: str) -> str:
    """The page's words, tags dropped and spaces joined (what a reader sees, near enough)."""
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


async def test_an_authors_page_shows_each_bots_results_and_faults(played: Played) -> None:
    store = played.service.store
    first, second = store.versions("over")
    finished = [store.ladder_session(session) for session in played.sessions]
    faults = reasons = 0
    seen_reasons = set()
    balances: list[Fraction] = []
    won = 0
    for session in finished:
        assert session is not None and session.balances is not None and session.fault_reasons is not None
        seat = session.seating.index(first.id)
        faults += session.faults[seat] if session.faults else 0
        reasons += sum(reason.count for reason in session.fault_reasons[seat])
        seen_reasons |= {reason.reason for reason in session.fault_reasons[seat]}
        balances.append(session.balances[seat])
        won += session.balances[seat] == max(session.balances)
    # The overbetting bot's every turn is an illegal action, each stored with the arena's reason.
    assert faults > 0 and reasons == faults and seen_reasons
    rate = sum(balances, Fraction(0)) / len(balances)
    for reader in (None, "bob", "alice", "org"):
        response = await _page(played, reader, "/authors/alice")
        assert response.status_code == 200, response.text
        page, words = response.text, _text(response.text)
        assert f"In its last 2 finished ladder sessions: {won} won" in words
        assert f'title="exactly {format_amount(rate)}">{float(rate):+.2f}</span> per session' in page
        assert f"{faults} faults (illegal {faults})" in words
        # Versions with their own results: v2 has played nothing yet, v1 both sessions with its faults.
        assert re.search(rf"v2 accepted .*? UTC 0 {second.sha256[:12]}", words), words
        assert re.search(rf"v1 accepted .*? UTC 2 {won} of 2 [+-]\d+\.\d\d {faults} faults \(illegal {faults}\)",
                         words), words
        may_read = reader in ("alice", "org")
        assert all((reason in page) == may_read for reason in seen_reasons), reader
        assert ("are its author's to read" in page) == (not may_read)
        # Recent sessions name their winner plainly.
        for session in finished:
            assert session is not None and session.balances is not None
            best = max(session.balances)
            named = [store.version_by_id(version).label for version, balance
                     in zip(session.seating, session.balances, strict=True) if balance == best]
            shared = " (shared)" if len(named) > 1 else ""
            assert re.search(rf"{session.id} .*? UTC (?:over\.v1, rb\.v1|rb\.v1, over\.v1) "
                             rf"{re.escape(' and '.join(named) + shared)} ", words), (session.id, words)
        bot = await _page(played, reader, "/bots/over")
        assert f"{faults} faults (illegal {faults})" in _text(bot.text)
        assert all((reason in bot.text) == may_read for reason in seen_reasons), reader
    assert (await _page(played, None, "/authors/nobody")).status_code == 404
    assert 'href="/authors/alice"' in (await _page(played, None, "/bots")).text


async def test_a_bots_page_charts_its_slow_decisions_from_the_resources_files(played: Played) -> None:
    store = played.service.store
    versions = {version.id for version in store.versions("rb")}
    expected = []
    for session_id in played.sessions:  # played oldest first
        session = store.ladder_session(session_id)
        assert session is not None and session.history_path is not None
        figures = read_resources(played.service.config.data / session.history_path)
        assert figures is not None, session_id
        seats = {seat for seat, version in enumerate(session.seating) if version in versions}
        walls = [figure["wall_ms"] for figure in figures[:-1] if figure["seat"] in seats]
        cpus = [figure["cpu_ms"] for figure in figures[:-1] if figure["seat"] in seats]
        expected.append(f"{session_id} {max(walls)} {statistics.median(walls)} {max(cpus)}")
    for reader in (None, "bob"):  # decision times are public, like the results
        page = (await _page(played, reader, "/bots/rb")).text
        chart = page.split('<svg id="slow-decisions"', 1)[1].split("</svg>", 1)[0]
        assert 'class="x-axis"' in chart and 'class="y-axis"' in chart and ">milliseconds</text>" in chart
        assert ">ladder session, oldest to newest</text>" in chart
        legend = chart.split('class="legend"', 1)[1]
        assert all(f">{name}</text>" in legend for name in ("slowest decision", "median decision",
                                                            "most CPU in a decision"))
        table = _text(page.split('id="slow-decisions-table"', 1)[1].split("</table>", 1)[0])
        assert all(row in table for row in expected), (expected, table)
