"""Schedules: which bots meet, in which seats, with which deals. Pure: the same definition gives the same plan.

Theory of operation:

- Tables. A round robin plays every combination of `table_size` participants; a gauntlet plays
  the challenger with every combination of `table_size - 1` others. Combinations follow the file
  order of the participants, and a table's *base seating* is that order (the challenger first).
- Blocks. With duplicate dealing a table plays `sessions_per_table` blocks. All sessions of a block
  share one deal seed, so seat slot s receives the same cards in each of them (see
  `arena.engine.deck_order`), while the bots change seats:

  ======  =====================================================  ========
  seats   seatings of a block (the *mirrors*)                     sessions
  ======  =====================================================  ========
  2       the base seating and its swap                           2
  3       the three rotations of the base and of its reverse,     6
          which are all six permutations
  4..8    the n rotations of the base and the n of its reverse    2n
  ======  =====================================================  ========

  Every bot holds every seat slot's cards in a block, once (heads-up) or twice; the reversed
  rotations also turn the order of play around, so no bot always acts just after the same rival.
- Teams. A definition may name teams (`teams:`, one per author): then no table seats two members of
  one team (Halite's rule: an author's bots never play each other in a rated game), and the
  combinations that would are left out, the others keeping their order (a gauntlet's challenger
  meets no teammate).
- Without duplicate dealing every session is a block of its own with its own seed, and the
  sessions of a table cycle through the rotations of the base seating; `sessions_per_table` is a
  multiple of the table size, so again every bot sits in every seat equally often.
- Order. Blocks are played round by round: the first block of every table, then the second of
  every table, and so on; a block's mirrors are consecutive. An interrupted tournament thus has
  every table about equally far along.
- Seeds. The tournament secret (the `seed` of the definition) keys an HMAC-SHA256 of
  `block|<names of the base seating, comma-separated>|<block number within the table>`; its hex
  digest is the deal seed of every session of that block. Its commitment
  (`arena.storage.commitment_of`, which binds the deal book and the value function too) is
  published before the first session and the secret after the last, so anyone can check that the
  deals were fixed in advance and not chosen.
- Deal books. With `deals: FILE` block b of the plan (`b0001` is 1) deals from the book's b-th
  seed instead (see `_deals`), whatever the participants are called.
- Size. A plan is a lazy sequence: its length is counted, and each session is computed when it is
  read (by position, in O(participants x table size), or in order), so a plan of millions of
  sessions costs nothing until it is played. With teams the tables are listed when the plan is
  made (at most `MAX_TEAM_TABLES` of them).
"""

from __future__ import annotations

import enum
import hashlib
import hmac
import itertools
import math
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, overload

if TYPE_CHECKING:
    from ._config import TournamentConfig


class Format(enum.Enum):
    """How tables are drawn from the participants."""

    ROUND_ROBIN = "round_robin"
    """Every combination of `table_size` participants plays."""
    GAUNTLET = "gauntlet"
    """The challenger plays every combination of `table_size - 1` other participants."""


@dataclass(frozen=True)
class PlannedSession:
    """One session of the plan: who sits where, and where its deals come from."""

    index: int
    """1-based position in the plan."""
    id: str
    """`s0001`, `s0002`, ...: stable, used for storage rows and history file names."""
    table: tuple[str, ...]
    """Bot names in seat order (seat 0 first)."""
    block: str
    """`b0001`, ...: sessions of one block share `seed` and differ only in seating."""
    seed: str
    """The session's deal seed (hex), the same for every session of the block."""
    mirror: int
    """Which seating of the block this is, from 0 (the base seating)."""


def block_seed(secret: str, table: Sequence[str], block_number: int) -> str:
    """The deal seed of a block: HMAC-SHA256 keyed by the secret, over the base seating and block number.

    >>> block_seed("s", ["a", "b"], 1) == block_seed("s", ("a", "b"), 1) != block_seed("s", ["a", "b"], 2)
    True
    """
    message = f"block|{','.join(table)}|{block_number}".encode()
    return hmac.new(secret.encode("utf-8"), message, hashlib.sha256).hexdigest()


def mirrors(base: Sequence[str]) -> list[tuple[str, ...]]:
    """The seatings of a duplicate block, starting with `base`.

    >>> mirrors("ab")
    [('a', 'b'), ('b', 'a')]
    >>> [''.join(seating) for seating in mirrors("abcd")]
    ['abcd', 'bcda', 'cdab', 'dabc', 'dcba', 'cbad', 'badc', 'adcb']
    """
    seats = len(base)
    rotations = [tuple(base[(seat + shift) % seats] for seat in range(seats)) for shift in range(seats)]
    if seats <= 2:
        return rotations
    reverse = tuple(reversed(base))
    return rotations + [tuple(reverse[(seat + shift) % seats] for seat in range(seats)) for shift in range(seats)]


