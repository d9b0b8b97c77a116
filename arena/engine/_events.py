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
from ._mix import Mix

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
    options: tuple[tuple[str, str], ...] = ()
    """Every option of the profile; empty for `georgian` with every option at its default (as before options)."""
    stacks: tuple[Amount, ...] = ()
    """Each seat's starting stack (stake profiles); empty when the profile plays without stacks."""
    format: int = 1
    """The history format (docs/history.md); format 1 is written without the field."""

    def to_json(self) -> dict[str, Any]:
        return {
            "event": self.KIND,
            **({"format": self.format} if self.format != 1 else {}),
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
            **({"options": dict(self.options)} if self.options else {}),
            **({"stacks": _balances_json(self.stacks)} if self.stacks else {}),
        }


@dataclass(frozen=True, slots=True)
class Dealt:
    """Cards dealt for an ordinary deal (replay 0) or a svara replay."""

    KIND: ClassVar[str] = "deal"
    pot: int
    replay: int
    dealer: int
    hands: Hands
    unseen: tuple[int, ...] = ()
    """Seats that may bet dark: they are not shown their cards until they look (a `Looked` event)."""

    def to_json(self) -> dict[str, Any]:
        record: dict[str, Any] = {"event": self.KIND, "pot": self.pot, "replay": self.replay, "dealer": self.dealer,
                                  "hands": _hands_json(self.hands)}
        if self.unseen:
            record["unseen"] = list(self.unseen)
        return record


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
    """`bet`, `fold`, `show`, `dark_bet`, `support`, `raise`, `open`, `call` or `multiway_open`."""
    amount: Amount
    """What the seat paid (0 for a fold)."""
    fault: Fault | None = None
    stake: Amount | None = None
    """A raise's new current stake (stake profiles)."""
    mix: Mix | None = None
    """The distribution the bot answered with, when it answered with one (history format 3)."""
    draw: float | None = None
    """The uniform that picked this action from `mix` (`arena.engine.mix_draw`); None without a mix."""

    def to_json(self) -> dict[str, Any]:
        record: dict[str, Any] = {"event": self.KIND, "seat": self.seat, "kind": self.kind,
                                  "amount": format_amount(self.amount)}
        if self.fault is not None:
            record["fault"] = self.fault.value
        if self.stake is not None:
            record["stake"] = format_amount(self.stake)
        if self.mix is not None:
            record["mix"] = self.mix.to_json()
            record["draw"] = self.draw
        return record


@dataclass(frozen=True, slots=True)
class Looked:
    """A seat saw its own cards (dark play); only that seat is told which (`redact_for`)."""

    KIND: ClassVar[str] = "look"
    seat: int
    cards: tuple[Card, ...]

    def to_json(self) -> dict[str, Any]:
        return {"event": self.KIND, "seat": self.seat, "cards": [str(card) for card in self.cards]}


@dataclass(frozen=True, slots=True)
class Compared:
    """A multiway open: the opener's hand against the previous payer's; the weaker (the opener on equal
    values) drops out. Only these two see the hands (`redact_for`); the others learn who dropped out."""

    KIND: ClassVar[str] = "comparison"
    pot: int
    replay: int
    opener: int
    target: int
    hands: Hands
    values: Mapping[int, HandValue]
    loser: int

    def to_json(self) -> dict[str, Any]:
        return {"event": self.KIND, "pot": self.pot, "replay": self.replay, "opener": self.opener,
                "target": self.target, "hands": _hands_json(self.hands), "values": _values_json(self.values),
                "loser": self.loser}


@dataclass(frozen=True, slots=True)
class ShortOfChips:
    """A seat could not cover the stake: it paid all it had left (the action just before) and the
    hands are compared at once."""

    KIND: ClassVar[str] = "short"
    seat: int
    paid: Amount
    needed: Amount
    """What the action would have cost with enough chips."""

    def to_json(self) -> dict[str, Any]:
        return {"event": self.KIND, "seat": self.seat, "paid": format_amount(self.paid),
                "needed": format_amount(self.needed)}


@dataclass(frozen=True, slots=True)
class ChipsReturned:
    """The part of a raise that a short payment does not match goes back to the raiser from the pot
    (rules edition 2; edition 1 gave back the unmatched part of the other's last payment, whatever it was)."""

    KIND: ClassVar[str] = "returned"
    seat: int
    amount: Amount
    raise_paid: Amount | None = None
    """What the raise it comes from paid (edition 2); None in edition-1 histories, which do not record it."""

    def to_json(self) -> dict[str, Any]:
        record = {"event": self.KIND, "seat": self.seat, "amount": format_amount(self.amount)}
        if self.raise_paid is not None:
            record["raise"] = format_amount(self.raise_paid)
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
class PotSplit:
    """`tie: split`: the tied players share the pot equally (exact); nobody re-enters, no replay."""

    KIND: ClassVar[str] = "split"
    pot: int
    seats: tuple[int, ...]
    amount: Amount
    """The whole pot."""
    share: Amount
    """What each of `seats` receives: `amount / len(seats)`."""
    balances: tuple[Amount, ...]

    def to_json(self) -> dict[str, Any]:
        return {"event": self.KIND, "pot": self.pot, "seats": list(self.seats), "amount": format_amount(self.amount),
                "share": format_amount(self.share), "balances": _balances_json(self.balances)}


@dataclass(frozen=True, slots=True)
class SessionCut:
    """A stake profile's session ends early: these seats cannot pay the ante of the next pot."""

    KIND: ClassVar[str] = "session_cut"
    pots_played: int
    seats: tuple[int, ...]
    stacks: tuple[Amount, ...]

    def to_json(self) -> dict[str, Any]:
        return {"event": self.KIND, "pots_played": self.pots_played, "seats": list(self.seats),
                "stacks": _balances_json(self.stacks)}


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
         | SessionEnded | Looked | Compared | ShortOfChips | ChipsReturned | PotSplit | SessionCut)
