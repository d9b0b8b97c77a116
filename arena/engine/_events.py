"""What happened: frozen events the engine emits, each with its hand-history (JSON Lines) form.

Amounts are written as exact rationals in lowest terms (`"15/2"`), cards as two characters
(`"Th"`), seats as numbers, and seat-keyed objects with decimal-string keys.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from ._actions import Fault
from ._amounts import Amount, format_amount
from ._cards import Card
from ._hands import HandValue

Hands = Mapping[int, tuple[Card, ...]]


def _hands_json(hands: Hands) -> dict[str, list[str]]:
    return {str(seat): [str(card) for card in cards] for seat, cards in hands.items()}


def _balances_json(balances: tuple[Amount, ...]) -> dict[str, str]:
    return {str(seat): format_amount(balance) for seat, balance in enumerate(balances)}


def _values_json(values: Mapping[int, HandValue]) -> dict[str, str]:
    return {str(seat): value.label for seat, value in values.items()}


@dataclass(frozen=True, slots=True)
class SessionStarted:
    KIND: ClassVar[str] = "session_start"
    session: str
    profile: str
    seed: str
    bots: tuple[str, ...]
    """Bot names by seat."""
    ante: Amount
    opening_stake: Amount
    max_bet: Amount
    pots: int
    max_actions: int
    first_dealer: int
    dealing: str = "seeded"
    """`seeded`: every deal is `deck_order(seed, pot, replay)`; `stacked`: cards were chosen (tests, checks)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "event": self.KIND,
            "session": self.session,
            "profile": self.profile,
            "seed": self.seed,
            "seats": [{"seat": seat, "bot": bot} for seat, bot in enumerate(self.bots)],
            "ante": format_amount(self.ante),
            "opening_stake": format_amount(self.opening_stake),
            "max_bet": format_amount(self.max_bet),
            "pots": self.pots,
            "max_actions": self.max_actions,
            "first_dealer": self.first_dealer,
            "dealing": self.dealing,
        }


@dataclass(frozen=True, slots=True)
class Dealt:
    """Cards dealt for an ordinary deal (replay 0) or a svara replay."""

    KIND: ClassVar[str] = "deal"
    pot: int
    replay: int
    dealer: int
    hands: Hands

    def to_json(self) -> dict[str, Any]:
        return {"event": self.KIND, "pot": self.pot, "replay": self.replay, "dealer": self.dealer,
                "hands": _hands_json(self.hands)}


@dataclass(frozen=True, slots=True)
class AntePaid:
    KIND: ClassVar[str] = "ante"
    seat: int
    amount: Amount

    def to_json(self) -> dict[str, Any]:
        return {"event": self.KIND, "seat": self.seat, "amount": format_amount(self.amount)}


@dataclass(frozen=True, slots=True)
class Acted:
    """A betting action; `fault` is set when the arena folded for a bot."""

    KIND: ClassVar[str] = "action"
    seat: int
    kind: str
    """`bet`, `fold` or `show`."""
    amount: Amount
    fault: Fault | None = None

    def to_json(self) -> dict[str, Any]:
        record: dict[str, Any] = {"event": self.KIND, "seat": self.seat, "kind": self.kind,
                                  "amount": format_amount(self.amount)}
        if self.fault is not None:
            record["fault"] = self.fault.value
        return record


@dataclass(frozen=True, slots=True)
class _HandsShown:
    pot: int
    replay: int
    seats: tuple[int, ...]
    hands: Hands
    values: Mapping[int, HandValue]
    winner: int | None
    """The strongest hand's seat, or None when two or more tie for it (a svara)."""

    KIND: ClassVar[str]

    def to_json(self) -> dict[str, Any]:
        return {"event": self.KIND, "pot": self.pot, "replay": self.replay, "seats": list(self.seats),
                "hands": _hands_json(self.hands), "values": _values_json(self.values), "winner": self.winner}


@dataclass(frozen=True, slots=True)
class Revealed(_HandsShown):
    """The action cap was reached: everyone still in shows, clockwise from the dealer's left."""

    KIND: ClassVar[str] = "reveal"


@dataclass(frozen=True, slots=True)
class ShowdownHeld(_HandsShown):
    """A heads-up show: both hands revealed, the shower's first."""

    KIND: ClassVar[str] = "showdown"


@dataclass(frozen=True, slots=True)
class SvaraDeclared:
    """A tie for the pot: it is frozen and re-entry is offered at half of it."""

    KIND: ClassVar[str] = "svara"
    frozen_pot: Amount
    tied: tuple[int, ...]
    price: Amount
    eligible: tuple[int, ...]
    """Seats offered re-entry, in the order they are asked."""

    def to_json(self) -> dict[str, Any]:
        return {"event": self.KIND, "frozen_pot": format_amount(self.frozen_pot), "tied": list(self.tied),
                "price": format_amount(self.price), "eligible": list(self.eligible)}


@dataclass(frozen=True, slots=True)
class Entered:
    """One answer to a svara offer; `fault` is set when the arena declined for a bot."""

    KIND: ClassVar[str] = "entry"
    seat: int
    accepted: bool
    amount: Amount
    fault: Fault | None = None

    def to_json(self) -> dict[str, Any]:
        record: dict[str, Any] = {"event": self.KIND, "seat": self.seat, "accepted": self.accepted,
                                  "amount": format_amount(self.amount)}
        if self.fault is not None:
            record["fault"] = self.fault.value
        return record


@dataclass(frozen=True, slots=True)
class PotWon:
    KIND: ClassVar[str] = "pot_won"
    pot: int
    seat: int
    amount: Amount
    """The whole pot, the winner's own payments included."""
    shown: bool
    """False when the winner was the lone survivor and showed nothing."""
    balances: tuple[Amount, ...]
    """Net chips by seat once the pot is paid out."""

    def to_json(self) -> dict[str, Any]:
        return {"event": self.KIND, "pot": self.pot, "seat": self.seat, "amount": format_amount(self.amount),
                "shown": self.shown, "balances": _balances_json(self.balances)}


@dataclass(frozen=True, slots=True)
class SessionEnded:
    KIND: ClassVar[str] = "session_end"
    balances: tuple[Amount, ...]
    """Net chips by seat; they sum to zero."""
    winners: tuple[int, ...]
    """Every seat with the highest balance (exact ties share the win)."""

    def to_json(self) -> dict[str, Any]:
        return {"event": self.KIND,
                "balances": _balances_json(self.balances),
                "winners": list(self.winners)}


Event = (SessionStarted | Dealt | AntePaid | Acted | Revealed | ShowdownHeld | SvaraDeclared | Entered | PotWon
         | SessionEnded)