def block_size(seats: int) -> int:
    """Sessions in a duplicate block of `seats` players: as many as `mirrors` gives.

    >>> [block_size(seats) for seats in range(2, 9)] == [len(mirrors("abcdefgh"[:seats])) for seats in range(2, 9)]
    True
    """
    return seats if seats <= 2 else 2 * seats


def count_sessions(*, participants: int, table_size: int, format: Format, sessions_per_table: int,
                   duplicate: bool, table_count: int | None = None) -> int:
    """How many sessions a definition plans, counted without planning them (`table_count`: the tables
    drawn, when teams leave out some, `count_tables`).

    >>> count_sessions(participants=4, table_size=2, format=Format.ROUND_ROBIN, sessions_per_table=4, duplicate=True)
    48
    """
    if table_count is None and format is Format.GAUNTLET:
        table_count = math.comb(participants - 1, table_size - 1)
    elif table_count is None:
        table_count = math.comb(participants, table_size)
    return table_count * sessions_per_table * (block_size(table_size) if duplicate else 1)


def count_tables(names: Sequence[str], table_size: int, *, team_of: Mapping[str, str],
                 challenger: str | None = None) -> int:
    """How many tables seat no two players of one team (a name not in `team_of` is a team of its own),
    each with the `challenger` if given: the elementary symmetric polynomial of the teams' sizes.

    >>> count_tables("abcd", 2, team_of={"a": "x", "b": "x"}), count_tables("abcd", 2, team_of={}, challenger="a")
    (5, 3)
    """
    excluded = {challenger, *(name for name in names if challenger is not None
                              and team_of.get(name, name) == team_of.get(challenger, challenger))}
    sizes = Counter(team_of.get(name, name) for name in names if name not in excluded)
    seats = table_size - (challenger is not None)
    ways = [1] + [0] * seats  # ways[k]: tables of k seats drawn from the teams seen so far
    for size in sizes.values():
        for k in range(seats, 0, -1):
            ways[k] += ways[k - 1] * size
    return ways[seats]


def tables(config: TournamentConfig) -> list[tuple[str, ...]]:
    """The base seatings of every table the format draws, in plan order.

    >>> from arena.tournament import parse_config
    >>> config = parse_config('''
    ... name: t
    ... participants: [{name: a, address: "h:1"}, {name: b, address: "h:2"}, {name: c, address: "h:3"}]
    ... format: gauntlet
    ... challenger: c
    ... ''')
    >>> tables(config)
    [('c', 'a'), ('c', 'b')]
    """
    return list(_tables(config))


def _tables(config: TournamentConfig) -> Iterator[tuple[str, ...]]:
    names = config.names
    team_of = config.team_of
    if config.format is Format.GAUNTLET:
        challenger = config.challenger
        assert challenger is not None  # a TournamentConfig refuses a gauntlet without one
        field = [name for name in names if name != challenger]
        if team_of:
            mine = team_of.get(challenger, challenger)
            return ((challenger, *others) for others in _team_combinations(
                [name for name in field if team_of.get(name, name) != mine], config.table_size - 1, team_of))
        return ((challenger, *others) for others in itertools.combinations(field, config.table_size - 1))
    if team_of:
        return _team_combinations(list(names), config.table_size, team_of)
    return itertools.combinations(names, config.table_size)


def _team_combinations(names: Sequence[str], size: int, team_of: Mapping[str, str]) -> Iterator[tuple[str, ...]]:
    # The combinations of `itertools.combinations`, in its order, less those seating two of one team:
    # built seat by seat, so the work is in proportion to the tables drawn, not to every combination.
    def extend(start: int, chosen: tuple[str, ...], teams: frozenset[str]) -> Iterator[tuple[str, ...]]:
        if len(chosen) == size:
            yield chosen
            return
        for index in range(start, len(names) - (size - len(chosen)) + 1):
            team = team_of.get(names[index], names[index])
            if team not in teams:
                yield from extend(index + 1, (*chosen, names[index]), teams | {team})

    return extend(0, (), frozenset())


