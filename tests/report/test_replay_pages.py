"""Replay pages as written files: every view of every session, the duplicate block side by side on the
organiser's page only, the bots' logs (a seat's page links only its own bot's), the data embedded."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

from arena.engine import GEORGIAN, profile
from arena.history import write_history
from arena.policies import RandomPolicy, ThresholdPolicy, play_in_process
from arena.report import (
    Audience,
    SessionHistory,
    Site,
    card_text,
    seat_page,
    session_page,
    write_replays,
    write_session_replay,
)

_DATA = re.compile(r'<script type="application/json" id="replay-data">(.*?)</script>', re.S)


def _block(tmp_path: Path) -> list[SessionHistory]:
    """Two sessions of a duplicate block (one seed, the seats swapped) and one session of its own."""
    sessions = []
    for session, names, seed in (("s0001", ("rand", "thr"), "block-1"), ("s0002", ("thr", "rand"), "block-1"),
                                 ("s0003", ("rand", "thr"), "other")):
        policies = [RandomPolicy(random.Random(7), name="rand") if name == "rand" else ThresholdPolicy(name="thr")
                    for name in names]
        state = play_in_process(GEORGIAN, policies, seed=seed, session=session)
        logs = tmp_path / "logs" / session
        logs.mkdir(parents=True)
        for name in names:
            (logs / f"{name}.stderr.log").write_text(f"{name} says hello\n")
        sessions.append(SessionHistory(session, write_history(tmp_path / f"{session}.jsonl", state.events), logs=logs))
    return sessions


def _data(page: Path) -> dict:
    match = _DATA.search(page.read_text())
    assert match is not None
    return json.loads(match.group(1))


def test_every_view_of_every_session_is_written(tmp_path: Path) -> None:
    sessions = _block(tmp_path)
    site = Site(tmp_path / "report", title="t")
    written = write_replays(site, sessions)
    expected = [site.out / page for session in sessions
                for page in (session_page(session.session), seat_page(session.session, 0),
                             seat_page(session.session, 1))]
    assert written == expected
    for name in ("replay.js", "replay.css", "report.css"):
        assert (site.out / "assets" / name).is_file()
    organiser = _data(site.out / "sessions/s0001.html")
    assert organiser["view"] is None and organiser["session"] == "s0001" and organiser["format"] == 3
    assert _data(site.out / "sessions/s0001.seat1.html")["view"] == 1


def test_the_block_is_side_by_side_on_the_organisers_page_only(tmp_path: Path) -> None:
    site = Site(tmp_path / "report", title="t")
    write_replays(site, _block(tmp_path))
    first = (site.out / "sessions/s0001.html").read_text()
    assert "Duplicate block" in first and 'href="s0002.html"' in first and "s0003" not in first
    deal = json.loads((tmp_path / "s0002.jsonl").read_text().splitlines()[1])
    assert all(card_text(card) in first for hand in deal["hands"].values() for card in hand)
    assert "Duplicate block" not in (site.out / "sessions/s0003.html").read_text()
    assert "Duplicate block" not in (site.out / "sessions/s0001.seat0.html").read_text()


def test_a_seat_page_links_only_its_own_bots_logs(tmp_path: Path) -> None:
    site = Site(tmp_path / "report", title="t")
    write_replays(site, _block(tmp_path))
    organiser = (site.out / "sessions/s0001.html").read_text()
    assert 'href="../logs/s0001/rand.stderr.txt"' in organiser and "thr.stderr.txt" in organiser
    assert (site.out / "logs/s0001/rand.stderr.txt").read_text() == "rand says hello\n"
    seat = (site.out / "sessions/s0001.seat0.html").read_text()  # seat 0 is rand in s0001
    assert "rand.stderr.txt" in seat and "thr.stderr.txt" not in seat


def test_a_stake_tables_page_says_what_a_stake_table_plays_and_labels_what_it_draws(tmp_path: Path) -> None:
    """Issue 25: the viewer said "bets up to 10" on stake tables, labelled the pot's size "Pot" under the
    pot's number, drew an unlabelled marker, and had no way back to the service that served it."""
    pages = {}
    for name in ("seka36", "georgian"):
        policies = [ThresholdPolicy(name="a"), ThresholdPolicy(name="b")]
        state = play_in_process(profile(name), policies, seed=f"{name}-page", session=f"p-{name}")
        history = SessionHistory(f"p-{name}", write_history(tmp_path / f"{name}.jsonl", state.events))
        back = ("/sessions/p-seka36", "Back to the arena") if name == "seka36" else None
        pages[name] = write_session_replay(tmp_path / name, history, back=back).read_text()
    assert "ante and table stake 1, stacks of 50, 8 pots" in pages["seka36"] and "up to" not in pages["seka36"]
    assert "ante 1, opening stake 1, payments up to 10, 8 pots" in pages["georgian"]
    for page in pages.values():
        assert "In the pot: <strong id=\"pot-amount\">" in page and ">the step shown</text>" in page
    assert '<a class="back" href="/sessions/p-seka36">Back to the arena</a>' in pages["seka36"]
    assert 'class="back"' not in pages["georgian"]  # a page written for a folder links nowhere else


def test_a_mixed_replys_distribution_is_shown_to_its_seat_and_organisers_only(tmp_path: Path) -> None:
    policies = [RandomPolicy(random.Random(3), name="mixer", mixed=True), ThresholdPolicy(name="thr")]
    state = play_in_process(GEORGIAN, policies, seed="mixed-pages", session="s0009")
    records = [event.to_json() for event in state.events]
    assert any("mix" in record for record in records)
    session = SessionHistory("s0009", write_history(tmp_path / "s0009.jsonl", state.events))
    drawn = "drawn by the arena, at "
    organiser = write_session_replay(tmp_path / "organisers", session)
    assert drawn in organiser.read_text()
    assert drawn in (organiser.parent / "s0009.seat0.html").read_text()
    assert drawn not in (organiser.parent / "s0009.seat1.html").read_text()
    for audience in (Audience.PUBLIC, Audience.PUBLIC_HANDS):
        page = write_session_replay(tmp_path / audience.value, session, audience=audience).read_text()
        assert drawn not in page and '"mix"' not in page and '"draw"' not in page
