"""What a player can do, and the exact bounds the rules allow at a turn."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from ._amounts import Amount


class Fault(enum.Enum):
    """Why the arena acted for a bot (table clarification 7)."""

    TIMEOUT = "timeout"
    ILLEGAL = "illegal"
    MALFORMED = "malformed"
    CRASH = "crash"


@dataclass(frozen=True, slots=True)
class Fold:
    """Leave the deal; payments stay in the pot."""


@dataclass(frozen=True, slots=True)
class Bet:
    """Pay a fresh amount: a call if it equals the previous bet, a raise if larger."""

    amount: Amount


@dataclass(frozen=True, slots=True)
class Show:
    """With exactly two players in and a previous bet: pay it once and compare hands."""


@dataclass(frozen=True, slots=True)
class SvaraAnswer:
    """Accept or decline an offer to re-enter a svara at its price."""

    accept: bool


Action = Fold | Bet | Show | SvaraAnswer


@dataclass(frozen=True, slots=True)
class LegalActions:
    """The choices of the seat to act in a betting turn. Folding is always allowed."""

    seat: int
    min_bet: Amount
    """The least payment: the previous bet, or the opening stake when nobody has paid yet."""
    max_bet: Amount
    """The most any payment may be."""
    show_amount: Amount | None
    """What a show costs (the previous bet), or None when showing is not allowed."""

    @property
    def can_show(self) -> bool:
        return self.show_amount is not None
