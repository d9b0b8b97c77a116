"""The leaderboard at scale: aggregates kept in the store as results land stay equal to a recomputation from
every session, the board's worker process catches up with new results, and no request reads every session."""

from __future__ import annotations

import random
import sqlite3
from collections import Counter
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path

import httpx
import trio

from arena.engine import GEORGIAN, format_amount
from arena.isolation import Isolation
from arena.ratings import BlockResults, BlockTally, SessionOutcome, pair_results, standings, tally_blocks
from arena.service import FinishedSession, Service, ServiceConfig, ServiceStore, build_app, open_service

BOTS = ("ace", "bee", "cat", "dog", "eel")


def _service(data: Path) -> Service:
    """A real service store with one accepted version of each bot (never checked: only results are under test)."""
    service = open_service(ServiceConfig(data=data, isolation=Isolation.NONE, rules=GEORGIAN))
    for name in BOTS:
        version = service.store.add_version(name, "alice", sha256="0" * 64, kind="tar.gz", size=1,
                                            command="python bot.py", language=None, description=None)
        service.store.finish_check(version.id, accepted=True, report="not checked: a leaderboard test", stderr="")
    return service


def _random_blocks(store: ServiceStore, rng: random.Random, count: int) -> list[list[FinishedSession]]:
    """`count` finished duplicate blocks among the bots, heads-up and three-handed, draws and halves included."""
    ids = [version.id for version in store.current_versions()]
    blocks = []
    for _ in range(count):
        table = rng.sample(ids, rng.choice((2, 2, 3)))
        block = []
        for shift in range(len(table)):
            seating = tuple(table[shift:] + table[:shift])
            balances = [Fraction(rng.choice((-4, -1, 0, 0, 1, 3)), rng.choice((1, 2))) for _ in seating[1:]]
            block.append(FinishedSession(seating, (-sum(balances), *balances), (0,) * len(seating), "h.jsonl"))
        blocks.append(block)
    return blocks


def _outcomes(store: ServiceStore) -> list[SessionOutcome]:
    """Every finished session, read one by one: the full recomputation the aggregates must equal."""
    return [SessionOutcome(tuple(str(seat) for seat in session.seating), tuple(session.balances or ()),
                           f"b{session.block}") for session in store.ladder_sessions() if session.balances is not None]


def _blocks_played(store: ServiceStore) -> dict[str, int]:
    return dict(Counter(str(seat) for session in store.ladder_sessions() if session.mirror == 1
                        for seat in session.seating))


async def _caught_up(service: Service) -> None:
    with trio.fail_after(240):
        while service.board.fit is None or service.board.fit.key != service.board.key():
            await trio.sleep(0.05)


async def test_the_board_and_the_aggregates_equal_a_full_recomputation_after_new_results_land(tmp_path: Path) -> None:
    service = _service(tmp_path / "data")
    rng = random.Random(7)
    service.store.record_finished_blocks(_random_blocks(service.store, rng, 40), seed=lambda block: f"s{block}",
                                         reason="t")
    transport = httpx.ASGITransport(app=build_app(service))
    async with trio.open_nursery() as nursery, httpx.AsyncClient(transport=transport,
                                                                 base_url="http://arena") as client:
        nursery.start_soon(service.board.run)
        await _caught_up(service)
        for round_ in range(3):
            # New results land the ladder's way: a block planned, then its sessions' results one by one.
            for block in _random_blocks(service.store, rng, 4):
                planned = service.store.plan_block([session.seating for session in block],
                                                   seed=lambda number: f"s{number}", reason="t")
                for session, result in zip(planned, block, strict=True):
                    service.store.mark_ladder_running(session.id)
                    service.store.record_ladder_result(session.id, result.balances, result.faults, "h.jsonl")
                    service.store.record_ladder_result(session.id, result.balances, result.faults, "h.jsonl")  # again
                service.notify()
            if round_ == 1:  # a planned block not played yet counts as played for the choice of tables only
                service.store.plan_block([[1, 2], [2, 1]], seed=lambda number: f"s{number}", reason="t")
            await _caught_up(service)
            outcomes = _outcomes(service.store)
            standing = service.store.ladder_standing()
            assert dict(standing.pairs) == pair_results(outcomes)
            assert dict(standing.blocks) == _blocks_played(service.store)
            assert service.store.finished_ladder_sessions() == len(outcomes)
            board = (await client.get("/api/leaderboard")).json()
            full = {row.name: row for row in standings(outcomes, resamples=400)}
            labels = {str(version.id): version.bot for version in service.store.current_versions()}
            assert {row["name"]: (row["rating"], row["ci_low"], row["ci_high"], row["sessions"]) for row in board} == {
                labels[name]: (round(row.rating, 1), round(row.ci_low, 1), round(row.ci_high, 1), row.sessions)
                for name, row in full.items()}
            assert f"{len(outcomes)} ladder sessions played" in (await client.get("/")).text
        nursery.cancel_scope.cancel()
    before = service.store.ladder_standing()
    assert _kinds(service.store) == _recount(service.store)
    service.store.close()

    # Rebuilt from every session (as for a store written before the aggregates), they are the same.
    with sqlite3.connect(tmp_path / "data" / "service.sqlite") as connection:
        connection.execute("DELETE FROM ladder_totals")
    reopened = ServiceStore.open(tmp_path / "data" / "service.sqlite")
    assert reopened.ladder_standing() == before and reopened.finished_ladder_sessions() == len(outcomes)
    assert _kinds(reopened) == _recount(reopened)
    reopened.close()


