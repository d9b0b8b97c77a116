"""Deal books: a committed list of deal seeds that a tournament's blocks deal from, in plan order.

Theory of operation: a tournament without a book derives each block's deal seed from its secret
and the block's seating (docs/tournaments.md, "Re-deriving every deal"). A tournament with
`deals: FILE` deals block b (b = 1, 2, ... across the whole plan, `b0001` first) from the book's
b-th seed instead, so several tournaments, or the same one run again after a bot is updated, meet
the same deals whatever their participants are called. The book's SHA-256 joins the secret in the
commitment (`arena.storage.commitment_of`), so the book cannot be swapped once play has begun, and
a copy is kept with the results for `seka-arena replay --results` to check. A book's seeds deal
every card: it is as secret as a tournament's secret until the last tournament that uses it is over.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass
from pathlib import Path

from ..engine import ArenaError
from ._secret import secret_problem

MAX_DEALS = 100_000
"""The most seeds one book holds (a 6.7 MB file): more blocks than any tournament plays in a day."""
MAX_BOOK_BYTES = 8 << 20
"""A book file larger than this is refused before it is parsed."""
BOOK_NAME = "deals.yaml"
"""The copy of a tournament's book kept in its results folder."""
_SEED = re.compile(r"[0-9a-f]{64}")


def deal_seed_problem(value: object, *, shown: str | None = None) -> str | None:
    """Why `value` is no deal seed of a book, or None: one is 64 lowercase hex digits drawn at random.

    >>> deal_seed_problem("c04c7bcc7acd96787753664a0bf248e67d038158ba6afe2400fe0e7ebaf9bfba") is None
    True
    >>> print(deal_seed_problem("ab12"))
    must be 64 lowercase hex digits (a quoted string, as `seka-arena deals make` writes), not 'ab12'
    >>> print(deal_seed_problem("0" * 64))  # doctest: +ELLIPSIS
    a deal seed deals every card, so it must be drawn at random: 00000000... does not look random ...
    """
    if not isinstance(value, str) or not _SEED.fullmatch(value):
        shown = shown or (repr(value) if len(repr(value)) <= 70 else repr(value)[:67] + "...")
        return f"must be 64 lowercase hex digits (a quoted string, as `seka-arena deals make` writes), not {shown}"
    if secret_problem(value) is not None:
        return (f"a deal seed deals every card, so it must be drawn at random: {value[:8]}... does not look "
                "random (make a book with `seka-arena deals make N`)")
    return None


@dataclass(frozen=True)
class DealBook:
    """A deal book as read (see the module docstring); checks itself."""

    seeds: tuple[str, ...]
    """Block b deals from `seeds[b - 1]`."""
    data: bytes
    """The book file's bytes, as read once (the run keeps a copy with its results)."""
    path: Path | None = None
    """Where it was read from: hidden from sandboxed bots, like the tournament file."""

    @property
    def sha256(self) -> str:
        """The hex SHA-256 of the book file's bytes: what the commitment binds."""
        return hashlib.sha256(self.data).hexdigest()

    def __post_init__(self) -> None:
        if not 1 <= len(self.seeds) <= MAX_DEALS:
            raise ArenaError(f"a deal book holds 1 to {MAX_DEALS} deals, not {len(self.seeds)}")
        if len(set(self.seeds)) != len(self.seeds):
            raise ArenaError("a deal book holds each deal once")
        for seed in self.seeds:
            if (problem := deal_seed_problem(seed)) is not None:
                raise ArenaError(f"deal seed {problem}")


def make_deal_book(count: int) -> str:
    """The text of a new book of `count` seeds, each drawn from the system's secure random source.

    >>> text = make_deal_book(2)
    >>> text.splitlines()[2], len(text.splitlines()[3])
    ('deals:', 70)
    """
    if not 1 <= count <= MAX_DEALS:
        raise ArenaError(f"a deal book holds 1 to {MAX_DEALS} deals, not {count}")
    seeds = "".join(f'  - "{secrets.token_hex(32)}"\n' for _ in range(count))
    return ("# A seka-arena deal book (docs/tournaments.md, \"Deal books\"): block b of a tournament that names it\n"
            "# deals from seed b. Keep it as secret as a tournament secret until its last tournament is over.\n"
            f"deals:\n{seeds}")