def plan(config: TournamentConfig) -> Plan:
    """Every session of the tournament in the order they are started (a lazy sequence).

    The plan depends only on the participants' names and order, the format, `table_size`,
    `sessions_per_table`, `duplicate` and the secret (`config.seed`).

    >>> from arena.tournament import parse_config
    >>> config = parse_config('''
    ... name: t
    ... participants: [{name: a, address: "h:1"}, {name: b, address: "h:2"}, {name: c, address: "h:3"}]
    ... ''')
    >>> [(s.id, s.table, s.block, s.mirror) for s in plan(config)][:3]
    [('s0001', ('a', 'b'), 'b0001', 0), ('s0002', ('b', 'a'), 'b0001', 1), ('s0003', ('a', 'c'), 'b0002', 0)]
    >>> len(plan(config)), plan(config)[-1].id
    (6, 's0006')
    """
    return Plan(config)


class Plan(Sequence[PlannedSession]):
    """The sessions of a tournament in plan order, each computed when it is read; see `plan`."""

    def __init__(self, config: TournamentConfig) -> None:
        self._config = config
        self._challenger = config.challenger if config.format is Format.GAUNTLET else None
        self._field = tuple(name for name in config.names if name != self._challenger)
        self._others = config.table_size - (self._challenger is not None)  # seats each table draws from the field
        # With teams the tables drawn are listed (a TournamentConfig bounds them, `MAX_TEAM_TABLES`); without,
        # each is computed from its rank among the combinations.
        self._listed = list(_tables(config)) if config.team_of else None
        self._table_count = math.comb(len(self._field), self._others) if self._listed is None else len(self._listed)
        self._block = block_size(config.table_size) if config.duplicate else 1
        self._length = count_sessions(participants=len(config.participants), table_size=config.table_size,
                                      format=config.format, sessions_per_table=config.sessions_per_table,
                                      duplicate=config.duplicate, table_count=self._table_count)

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, index: int) -> PlannedSession: ...

    @overload
    def __getitem__(self, index: slice) -> list[PlannedSession]: ...

    def __getitem__(self, index: int | slice) -> PlannedSession | list[PlannedSession]:
        if isinstance(index, slice):
            return [self[position] for position in range(*index.indices(self._length))]
        position = index + self._length if index < 0 else index
        if not 0 <= position < self._length:
            raise IndexError(f"plan index {index} out of range (the plan has {self._length} sessions)")
        per_round = self._table_count * self._block
        number, rest = divmod(position, per_round)
        table, slot = divmod(rest, self._block)
        if self._listed is not None:
            base = self._listed[table]
        else:
            chosen = _combination(len(self._field), self._others, table)
            base = ((self._challenger,) if self._challenger is not None else ()) + tuple(self._field[i] for i in chosen)
        return self._session(position + 1 - slot, number + 1, number * self._table_count + table + 1, base)[slot]

    def __iter__(self) -> Iterator[PlannedSession]:
        index = 0
        for number in range(1, self._config.sessions_per_table + 1):
            for table, base in enumerate(_tables(self._config)):
                sessions = self._session(index + 1, number, (number - 1) * self._table_count + table + 1, base)
                yield from sessions
                index += len(sessions)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence):
            return NotImplemented
        return len(self) == len(other) and all(mine == theirs for mine, theirs in zip(self, other, strict=True))

    def _session(self, first_index: int, number: int, block_number: int, base: tuple[str, ...]) -> list[PlannedSession]:
        # The sessions of one block; `first_index` is the 1-based plan position of its first mirror.
        deals = self._config.deals
        seed = deals.seeds[block_number - 1] if deals is not None else block_seed(self._config.seed, base, number)
        block = f"b{block_number:04d}"
        if self._config.duplicate:
            seatings = list(enumerate(mirrors(base)))
        else:
            # One session per block; rotate so that each bot takes each seat once every table_size sessions.
            shift = (number - 1) % len(base)
            seatings = [(0, tuple(base[(seat + shift) % len(base)] for seat in range(len(base))))]
        return [PlannedSession(index=first_index + offset, id=f"s{first_index + offset:04d}", table=seating,
                               block=block, seed=seed, mirror=mirror)
                for offset, (mirror, seating) in enumerate(seatings)]


def _combination(n: int, k: int, rank: int) -> tuple[int, ...]:
    """The `rank`-th k-combination of range(n) in the order `itertools.combinations` gives them.

    >>> all(_combination(6, 3, rank) == combination
    ...     for rank, combination in enumerate(itertools.combinations(range(6), 3)))
    True
    """
    chosen: list[int] = []
    start = 0
    for slots in range(k, 0, -1):
        for candidate in range(start, n):
            following = math.comb(n - candidate - 1, slots - 1)
            if rank < following:
                chosen.append(candidate)
                start = candidate + 1
                break
            rank -= following
    return tuple(chosen)