def _kinds(store: ServiceStore) -> Counter[BlockResults]:
    """The kinds of block the leaderboard's fit reads: the finished blocks' from the store's tally, the
    unfinished blocks' finished sessions tallied as the fit tallies them."""
    snapshot = store.ladder_snapshot()
    tally = BlockTally()
    for kind, count in snapshot.kinds:
        tally.add_kind(kind, count)
    for session in snapshot.sessions:
        tally.add(SessionOutcome(tuple(map(str, session.seating)), tuple(session.balances or ()), f"b{session.block}"))
    return tally.kinds()


def _recount(store: ServiceStore) -> Counter[BlockResults]:
    return tally_blocks(_outcomes(store)).kinds()


def test_the_stored_kinds_of_block_equal_a_full_recount_across_restarts_and_for_an_older_store(tmp_path: Path) -> None:
    """Issue 28 item 4: the leaderboard's fit reads the finished blocks as kinds tallied in the store as results
    land; they must be what a recount of every session gives, whatever was in play when the service stopped."""
    service = _service(tmp_path / "data")
    rng = random.Random(11)
    path = tmp_path / "data" / "service.sqlite"
    store = service.store
    store.record_finished_blocks(_random_blocks(store, rng, 30), seed=lambda block: f"s{block}", reason="t")
    for _ in range(3):
        for index, block in enumerate(_random_blocks(store, rng, 5)):
            planned = store.plan_block([session.seating for session in block], seed=lambda n: f"s{n}", reason="t")
            # The last block of a round stops half-played (the service stopped, or it failed and was set aside).
            for session, result in zip(planned[:1] if index == 4 else planned, block, strict=False):
                store.mark_ladder_running(session.id)
                store.record_ladder_result(session.id, result.balances, result.faults, "h.jsonl")
        snapshot = store.ladder_snapshot()
        assert _kinds(store) == _recount(store)
        assert sum(count for _, count in snapshot.kinds) == len({o.block for o in _outcomes(store)}) - len(
            {session.block for session in snapshot.sessions})
        store.close()  # a restart: the tally is the store's, and goes on from where it was
        store = ServiceStore.open(path)
        assert _kinds(store) == _recount(store)
    # A store from before the tally (its ladder played, no kinds): they are tallied when it is opened.
    store.close()
    with sqlite3.connect(path) as connection:
        connection.execute("DELETE FROM ladder_block_kinds")
        connection.execute("UPDATE ladder_totals SET kinds_tallied = 0")
    connection.close()
    store = ServiceStore.open(path)
    assert store.ladder_snapshot().kinds and _kinds(store) == _recount(store)
    store.close()


async def _steps(service: Service, paths: Sequence[str]) -> int:
    """SQLite virtual-machine steps (in thousands) the store runs to answer `paths` through the real app."""
    steps = 0

    def count() -> int:
        nonlocal steps
        steps += 1
        return 0

    connection = service.store._connection  # the store's own connection: every query of a request goes through it
    transport = httpx.ASGITransport(app=build_app(service))
    async with httpx.AsyncClient(transport=transport, base_url="http://arena") as client:
        connection.set_progress_handler(count, 1000)
        try:
            for path in paths:
                assert (await client.get(path)).status_code == 200, path
        finally:
            connection.set_progress_handler(None, 1000)
    return steps


