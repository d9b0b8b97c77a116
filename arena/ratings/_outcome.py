"""The input of every rating: one finished session's bots, balances, duplicate block and faults."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from types import MappingProxyType

from ..engine import ArenaError


class RatingError(ArenaError, ValueError):
    """Results that cannot be rated as asked: no sessions, an unknown anchor, a split comparison graph."""


def _empty_faults() -> Mapping[str, int]:
    return MappingProxyType({})


@dataclass(frozen=True)
class SessionOutcome:
    """The result of one finished session, as the ratings see it.

    >>> from fractions import Fraction
    >>> outcome = SessionOutcome(("alice", "bob", "carol"), (Fraction(5, 2), -4, Fraction(3, 2)), "b1",
    ...                          faults={"bob": 1})
    >>> outcome.balance_of("carol"), outcome.faults["bob"]
    (Fraction(3, 2), 1)
    >>> SessionOutcome(("alice", "bob"), (3, -2), "b1")
    Traceback (most recent call last):
    ...
    arena.ratings.RatingError: balances must sum to zero, not 1: (3, -2)
    """

    bots: tuple[str, ...]
    """Bot name by seat; a bot sits at most once per session."""
    balances: tuple[Fraction | int, ...]
    """Net chips by seat, exact; they sum to zero."""
    block: str
    """The duplicate block the session belongs to, or the session's own id when dealing is not duplicated.

    The bootstrap resamples whole blocks, because the sessions of a block share their cards."""
    faults: Mapping[str, int] = field(default_factory=_empty_faults, hash=False)
    """Faults charged to each bot in this session (bots without faults may be left out)."""

    def __post_init__(self) -> None:
        bots = tuple(self.bots)
        balances = tuple(self.balances)
        object.__setattr__(self, "bots", bots)
        object.__setattr__(self, "balances", balances)
        object.__setattr__(self, "faults", MappingProxyType(dict(self.faults)))
        if len(bots) < 2:
            raise RatingError(f"a session needs at least two bots, not {bots!r}")
        if len(set(bots)) != len(bots):
            raise RatingError(f"a bot may sit only once per session: {bots!r}")
        if not all(isinstance(bot, str) and bot for bot in bots):
            raise RatingError(f"bot names must be non-empty strings: {bots!r}")
        if len(balances) != len(bots):
            raise RatingError(f"expected {len(bots)} balances, one per seat, not {len(balances)}: {balances!r}")
        for balance in balances:
            if isinstance(balance, bool) or not isinstance(balance, int | Fraction):
                raise RatingError(f"balances must be exact (int or Fraction), not {balance!r}")
        if sum(balances) != 0:
            raise RatingError(f"balances must sum to zero, not {sum(balances)}: {balances!r}")
        if not isinstance(self.block, str):
            raise RatingError(f"block must be a string, not {self.block!r}")
        for bot, count in self.faults.items():
            if bot not in bots:
                raise RatingError(f"faults name {bot!r}, who did not sit in this session: {bots!r}")
            if isinstance(count, bool) or not isinstance(count, int) or count < 0:
                raise RatingError(f"a fault count must be a non-negative int, not {count!r} for {bot!r}")

    def balance_of(self, bot: str) -> Fraction | int:
        """The balance of `bot`, who must have sat in this session."""
        return self.balances[self.bots.index(bot)]
