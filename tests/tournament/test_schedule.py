"""arena/tournament/_schedule.py: tables, duplicate blocks, seat fairness, seeds and the commitment."""

from __future__ import annotations

import hashlib
import hmac
import itertools
import math
from collections import Counter, defaultdict
from dataclasses import replace

import pytest

from arena.storage import ValueFunction, commitment_of
from arena.tournament import (
    Format,
    PlannedSession,
    TournamentConfig,
    TournamentConfigError,
    block_seed,
    mirrors,
    parse_config,
    plan,
    tables,
)

SECRET = "2bb80d537b1da3e38bd30361aa855686"
TOPS = "a730530cbc1a026ab585ac98758efea6"


def config_for(bots: int, table_size: int, *, gauntlet: bool = False, duplicate: bool = True,
               sessions_per_table: int | None = None, seed: str = SECRET) -> TournamentConfig:
    lines = ["name: t", "participants:"]
    lines += [f"  - {{name: bot{i}, address: 'h:{5000 + i}'}}" for i in range(bots)]
    lines += [f"table_size: {table_size}", f"duplicate: {str(duplicate).lower()}", f"seed: {seed}"]
    if gauntlet:
        lines += ["format: gauntlet", f"challenger: bot{bots - 1}"]
    if sessions_per_table is not None:
        lines.append(f"sessions_per_table: {sessions_per_table}")
    return parse_config("\n".join(lines) + "\n")


def block_size(table_size: int) -> int:
    return 2 if table_size == 2 else 2 * table_size


CASES = [
    pytest.param(size, gauntlet, duplicate,
                 id=f"{size}-{'gauntlet' if gauntlet else 'rr'}-{'dup' if duplicate else 'plain'}")
    for size in range(2, 7)
    for gauntlet in (False, True)
    for duplicate in (True, False)
]


@pytest.mark.parametrize(("size", "gauntlet", "duplicate"), CASES)
def test_every_bot_sits_in_every_seat_equally_often(size: int, gauntlet: bool, duplicate: bool) -> None:
    bots = size + 2
    config = config_for(bots, size, gauntlet=gauntlet, duplicate=duplicate,
                        sessions_per_table=2 if duplicate else 2 * size)
    sessions = plan(config)
    seats: dict[str, Counter[int]] = defaultdict(Counter)
    for session in sessions:
        assert len(session.table) == size and len(set(session.table)) == size
        for seat, bot in enumerate(session.table):
            seats[bot][seat] += 1
    assert set(seats) == set(config.names)
    for bot, counts in seats.items():
        assert set(counts) == set(range(size)), bot
        assert len(set(counts.values())) == 1, (bot, counts)
    # And per table, not just overall.
    per_table: dict[frozenset[str], dict[str, Counter[int]]] = defaultdict(lambda: defaultdict(Counter))
    for session in sessions:
        for seat, bot in enumerate(session.table):
            per_table[frozenset(session.table)][bot][seat] += 1
    for table in per_table.values():
        assert len({count for counts in table.values() for count in counts.values()}) == 1


@pytest.mark.parametrize(("size", "gauntlet", "duplicate"), CASES)
def test_session_counts(size: int, gauntlet: bool, duplicate: bool) -> None:
    bots = size + 2
    config = config_for(bots, size, gauntlet=gauntlet, duplicate=duplicate,
                        sessions_per_table=3 if duplicate else size)
    table_count = math.comb(bots - 1, size - 1) if gauntlet else math.comb(bots, size)
    per_table = 3 * block_size(size) if duplicate else size
    sessions = plan(config)
    assert len(sessions) == table_count * per_table
    assert [s.index for s in sessions] == list(range(1, len(sessions) + 1))
    assert [s.id for s in sessions] == [f"s{i:04d}" for i in range(1, len(sessions) + 1)]
    if gauntlet:
        assert all(config.challenger in s.table for s in sessions)