async def test_no_request_reads_every_session(tmp_path: Path) -> None:
    service = _service(tmp_path / "data")
    rng = random.Random(3)
    paths = ["/", "/api/leaderboard", "/api/ladder", "/bots/ace", "/bots", "/api/bots"]
    service.store.record_finished_blocks(_random_blocks(service.store, rng, 100), seed=lambda block: f"s{block}",
                                         reason="t")
    await service.board.refresh()
    small = await _steps(service, paths)
    service.store.record_finished_blocks(_random_blocks(service.store, rng, 4000), seed=lambda block: f"s{block}",
                                         reason="t")
    await service.board.refresh()
    large = await _steps(service, paths)
    # Forty times the sessions, the same work: what grows with them is read from the aggregates or by index.
    assert large <= 1.5 * small + 20, (small, large)
    await service.board.aclose()
    service.store.close()


def _snapshot_steps(store: ServiceStore) -> int:
    """SQLite virtual-machine steps (in thousands) of the leaderboard fit's one read of the store."""
    steps = 0

    def count() -> int:
        nonlocal steps
        steps += 1
        return 0

    store._connection.set_progress_handler(count, 1000)
    try:
        store.ladder_snapshot()
    finally:
        store._connection.set_progress_handler(None, 1000)
    return steps


def test_a_refit_reads_what_grows_with_the_kinds_of_block_not_with_the_sessions(tmp_path: Path) -> None:
    """Issue 28 item 4: the fit read every finished session (time and memory growing with the ladder)."""
    service = _service(tmp_path / "data")
    rng = random.Random(5)
    ids = [version.id for version in service.store.current_versions()]

    def blocks(count: int) -> list[list[FinishedSession]]:
        # Heads-up blocks won, drawn or lost by 3: at most 6 kinds of block per pair of bots, however many blocks.
        chosen = []
        for _ in range(count):
            first, second = rng.sample(ids, 2)
            results = [rng.choice((-3, 0, 3)) for _ in range(2)]
            chosen.append([FinishedSession((first, second), (results[0], -results[0]), (0, 0), "h.jsonl"),
                           FinishedSession((second, first), (results[1], -results[1]), (0, 0), "h.jsonl")])
        return chosen

    store = service.store
    store.record_finished_blocks(blocks(200), seed=lambda block: f"s{block}", reason="t")
    in_play = store.plan_block([[ids[0], ids[1]], [ids[1], ids[0]]], seed=lambda block: f"s{block}", reason="t")
    store.record_ladder_result(in_play[0].id, [1, -1], [0, 0], "h.jsonl")
    small = _snapshot_steps(store)
    store.record_finished_blocks(blocks(8000), seed=lambda block: f"s{block}", reason="t")
    large = _snapshot_steps(store)
    # Forty times the blocks, the same reading: the kinds (already all there), the block in play by index.
    assert large <= 1.5 * small + 20, (small, large)
    snapshot = store.ladder_snapshot()
    assert [session.id for session in snapshot.sessions] == [in_play[0].id]
    assert sum(count for _, count in snapshot.kinds) == 8200 and _kinds(store) == _recount(store)
    store.close()


async def test_a_bots_page_shows_its_rank_rating_and_recent_results(tmp_path: Path) -> None:
    """Issue 25: a bot's page showed no rating, rank, results or faults."""
    service = _service(tmp_path / "data")
    service.store.record_finished_blocks(_random_blocks(service.store, random.Random(9), 40), seed=lambda b: f"s{b}",
                                         reason="t")
    await service.board.refresh()
    rows = service.board.rows()
    rated = [row.name for row in rows if row.rated]
    ace = next(row for row in rows if row.name == "ace")
    version = service.store.version("ace", "latest")
    assert version is not None
    recent = service.store.sessions_of([version.id], newest=50)
    balances = [session.balances[session.seating.index(version.id)] for session in recent if session.balances]
    won = sum(session.balances[session.seating.index(version.id)] == max(session.balances)
              for session in recent if session.balances)
    transport = httpx.ASGITransport(app=build_app(service))
    async with httpx.AsyncClient(transport=transport, base_url="http://arena") as client:
        page = (await client.get("/bots/ace")).text
    assert (f"Rank <strong>{rated.index('ace') + 1}</strong> of {len(rated)}" in page
            and f"rating <strong>{ace.rating:.1f}</strong>" in page and f"over {ace.sessions} sessions" in page)
    rate = sum(balances, Fraction(0)) / len(balances)
    assert f"In its last {len(balances)} finished ladder sessions: <strong>{won}</strong> won" in page
    assert f'title="exactly {format_amount(rate)}">{float(rate):+.2f}</span> per session' in page
    first = recent[0]
    mine = first.balances[first.seating.index(version.id)] if first.balances else 0
    assert f"{'won' if mine == max(first.balances or (0,)) else 'lost'} <span" in page
    assert 'UTC</time>' in page  # submitted times read at a glance, the ISO text in the tooltip
    await service.board.aclose()
    service.store.close()
