"""The ladder's choice of the next table: placement first, then information, with random tables; and
what it does with a block whose play raises, on a real store, real bots and the real worker."""

from __future__ import annotations

import logging
import math
import random
import statistics
from collections import Counter
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest
import trio

from arena.engine import GEORGIAN, Amount, ArenaError, profile
from arena.isolation import Isolation
from arena.policies import Policy, SoftThresholdPolicy, ThresholdPolicy, play_in_process
from arena.ratings import SessionOutcome, SessionTerms, block_half, pair_results, session_terms
from arena.ratings._adjusted import fit_coefficients
from arena.replay import replay_file
from arena.service import (
    Author,
    Ladder,
    LadderConfig,
    Service,
    ServiceConfig,
    build_app,
    choose_table,
    information,
    open_service,
    table_information,
)
from arena.service._store import LadderSession
from arena.storage import StorageError
from arena.tournament import mirrors

from ..ratings.test_adjusted_unbiased import CASES as BIAS_CASES
from ._archives import sample_archive

T = TypeVar("T")


def _sessions(a: str, b: str, wins: int, losses: int) -> list[SessionOutcome]:
    return ([SessionOutcome((a, b), (1, -1), f"{a}{b}w{index}") for index in range(wins)]
            + [SessionOutcome((a, b), (-1, 1), f"{a}{b}l{index}") for index in range(losses)])


OUTCOMES = [*_sessions("a", "b", 12, 0), *_sessions("c", "d", 6, 6), *_sessions("a", "c", 3, 3),
            *_sessions("b", "d", 3, 3)]
PAIRS = pair_results(OUTCOMES)
PLAYED = Counter({"a": 5, "b": 5, "c": 5, "d": 5})


def test_a_new_version_plays_its_placement_blocks_first() -> None:
    for seed in range(20):
        table, reason = choose_table(["a", "b", "c", "d", "new"], PAIRS, table_size=2, blocks_played=PLAYED,
                                     placement_blocks=2, random_share=0.5, rng=random.Random(seed))
        assert reason == "placement" and table[0] == "new"


def test_the_adaptive_choice_is_the_table_of_most_information() -> None:
    theta, variance = information(PAIRS, ["a", "b", "c", "d"])
    assert theta["a"] > theta["c"] > theta["b"] and variance["a"] < variance["b"] * 2
    # A lopsided pair teaches less than an even one with as many sessions.
    assert table_information(("c", "d"), theta, variance) > table_information(("a", "b"), theta, variance)
    table, reason = choose_table(["a", "b", "c", "d"], PAIRS, table_size=2, blocks_played=PLAYED,
                                 placement_blocks=2, random_share=0.0, rng=random.Random(1))
    best = max((("a", "b"), ("a", "c"), ("a", "d"), ("b", "c"), ("b", "d"), ("c", "d")),
               key=lambda pair: table_information(pair, theta, variance))
    assert (table, reason) == (best, "adaptive")
    assert best != ("a", "b")


def test_a_bot_with_few_sessions_is_weighted_up() -> None:
    pairs = pair_results([*OUTCOMES, *_sessions("e", "c", 1, 1)])
    theta, variance = information(pairs, ["a", "b", "c", "d", "e"])
    assert variance["e"] > 2 * max(variance[bot] for bot in "abcd")
    table, _ = choose_table(["a", "b", "c", "d", "e"], pairs, table_size=2, blocks_played=Counter(
        {**PLAYED, "e": 2}), placement_blocks=2, random_share=0.0, rng=random.Random(3))
    assert "e" in table


def test_some_tables_are_random_and_bigger_tables_are_scored_too() -> None:
    reasons = Counter(choose_table(["a", "b", "c", "d"], PAIRS, table_size=2, blocks_played=PLAYED,
                                   placement_blocks=2, random_share=0.25, rng=random.Random(seed))[1]
                      for seed in range(400))
    assert 60 <= reasons["random"] <= 140 and reasons["adaptive"] == 400 - reasons["random"]
    table, reason = choose_table(["a", "b", "c", "d"], PAIRS, table_size=3, blocks_played=PLAYED,
                                 placement_blocks=2, random_share=0.0, rng=random.Random(2))
    assert len(set(table)) == 3 and reason == "adaptive"