@pytest.mark.parametrize("size", range(2, 7))
def test_duplicate_blocks_share_a_seed_and_permute_the_seats(size: int) -> None:
    config = config_for(size + 1, size, sessions_per_table=2)
    blocks: dict[str, list[PlannedSession]] = defaultdict(list)
    for session in plan(config):
        blocks[session.block].append(session)
    seeds = set()
    for block in blocks.values():
        assert len({s.seed for s in block}) == 1
        seeds.add(block[0].seed)
        assert [s.mirror for s in block] == list(range(block_size(size)))
        base = block[0].table
        seatings = [s.table for s in block]
        assert len(set(seatings)) == len(seatings) == block_size(size)
        if size <= 3:
            assert set(seatings) == set(itertools.permutations(base))
        else:
            rotations = {base[k:] + base[:k] for k in range(size)}
            reverse = base[::-1]
            assert set(seatings) == rotations | {reverse[k:] + reverse[:k] for k in range(size)}
        # Each bot receives each seat slot's cards equally often within the block.
        for bot in base:
            assert len(Counter(seating.index(bot) for seating in seatings)) == size
            assert len(set(Counter(seating.index(bot) for seating in seatings).values())) == 1
        # Mirrors are consecutive in the plan.
        assert [s.index for s in block] == list(range(block[0].index, block[0].index + len(block)))
    assert len(seeds) == len(blocks)  # a different deal for every block


def test_mirrors_of_small_tables() -> None:
    assert mirrors(("a", "b")) == [("a", "b"), ("b", "a")]
    assert mirrors(("a", "b", "c")) == [
        ("a", "b", "c"), ("b", "c", "a"), ("c", "a", "b"), ("c", "b", "a"), ("b", "a", "c"), ("a", "c", "b")]


def test_without_duplicate_every_session_has_its_own_seed() -> None:
    config = config_for(4, 3, duplicate=False, sessions_per_table=6)
    sessions = plan(config)
    assert len({s.seed for s in sessions}) == len({s.block for s in sessions}) == len(sessions) == 4 * 6
    assert all(s.mirror == 0 for s in sessions)


def test_seeds_follow_the_documented_formula() -> None:
    config = config_for(3, 2, sessions_per_table=2, seed=TOPS)
    sessions = plan(config)
    first_table = ("bot0", "bot1")
    expected_1 = hmac.new(TOPS.encode(), b"block|bot0,bot1|1", hashlib.sha256).hexdigest()
    expected_2 = hmac.new(TOPS.encode(), b"block|bot0,bot1|2", hashlib.sha256).hexdigest()
    assert sessions[0].seed == sessions[1].seed == expected_1 == block_seed(TOPS, first_table, 1)
    # Round 2 comes after round 1 of every table: 3 tables x 2 mirrors.
    assert sessions[6].table == first_table and sessions[6].seed == expected_2


def test_plan_order_is_blocks_round_by_round() -> None:
    config = config_for(3, 2, sessions_per_table=2)
    assert [(s.block, s.table) for s in plan(config)] == [
        ("b0001", ("bot0", "bot1")), ("b0001", ("bot1", "bot0")),
        ("b0002", ("bot0", "bot2")), ("b0002", ("bot2", "bot0")),
        ("b0003", ("bot1", "bot2")), ("b0003", ("bot2", "bot1")),
        ("b0004", ("bot0", "bot1")), ("b0004", ("bot1", "bot0")),
        ("b0005", ("bot0", "bot2")), ("b0005", ("bot2", "bot0")),
        ("b0006", ("bot1", "bot2")), ("b0006", ("bot2", "bot1")),
    ]


def test_plan_is_deterministic() -> None:
    first = plan(config_for(6, 4, sessions_per_table=2))
    again = plan(config_for(6, 4, sessions_per_table=2))
    assert first == again
    other = plan(config_for(6, 4, sessions_per_table=2, seed="ae448ac86c4e8e4dec645729708ef418"))
    assert [(s.id, s.table, s.block, s.mirror) for s in other] == [(s.id, s.table, s.block, s.mirror) for s in first]
    assert {s.seed for s in other}.isdisjoint({s.seed for s in first})


