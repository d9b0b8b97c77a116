"""The leaderboard over a split ladder: the main group rated, every other current version shown unrated
with its sessions and why, on the page and in the API; a rating error shows why instead of blanking."""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from pathlib import Path

import httpx
import pytest

from arena.engine import GEORGIAN
from arena.isolation import Isolation
from arena.service import Service, ServiceConfig, build_app, open_service
from arena.service import _board as board_module

NOT_COMPARED = "not yet compared with the leading group: its sessions never met the rated bots"
PLACEMENT = "in placement: no ladder session played yet"


def _service(data: Path, bots: Sequence[str]) -> Service:
    """A real service store with one accepted version of each bot (never checked: only the board is under test)."""
    config = ServiceConfig(data=data, isolation=Isolation.NONE, rules=GEORGIAN)
    service = open_service(config)
    for name in bots:
        version = service.store.add_version(name, "alice", sha256="0" * 64, kind="tar.gz", size=1,
                                            command="python bot.py", language=None, description=None)
        service.store.finish_check(version.id, accepted=True, report="not checked: a leaderboard test", stderr="")
    return service


def _block(service: Service, *players: str, first_wins: bool = True) -> None:
    """A finished duplicate heads-up block, recorded the way the ladder records one (both mirrors)."""
    ids = [service.store.version(player, "latest").id for player in players]  # type: ignore[union-attr]
    sessions = service.store.plan_block([ids, ids[::-1]], seed=lambda block: f"seed{block}", reason="test")
    for session, balances in zip(sessions, ([3, -3], [-1, 1] if first_wins else [1, -1]), strict=True):
        service.store.record_ladder_result(session.id, balances, [0, 0], f"{session.id}.jsonl")


