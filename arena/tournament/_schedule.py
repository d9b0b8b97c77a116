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
  4..6    the n rotations of the base and the n of its reverse    2n
  ======  =====================================================  ========

  Every bot holds every seat slot's cards in a block, once (heads-up) or twice; the reversed
  rotations also turn the order of play around, so no bot always acts just after the same rival.
- Without duplicate dealing every session is a block of its own with its own seed, and the
  sessions of a table cycle through the rotations of the base seating; `sessions_per_table` is a
  multiple of the table size, so again every bot sits in every seat equally often.
- Order. Blocks are played round by round: the first block of every table, then the second of
  every table, and so on; a block's mirrors are consecutive. An interrupted tournament thus has
  every table about equally far along.
- Seeds. The tournament secret (the `seed` of the definition) keys an HMAC-SHA256 of
  `block|<names of the base seating, comma-separated>|<block number within the table>`; its hex
  digest is the deal seed of every session of that block. `commitment(secret)` (SHA-256) is
  published before the first session and the secret after the last, so anyone can check that the
  deals were fixed in advance and not chosen.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from ._config import Format, TournamentConfig


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


def commitment(secret: str) -> str:
    """The SHA-256 hex digest of the tournament secret, published before the first session.

    >>> commitment("abc")
    'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'
    """
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def block_seed(secret: str, table: Sequence[str], block_number: int) -> str:
    """The deal seed of a block: HMAC-SHA256 keyed by the secret, over the base seating and block number.

    >>> block_seed("s", ["a", "b"], 1) == block_seed("s", ("a", "b"), 1) != block_seed("s", ["a", "b"], 2)
    True
    """
    message = f"block|{','.join(table)}|{block_number}".encode("utf-8")
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


def tables(config: TournamentConfig) -> list[tuple[str, ...]]:
    """The base seatings of every table the format draws, in plan order.

    >>> from arena.tournament import parse_config
    >>> config = parse_config('''
    ... name: t
    ... participants: [{name: a, address: "h:1"}, {name: b, address: "h:2"}, {name: c, address: "h:3"}]
    ... format: gauntlet
    ... challenger: c
    ... seed: x
    ... ''')
    >>> tables(config)
    [('c', 'a'), ('c', 'b')]
    """
    names = config.names
    if config.format is Format.GAUNTLET:
        challenger = config.challenger
        assert challenger is not None  # a TournamentConfig refuses a gauntlet without one
        field = [name for name in names if name != challenger]
        return [(challenger, *others) for others in itertools.combinations(field, config.table_size - 1)]
    return list(itertools.combinations(names, config.table_size))


def plan(config: TournamentConfig) -> list[PlannedSession]:
    """Every session of the tournament in the order they are started.

    The plan depends only on the participants' names and order, the format, `table_size`,
    `sessions_per_table`, `duplicate` and the secret (`config.seed`).

    >>> from arena.tournament import parse_config
    >>> config = parse_config('''
    ... name: t
    ... participants: [{name: a, address: "h:1"}, {name: b, address: "h:2"}, {name: c, address: "h:3"}]
    ... seed: x
    ... ''')
    >>> [(s.id, s.table, s.block, s.mirror) for s in plan(config)][:3]
    [('s0001', ('a', 'b'), 'b0001', 0), ('s0002', ('b', 'a'), 'b0001', 1), ('s0003', ('a', 'c'), 'b0002', 0)]
    """
    bases = tables(config)
    sessions: list[PlannedSession] = []
    block_count = 0
    for number in range(1, config.sessions_per_table + 1):
        for base in bases:
            block_count += 1
            block = f"b{block_count:04d}"
            seed = block_seed(config.seed, base, number)
            if config.duplicate:
                seatings = list(enumerate(mirrors(base)))
            else:
                # One session per block; rotate so that each bot takes each seat once every table_size sessions.
                shift = (number - 1) % len(base)
                seatings = [(0, tuple(base[(seat + shift) % len(base)] for seat in range(len(base))))]
            for mirror, seating in seatings:
                index = len(sessions) + 1
                sessions.append(PlannedSession(index=index, id=f"s{index:04d}", table=seating,
                                               block=block, seed=seed, mirror=mirror))
    return sessions