def test_tables_of_both_formats() -> None:
    assert tables(config_for(4, 3)) == [
        ("bot0", "bot1", "bot2"), ("bot0", "bot1", "bot3"), ("bot0", "bot2", "bot3"), ("bot1", "bot2", "bot3")]
    gauntlet = config_for(4, 3, gauntlet=True)
    assert gauntlet.format is Format.GAUNTLET
    assert tables(gauntlet) == [("bot3", "bot0", "bot1"), ("bot3", "bot0", "bot2"), ("bot3", "bot1", "bot2")]


def test_hand_built_configs_the_loader_would_refuse() -> None:
    config = config_for(3, 3, duplicate=False, sessions_per_table=3)
    with pytest.raises(TournamentConfigError, match="sessions_per_table: .* multiple of table_size"):
        plan(replace(config, sessions_per_table=4))
    with pytest.raises(TournamentConfigError, match="challenger"):
        plan(replace(config, format=Format.GAUNTLET))


def test_the_commitment_binds_the_secret_the_deal_book_and_the_value_function() -> None:
    q = ValueFunction("hindsight/1", "ab" * 32)
    text = f"seka-arena/2|q|hindsight/1|{'ab' * 32}|deals|-|tops3cret"
    assert commitment_of("tops3cret", value_function=q) == hashlib.sha256(text.encode()).hexdigest()
    book = "cd" * 32
    assert commitment_of("tops3cret", book, q) == hashlib.sha256(text.replace("|-|", f"|{book}|").encode()).hexdigest()
    # Every part changes it: the secret, the book, Q's name and Q's fingerprint.
    forms = {commitment_of("tops3cret", None, q), commitment_of("tops3cret ", None, q),
             commitment_of("tops3cret", book, q),
             commitment_of("tops3cret", None, ValueFunction("hindsight/2", q.sha256)),
             commitment_of("tops3cret", None, ValueFunction(q.name, "ac" * 32)),
             commitment_of("tops3cret"), commitment_of("tops3cret", book)}
    assert len(forms) == 7
    # Form 1, of results folders from before the value function was bound: the secret (and the book) alone.
    assert commitment_of("tops3cret") == hashlib.sha256(b"tops3cret").hexdigest()
    assert commitment_of("tops3cret", book) == hashlib.sha256(f"tops3cret|deals|{book}".encode()).hexdigest()
    with pytest.raises(ValueError, match="not a value function"):
        ValueFunction("hind|sight", q.sha256)


@pytest.mark.parametrize(("size", "gauntlet", "duplicate"), CASES)
def test_a_plan_read_by_position_is_the_plan_read_in_order(size: int, gauntlet: bool, duplicate: bool) -> None:
    config = config_for(size + 2, size, gauntlet=gauntlet, duplicate=duplicate,
                        sessions_per_table=2 if duplicate else size)
    planned = plan(config)
    in_order = list(planned)
    assert len(planned) == len(in_order)
    assert [planned[index] for index in range(len(planned))] == in_order
    assert planned[-1] == in_order[-1] and planned[2:5] == in_order[2:5]
    with pytest.raises(IndexError):
        planned[len(planned)]


def test_a_huge_plan_costs_nothing_until_read() -> None:
    config = config_for(1000, 2, sessions_per_table=5)  # 2,497,500 sessions
    planned = plan(config)
    assert len(planned) == math.comb(1000, 2) * 5 * 2
    last = planned[-1]
    assert (last.id, last.block, last.table, last.mirror) == ("s4995000", "b2497500", ("bot999", "bot998"), 1)
    assert last.seed == block_seed(SECRET, ("bot998", "bot999"), 5)