def test_no_table_seats_two_bots_of_one_author() -> None:
    owners = {"a1": "alice", "a2": "alice", "a3": "alice", "b": "bob", "c": "carol", "d1": "dave", "d2": "dave"}
    players = sorted(owners)
    pairs = pair_results([*_sessions("a1", "a2", 6, 6), *_sessions("b", "c", 12, 0), *_sessions("a1", "b", 3, 3)])
    seen: set[tuple[str, ...]] = set()
    for size in (2, 3, 4):
        for seed in range(150):
            for placed in ({}, {player: 5 for player in players}):  # placement, then random and adaptive tables
                table, _ = choose_table(players, pairs, table_size=size, blocks_played=placed, placement_blocks=2,
                                        random_share=0.3, rng=random.Random(seed), owners=owners)
                assert len(table) == size and len({owners[player] for player in table}) == size, table
                seen.add(tuple(sorted(table)))
    assert {("a1", "b"), ("a2", "b"), ("a3", "d2")} <= seen  # every author's bots still play
    # Many players of few authors: the random draw and the sampled candidates keep the rule too.
    crowd = {f"{author}{index}": author for author in ("alice", "bob", "carol") for index in range(40)}
    for seed in range(50):
        table, reason = choose_table(sorted(crowd), {}, table_size=3, blocks_played=dict.fromkeys(crowd, 5),
                                     placement_blocks=1, random_share=0.5, rng=random.Random(seed), owners=crowd)
        assert {crowd[player] for player in table} == {"alice", "bob", "carol"}, (table, reason)
    with pytest.raises(ArenaError, match="a table of 3 needs players of 3 authors, and there are 2"):
        choose_table(["a1", "a2", "b"], {}, table_size=3, blocks_played={}, placement_blocks=1, random_share=0.0,
                     rng=random.Random(1), owners=owners)


# --- blocks whose play raises: retried with growing waits, set aside, shown, put back ---------------------------

def _service(data: Path, **ladder: Any) -> Service:
    """A service of two accepted sample bots (their check skipped: the ladder is under test)."""
    config = ServiceConfig(data=data, isolation=Isolation.NONE, rules=GEORGIAN.with_table(pots_per_session=1),
                           ladder=LadderConfig(placement_blocks=1, random_share=0.0, **ladder))
    service = open_service(config)
    for name, author in (("call", "alice"), ("threshold", "bob")):  # a rated table seats two authors
        if service.store.version(name, "latest") is None:
            version = service.registry.submit(Author(author, organiser=False), name, sample_archive(name))
            service.store.finish_check(version.id, accepted=True, report="not checked: a ladder test", stderr="")
    return service


def _obstacle(service: Service, session_id: str) -> Path:
    """A folder where the session's history goes: writing the history raises (a StorageError, the
    arena's failure, not a bot's) until it is removed."""
    path = service.registry.folder.ladder / "histories" / f"{session_id}.jsonl"
    path.mkdir(parents=True)
    return path


async def _until(what: str, check: Callable[[], T | None], *, timeout: float = 120.0) -> T:
    """`check()`'s first true value, polled while the ladder runs."""
    with trio.move_on_after(timeout):
        while not (value := check()):
            await trio.sleep(0.02)
        return value
    raise AssertionError(f"timed out waiting for {what}")


def _finished(service: Service, block: int) -> bool:
    sessions = service.store.ladder_sessions(block=block)
    return bool(sessions) and all(session.status == "finished" for session in sessions)