async def _board(service: Service) -> tuple[list[dict[str, object]], str]:
    """The API's leaderboard and the page's table rows as text, from the real app, once the board's worker
    process has fitted the store as it is."""
    await service.board.refresh()
    transport = httpx.ASGITransport(app=build_app(service))
    async with httpx.AsyncClient(transport=transport, base_url="http://arena") as client:
        api = await client.get("/api/leaderboard")
        page = await client.get("/")
    assert api.status_code == page.status_code == 200
    rows = re.findall(r"<tr(?: class=\"unrated\")?>(.*?)</tr>", page.text, re.DOTALL)
    return api.json(), "\n".join(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", row)).strip() for row in rows[1:])


async def test_a_split_ladder_rates_the_main_group_and_shows_the_others_unrated(tmp_path: Path) -> None:
    service = _service(tmp_path, ["ace", "bee", "cat", "newa", "newb", "zed"])
    for pair in [("ace", "bee"), ("bee", "cat"), ("ace", "cat"), ("cat", "bee")]:
        _block(service, *pair)
    _block(service, "newa", "newb")  # two newcomers placed against each other: a second group
    api, page = await _board(service)
    by_name = {row["name"]: row for row in api}
    assert [row["name"] for row in api][3:] == ["newa", "newb", "zed"]  # rated first, then the unrated
    for name, sessions in [("ace", 4), ("bee", 6), ("cat", 6)]:
        row = by_name[name]
        assert row["sessions"] == sessions and row["ci_low"] is not None, row  # the old board: 0 sessions, unrated
        assert isinstance(row["rating"], float) and row["ci_low"] <= row["rating"] <= row["ci_high"]  # type: ignore[operator]
        assert row["unrated"] is None
    for name, sessions, reason in [("newa", 2, NOT_COMPARED), ("newb", 2, NOT_COMPARED), ("zed", 0, PLACEMENT)]:
        assert by_name[name] == {"name": name, "version": 1, "rating": None, "ci_low": None, "ci_high": None,
                                 "sessions": sessions, "unrated": reason}
    lines = page.splitlines()
    # rank, bot, rating, interval (one decimal, as the report writes them), sessions
    rated = re.compile(r"(\d) (\w+) v1 (\d+\.\d) (\d+\.\d) – (\d+\.\d) (\d+)")
    for rank, (line, row) in enumerate(zip(lines[:3], api, strict=False), start=1):
        assert (match := rated.fullmatch(line)) is not None, line
        assert match.group(1, 2, 6) == (str(rank), row["name"], str(row["sessions"]))
        shown = [float(match.group(group)) for group in (3, 4, 5)]
        assert shown == [row[key] for key in ("rating", "ci_low", "ci_high")]
    assert lines[3:] == [f"– newa v1 – {NOT_COMPARED} 2", f"– newb v1 – {NOT_COMPARED} 2",
                         f"– zed v1 – {PLACEMENT} 0"]

    _block(service, "newb", "cat")  # a block joins the parts: every version that played is rated
    api, page = await _board(service)
    assert [row["unrated"] for row in api] == [None] * 5 + [PLACEMENT]
    assert {row["name"]: row["sessions"] for row in api} == {"ace": 4, "bee": 6, "cat": 8, "newa": 2, "newb": 4,
                                                             "zed": 0}
    assert all(rated.fullmatch(line) for line in page.splitlines()[:5])
    assert page.splitlines()[5:] == [f"– zed v1 – {PLACEMENT} 0"]
    await service.board.aclose()


async def test_between_groups_of_as_many_current_versions_the_one_with_more_sessions_is_rated(
        tmp_path: Path) -> None:
    service = _service(tmp_path, ["newa", "newb", "yak", "zebra"])  # names alone would choose newa and newb
    _block(service, "newa", "newb")
    _block(service, "yak", "zebra")
    _block(service, "zebra", "yak", first_wins=False)
    api, _ = await _board(service)
    assert {row["name"] for row in api[:2]} == {"yak", "zebra"} and all(row["ci_low"] is not None for row in api[:2])
    assert [(row["name"], row["unrated"]) for row in api][2:] == [("newa", NOT_COMPARED), ("newb", NOT_COMPARED)]
    await service.board.aclose()


async def test_a_rating_error_shows_every_version_unrated_with_the_error_and_is_logged_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    # No resample is a RatingError of `standings`, as a fit that does not converge would be.
    monkeypatch.setattr(board_module, "_LEADERBOARD_RESAMPLES", 0)
    caplog.set_level(logging.ERROR, logger="arena.service._board")
    service = _service(tmp_path, ["ace", "bee", "newa"])
    _block(service, "ace", "bee")
    api, page = await _board(service)
    assert all(row["rating"] is None for row in api)
    reasons = {row["name"]: row["unrated"] for row in api}
    assert reasons["newa"] == PLACEMENT
    assert reasons["ace"] == reasons["bee"] == (
        "not rated: the ratings could not be computed (resamples must be a positive int, not 0)")
    assert page.count("not rated: the ratings could not be computed") == 2
    _block(service, "ace", "bee")  # the board is rebuilt, the same error is not logged again
    await _board(service)
    await _board(service)
    assert [record.getMessage() for record in caplog.records] == [
        "the leaderboard shows every bot unrated: resamples must be a positive int, not 0"]
    await service.board.aclose()


async def test_the_leaderboards_intervals_are_drawn_on_an_axis_of_elo_with_a_legend(tmp_path: Path) -> None:
    """Issue 25: the interval bars had no axis (nor a legend)."""
    service = _service(tmp_path, ["ace", "bee", "cat", "zed"])
    for pair in [("ace", "bee"), ("bee", "cat"), ("ace", "cat"), ("cat", "bee")]:
        _block(service, *pair)
    api, _ = await _board(service)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=build_app(service)),
                                 base_url="http://arena") as client:
        page = (await client.get("/")).text
    chart = page.split('<svg id="rating-intervals"', 1)[1].split("</svg>", 1)[0]
    rated = [row for row in api if row["rating"] is not None]
    rows = re.findall(r'<g class="interval-row" data-label="(\w+)">\s*<title>([^<]*)</title>', chart)
    assert rows == [(row["name"], f"{row['name']}: {row['rating']:.1f} (95% interval {row['ci_low']:.1f} to "
                                  f"{row['ci_high']:.1f})") for row in rated]  # the unrated zed is not drawn
    axis = chart.split('class="axis x-axis"', 1)[1].split("</g>", 1)[0]
    ticks = [float(value) for value in re.findall(r'font-size="12">(-?\d+(?:\.\d+)?)</text>', axis)]
    assert len(ticks) >= 3 and ticks == sorted(ticks)
    assert ticks[0] <= min(row["ci_low"] for row in rated) and max(row["ci_high"] for row in rated) <= ticks[-1]
    assert ">Rating (Elo)</text>" in axis
    legend = chart.split('class="legend"', 1)[1]
    assert all(f">{name}</text>" in legend for name in ("rating", "95% interval", "average, 1500"))
    await service.board.aclose()
