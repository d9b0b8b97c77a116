"""What a player can do, and the exact bounds the rules allow at a turn."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import NamedTuple

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
    """Max-bet profiles: pay a fresh amount, a call if it equals the previous bet, a raise if larger."""

    amount: Amount


@dataclass(frozen=True, slots=True)
class Show:
    """Max-bet profiles, two players in and a previous bet: pay the least payment once and compare."""


@dataclass(frozen=True, slots=True)
class SvaraAnswer:
    """Accept or decline an offer to re-enter a svara at its price."""

    accept: bool


@dataclass(frozen=True, slots=True)
class Look:
    """See one's own cards (dark play); the turn stays with the looker."""


@dataclass(frozen=True, slots=True)
class DarkBet:
    """Bet before seeing one's cards, at the first turn of an ordinary deal (dark play)."""

    amount: Amount


@dataclass(frozen=True, slots=True)
class Support:
    """Stake profiles: pay the current stake (twice it against an unread dark hand); betting goes on."""


@dataclass(frozen=True, slots=True)
class Raise:
    """Stake profiles: lift the current stake to `stake` and pay it (twice it against an unread dark hand)."""

    stake: Amount


@dataclass(frozen=True, slots=True)
class Open:
    """`seka36`, `seka21`: pay the current stake and compare; once both players have acted in the deal."""


@dataclass(frozen=True, slots=True)
class Call:
    """`svara32`: pay exactly the current stake after the deal's first payment; compare."""


@dataclass(frozen=True, slots=True)
class MultiwayOpen:
    """`classic` with `open: multiway`, three or more in: pay the least payment and compare with the
    previous payer; the weaker hand drops out (the opener on equal values)."""


Action = Fold | Bet | Show | SvaraAnswer | Look | DarkBet | Support | Raise | Open | Call | MultiwayOpen


class LegalActions(NamedTuple):
    """The choices of the seat to act in a betting turn, with exact bounds. Folding is always allowed.

    A named tuple, not a frozen dataclass: one is built at most turns, and building a tuple is several
    times faster (the engine's speed goal counts it); it is just as immutable.

    A max-bet profile (`georgian`, `classic`) offers `Bet` in `min_bet..max_bet` and `Show`; a stake
    profile (`seka36`, `svara32`, `seka21`) offers `Support`, `Raise` and `Open` or `Call` instead.
    A seat that has not seen its cards (`seen` False) is offered only `Look`, `DarkBet` and `Fold`,
    except in a stake profile after its dark bet, where it may play on unread.
    """

    seat: int
    min_bet: Amount
    """The least `Bet` (and what a `Show` costs); meaningful only when `can_bet`."""
    max_bet: Amount
    """The most a `Bet` may be; meaningful only when `can_bet`."""
    show_amount: Amount | None
    """What a show costs, or None when showing is not allowed."""
    can_bet: bool = True
    seen: bool = True
    """False while the seat has not looked at its cards (it is then not given them)."""
    can_look: bool = False
    dark_min: Amount | None = None
    """The least dark bet, or None when betting dark is not allowed."""
    dark_max: Amount | None = None
    support_amount: Amount | None = None
    """What a `Support` pays, or None when it is not allowed."""
    raise_min: Amount | None = None
    """The least new stake of a `Raise`, or None when raising is not allowed."""
    raise_max: Amount | None = None
    """The greatest new stake: what both players can still answer."""
    pay_factor: int = 1
    """2 while the other player's dark hand stays unread: support, raise, open and call cost twice the stake."""
    open_amount: Amount | None = None
    """What an `Open` pays, or None."""
    call_amount: Amount | None = None
    """What a `Call` pays, or None."""
    short: bool = False
    """The seat cannot cover the stake: support, open and call pay all it has left and compare at once."""
    multiway_amount: Amount | None = None
    """What a `MultiwayOpen` pays, or None."""
    multiway_target: int | None = None
    """The previous payer a `MultiwayOpen` compares with."""

    @property
    def can_show(self) -> bool:
        return self.show_amount is not None

    @property
    def can_dark_bet(self) -> bool:
        return self.dark_min is not None

    @property
    def can_raise(self) -> bool:
        return self.raise_min is not None

    @property
    def can_multiway_open(self) -> bool:
        return self.multiway_amount is not None