async def test_a_block_that_keeps_failing_is_set_aside_shown_kept_across_a_restart_and_put_back(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.ERROR, logger="arena.service._ladder")
    service = _service(tmp_path / "data", retry_seconds=0.05, max_failures=3)
    obstacle = _obstacle(service, "L000001-1")
    async with trio.open_nursery() as nursery:
        nursery.start_soon(Ladder(service, rng=random.Random(1)).run)
        [failure] = await _until("block 1 set aside",
                                 lambda: [found for found in service.store.ladder_failures() if found.set_aside])
        nursery.cancel_scope.cancel()
    assert (failure.block, failure.failures) == (1, 3)
    assert failure.error.startswith("StorageError: cannot write ") and "Is a directory" in failure.error
    waits = [record.getMessage() for record in caplog.records if record.getMessage().startswith("ladder block 1 ")]
    assert [message.split("; ")[-1] for message in waits] == [
        "retrying in 0.05 s", "retrying in 0.1 s", "an organiser puts it back with POST /api/ladder/blocks/1/resume"]
    # The store keeps the error's type and message; the log has its traceback.
    assert "\n" not in failure.error and all(record.exc_info for record in caplog.records
                                               if record.getMessage().startswith("ladder block 1 "))
    # The other blocks were played while block 1 waited: the ladder never stalled on it.
    assert _finished(service, 2)
    assert [(s.id, s.status, s.attempts, s.balances, s.faults) for s in service.store.ladder_sessions(block=1)] == [
        ("L000001-1", "running", 3, None, None), ("L000001-2", "planned", 0, None, None)]
    service.store.close()

    # A restart keeps it set aside: the ladder plans other tables and never plays it.
    service = _service(tmp_path / "data", retry_seconds=0.05, max_failures=3)
    assert [f.set_aside for f in service.store.ladder_failures()] == [True]
    next_block = Ladder(service, rng=random.Random(2)).next_block()
    assert next_block is not None and next_block[0].block > 2
    organiser = service.store.create_token("org", organiser=True)
    alice = service.store.create_token("alice")
    transport = httpx.ASGITransport(app=build_app(service))
    async with httpx.AsyncClient(transport=transport, base_url="http://arena") as client:
        public = (await client.get("/api/ladder")).json()["blocks"]
        assert [(b["block"], b["status"], b["players"], b["failures"], b["error"]) for b in public] == [
            (1, "set aside", ["call.v1", "threshold.v1"], 3, None)]
        shown = (await client.get("/api/ladder", headers={"Authorization": f"Bearer {organiser}"})).json()
        assert shown["blocks"][0]["error"] == failure.error and shown["blocks"][0]["set_aside_at"]
        async with httpx.AsyncClient(transport=transport, base_url="http://arena",
                                     cookies={"seka_token": organiser}) as signed_in:
            page = (await signed_in.get("/")).text
        assert "Blocks that failed" in page and "set aside" in page and "Is a directory" in page
        assert "Is a directory" not in (await client.get("/")).text  # the arena's internals: organisers only
        assert "L000001-1</td>\n  <td>set aside (the arena failed" in (await client.get("/bots/call")).text
        assert (await client.post("/api/ladder/blocks/1/resume",
                                  headers={"Authorization": f"Bearer {alice}"})).status_code == 403
        assert (await client.post("/api/ladder/blocks/99/resume",
                                  headers={"Authorization": f"Bearer {organiser}"})).status_code == 404
        assert (await client.post("/api/ladder/blocks/2/resume",
                                  headers={"Authorization": f"Bearer {organiser}"})).status_code == 409

        obstacle.rmdir()  # the organiser fixes the cause, then puts the block back in play
        async with trio.open_nursery() as nursery:
            nursery.start_soon(Ladder(service, rng=random.Random(3)).run)
            resumed = await client.post("/api/ladder/blocks/1/resume", headers={"Authorization": f"Bearer {organiser}"})
            assert resumed.status_code == 200 and resumed.json() == {"block": 1, "status": "in play"}
            await _until("block 1 played", lambda: _finished(service, 1))
            nursery.cancel_scope.cancel()
        assert (await client.get("/api/ladder")).json()["blocks"] == []
    assert all(session.faults == (0, 0) for session in service.store.ladder_sessions(block=1))
    service.store.close()


async def test_a_block_whose_failure_clears_finishes_on_its_retry(tmp_path: Path) -> None:
    service = _service(tmp_path / "data", retry_seconds=0.05, max_failures=2)
    obstacle = _obstacle(service, "L000001-1")
    async with trio.open_nursery() as nursery:
        nursery.start_soon(Ladder(service, rng=random.Random(1)).run)
        await _until("a first failure", service.store.ladder_failures)
        obstacle.rmdir()  # space freed, say: the retry (after another block) succeeds
        await _until("block 1 played", lambda: _finished(service, 1))
        nursery.cancel_scope.cancel()
    assert service.store.ladder_failures() == []
    assert [(session.id, session.attempts) for session in service.store.ladder_sessions(block=1)] == [
        ("L000001-1", 2), ("L000001-2", 1)]
    service.store.close()


# --- the adjusted results the ladder chooses tables from (issue 27) ----------------------------------------------

async def test_the_ladder_stores_each_sessions_adjusted_result_and_counts_finishing_orders_by_it(
        tmp_path: Path) -> None:
    service = _service(tmp_path / "data", retry_seconds=0.05, max_failures=2)
    ladder = Ladder(service, rng=random.Random(1))
    for _ in range(4):
        block = ladder.next_block()
        assert block is not None
        for session in block:
            await ladder.play(session)
    finished = [session for session in service.store.ladder_sessions() if session.status == "finished"]
    assert len(finished) == 8
    for session in finished:
        assert session.history_path is not None
        state = replay_file(service.config.data / session.history_path).state
        assert session.balances == tuple(state.balances)  # the raw result stays stored
        terms = session_terms(service.config.rules, state.events)
        assert session.luck == terms.luck
    assert [session.adjusted for session in finished] == _cross_fitted(
        [(session, session_terms(service.config.rules, replay_file(service.config.data / str(session.history_path))
                                 .state.events)) for session in finished])
    # The table choice counts finishing orders by the adjusted results: the same as pair_results of them.
    versions = {session.seating for session in finished}
    assert len(versions) == 2
    expected = pair_results([SessionOutcome(tuple(map(str, session.seating)), session.adjusted or (),
                                            str(session.block)) for session in finished])
    assert service.store.ladder_standing().pairs == expected
    service.store.close()


def _cross_fitted(recorded: list[tuple[LadderSession, SessionTerms]]) -> list[tuple[Amount, ...]]:
    """The adjusted results of sessions recorded in this order, as docs/ratings.md describes the ladder's: the
    known result less c·luck plus the table's mean of c·luck, each seat's c the least-squares slope of its
    version's known result on its luck over the sessions recorded before in the other half of the blocks
    (exact here, then to 1/1000, as `fit_coefficients` fits a tournament's)."""
    adjusted = []
    for index, (session, terms) in enumerate(recorded):
        half = block_half(str(session.block))
        before = [(SessionOutcome(tuple(map(str, other.seating)), other_terms.raw, str(other.block)), other_terms)
                  for other, other_terms in recorded[:index] if block_half(str(other.block)) != half]
        fitted = fit_coefficients(before)
        seats = len(session.seating)
        control = [fitted.get((str(version), seats), Fraction(0)) * luck
                   for version, luck in zip(session.seating, terms.luck, strict=True)]
        mean = sum(control, Fraction(0)) / seats
        adjusted.append(tuple(known - c + mean for known, c in zip(terms.known, control, strict=True)))
    return adjusted


@pytest.mark.parametrize(("name", "options", "seats"), BIAS_CASES,
                         ids=[f"{n}-{'-'.join(o.values()) or 'default'}-{s}" for n, o, s in BIAS_CASES])
def test_the_ladders_deal_control_variate_is_cross_fitted_on_the_other_half_and_unbiased_on_every_profile(
        tmp_path: Path, name: str, options: dict[str, str], seats: int) -> None:
    service = _service(tmp_path / "data")
    store = service.store
    rules = profile(name, options).with_table(pots_per_session=3)
    evaluator = rules.evaluator
    policies: list[Policy] = [SoftThresholdPolicy(name="soft", evaluator=evaluator),
                              SoftThresholdPolicy(name="loose", call_from=15, raise_from=22, evaluator=evaluator)]
    policies += [ThresholdPolicy(name=f"plain{seat}", call_from=16 + 2 * seat, evaluator=evaluator)
                 for seat in range(seats - 2)]
    by_version = {version: policy for version, policy in enumerate(policies, start=1)}
    seatings = mirrors(list(by_version))
    recorded: list[tuple[LadderSession, SessionTerms]] = []
    for _ in range(max(6, 120 // len(seatings))):  # blocks, each with every mirror of the table
        for session in store.plan_block(seatings, seed=lambda number: f"{name}-{seats}-{number}", reason="test"):
            state = play_in_process(rules, [by_version[version] for version in session.seating], seed=session.seed)
            terms = session_terms(rules, state.events)
            store.record_ladder_result(session.id, terms.raw, [0] * seats, "h", adjusted=terms.known, luck=terms.luck)
            recorded.append((session, terms))
    stored = {session.id: session for session in store.ladder_sessions()}
    assert [stored[session.id].adjusted for session, _ in recorded] == _cross_fitted(recorded)
    assert all(stored[session.id].balances == terms.raw for session, terms in recorded)  # the raw result stays
    assert all(sum(stored[session.id].adjusted or (1,)) == 0 for session, _ in recorded)  # still zero-sum
    # Not vacuous: the other half's fit weighs luck, and the control variate moves results.
    moved = [float(stored[session.id].ranked[seat] - terms.known[seat]) for session, terms in recorded
             for seat, version in enumerate(session.seating) if version == 1]
    assert sum(1 for difference in moved if difference) > len(moved) // 4
    # Unbiased: the soft bot's mean adjusted result is its mean known one within the sampling error.
    se = statistics.stdev(moved) / math.sqrt(len(moved))
    assert abs(statistics.fmean(moved)) < 4 * se
    store.close()


def test_a_recorded_adjusted_result_decides_the_ladders_finishing_order_and_the_raw_one_stays(tmp_path: Path) -> None:
    service = _service(tmp_path / "data")
    store = service.store
    [first, second] = store.plan_block([(1, 2), (2, 1)], seed=lambda number: f"seed-{number}", reason="test")
    # Raw: version 1 wins both; adjusted (its luck taken away): it loses both.
    store.record_ladder_result(first.id, (3, -3), (0, 0), "h1", adjusted=(-1, 1))
    store.record_ladder_result(second.id, (-2, 2), (0, 0), "h2", adjusted=(1, -1))
    assert [session.balances for session in store.ladder_sessions(block=first.block)] == [(3, -3), (-2, 2)]
    assert store.ladder_standing().pairs == {("1", "2"): (Fraction(0), Fraction(2))}
    # A set-aside block is taken out by the same adjusted orders it was counted with.
    store.record_ladder_failure(first.block, "test", max_failures=1)
    assert store.ladder_standing(exclude_blocks={first.block}).pairs == {}
    with pytest.raises(StorageError, match="sum to zero"):
        store.record_ladder_result(second.id, (-2, 2), (0, 0), "h2", adjusted=(1, 0))
    store.close()
