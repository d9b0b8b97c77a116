"""What a bot is told, as small frozen dataclasses: amounts are exact numbers, cards are strings."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ..engine import (
    GEORGIAN_EVALUATOR,
    HAND_OPTIONS,
    Action,
    Amount,
    Bet,
    Call,
    Card,
    Fold,
    HandEvaluator,
    HandValue,
    LegalActions,
    Look,
    Mix,
    Open,
    Raise,
    RulesError,
    Show,
    Support,
    hand_evaluator,
)


def hand_evaluator_for(profile_name: str = "georgian", options: Mapping[str, str] | None = None) -> HandEvaluator:
    """The hand-value lookup of a profile with its options as the greeting spells them (text).

    Options that do not change hand values (`tie`, `dark`, `open`, `stack`) are ignored; an
    unknown profile or a bad value of a hand option is a `RulesError`.

    >>> hand_evaluator_for("classic", {"wild": "black7", "cards": "3", "dark": "true"}).value_of_text("7s Th 9h").label
    '30'
    """
    given = options or {}
    try:
        known = HAND_OPTIONS[profile_name]
    except KeyError:
        raise RulesError(f"unknown profile {profile_name!r}; known: {', '.join(sorted(HAND_OPTIONS))}") from None
    chosen: dict[str, str | int] = {}
    for name, values in known.items():
        if name in given:
            text = str(given[name]).strip()
            chosen[name] = next((value for value in values if str(value) == text), text)
    return hand_evaluator(profile_name, **chosen)  # type: ignore[arg-type]


def hand_value(cards: Sequence[str], *, profile_name: str = "georgian",
               options: Mapping[str, str] | None = None) -> HandValue:
    """The value of a hand under a profile and its options: ordered, so stronger hands compare greater.

    >>> hand_value(["Td", "8d", "6d"]).label, hand_value(["Ah", "As", "7d"]).label
    ('24', '22')
    >>> hand_value(["6c", "6d", "6h"]) > hand_value(["Ah", "Kh", "Qh"])
    True
    >>> hand_value(["7c", "6h", "6d"], profile_name="seka36").label
    '34'
    """
    return hand_evaluator_for(profile_name, options).value([Card.parse(card) for card in cards])


@dataclass(frozen=True, slots=True)
class Table:
    """The table settings, fixed for the session."""

    ante: Amount
    """Paid by every seat before each ordinary deal (never before a svara replay)."""
    opening_stake: Amount
    """The least first payment of a deal."""
    max_bet: Amount
    """The most any one payment may be."""
    max_actions: int
    """Arena rule: after this many actions in one deal everyone still in reveals."""
    pots_per_session: int
    """Resolved ordinary pots in the session."""
    seats: int
    """How many seats the table has."""
    stack: Amount | None = None
    """Stake profiles: the chips each seat starts the session with; None without stacks."""
    deck: tuple[str, ...] = ()
    """Every card of the profile's deck."""
    wild: tuple[str, ...] = ()
    """The wild cards (`("7c",)`), empty without any."""
    hand_size: int = 3
    """Cards in one hand: 3, or 2 (`classic` with `cards: 2`)."""
    betting: str = "fresh"
    """`"fresh"` (georgian, classic: bets from min_bet to max_bet) or `"stake"` (seka36, svara32,
    seka21: support, raise_to, open or call against a current stake)."""


@dataclass(frozen=True, slots=True)
class Limits:
    """The time the bot is allowed, in milliseconds."""

    decision_ms: int
    """For one decision (an `act` or a `svara`)."""
    time_bank_ms: int
    """Extra time for the whole session, used when a decision runs long; 0 for none."""
    start_deadline_ms: int
    """How long the arena waited for the bot to become ready."""
    grace_ms: int = 0
    """The most the arena adds to a call's limit for time the bot could not use (its threads
    waiting for a CPU others held, the arena's own lateness); every gRPC deadline is later by
    this. `Turn.time_left` and `SvaraOffer.time_left` already leave it out."""


@dataclass(frozen=True, slots=True)
class Hello:
    """The first call of a session."""

    protocol_version: str
    """The protocol the arena speaks: `"seka.v1"`."""
    profile: str
    """The rules profile: `"georgian"`, `"classic"`, `"seka36"`, `"svara32"` or `"seka21"`."""
    table: Table
    limits: Limits
    session_id: str
    """Opaque; repeated in every later call."""
    seat: int
    """The bot's seat for the whole session."""
    options: Mapping[str, str] = field(default_factory=dict)
    """Every option of the profile with its value, as a tournament file spells it (`{"dark": "true"}`)."""

    def hand_evaluator(self) -> HandEvaluator:
        """The hand-value lookup of the session's profile and options (`RulesError` for a profile
        this SDK does not know): its `deck`, `hand_size` and `value(cards)`."""
        return hand_evaluator_for(self.profile, self.options)


@dataclass(frozen=True, slots=True)
class PublicAction:
    """One action of the current deal, as everybody saw it."""

    seat: int
    kind: str
    """`"bet"`, `"fold"`, `"show"`, or in other profiles `"dark_bet"`, `"support"`, `"raise"`, `"call"`,
    `"open"`, `"multiway_open"`."""
    amount: Amount
    """The payment (the previous bet for a show); 0 for a fold."""
    fault: str | None = None
    """Why the arena folded for the player (`"timeout"`, `"illegal"`, `"malformed"`, `"crash"`), or None."""
    stake: Amount | None = None
    """Stake profiles: the new stake of a raise; None otherwise."""


@dataclass(frozen=True, slots=True)
class SvaraEntry:
    """One answer to a svara offer."""

    seat: int
    accepted: bool
    fault: str | None = None
    """Why the arena declined for the seat, or None when it answered itself."""


@dataclass(frozen=True, slots=True)
class SvaraRound:
    """A svara declared in the current pot."""

    frozen_pot: Amount
    """The pot when the tie was declared."""
    price: Amount
    """Half of `frozen_pot`: what re-entry costs."""
    tied: tuple[int, ...]
    """The tied seats, who play the replay without paying."""
    eligible: tuple[int, ...]
    """The seats offered re-entry, in the order they were asked."""
    entries: tuple[SvaraEntry, ...]
    """Their answers, in order."""


@dataclass(frozen=True, slots=True)
class Turn:
    """The bot's betting turn, with the whole public state of the current deal."""

    session_id: str
    pot_number: int
    """The ordinary pot, 1..pots_per_session."""
    replay: int
    """0 for the ordinary deal, 1, 2, ... for svara replays of the pot."""
    dealer: int
    seat: int
    """The bot's own seat."""
    cards: tuple[str, ...]
    """The bot's three cards, like `("Th", "Ts", "6c")`."""
    bots: tuple[str, ...]
    """The bots' names by seat."""
    in_deal: tuple[int, ...]
    """The seats still in this deal, the bot's own among them."""
    pot: Amount
    """Everything paid into the pot so far."""
    previous_bet: Amount | None
    """The last payment of this deal, or None when nobody has paid yet."""
    balances: tuple[Amount, ...]
    """Net chips by seat, payments into the current pot already subtracted."""
    actions: tuple[PublicAction, ...]
    """Every action of this deal, oldest first."""
    svaras: tuple[SvaraRound, ...]
    """The svaras declared in this pot so far."""
    actions_count: int
    """Actions so far in this deal."""
    max_actions: int
    """At this many actions the deal stops and everyone still in reveals."""
    legal: LegalActions
    """Exactly what the bot may do now (folding is always allowed)."""
    time_left: float | None = None
    """Seconds until the arena's deadline for this call, or None when it set none."""
    cards_unseen: bool = False
    """Dark play: True while the bot has not seen its cards (`cards` is then empty); it may bet
    dark, look or fold."""
    stacks: tuple[Amount, ...] = ()
    """Stake profiles: every seat's chips left, by seat; empty without stacks."""
    stake: Amount | None = None
    """Stake profiles: the current stake of the deal; None elsewhere."""
    unseen: tuple[int, ...] = ()
    """Dark play: the seats in the deal that have not seen their cards."""
    evaluator: HandEvaluator | None = field(default=GEORGIAN_EVALUATOR, repr=False, compare=False)
    """The hand values of the session's profile and options (from the greeting); None when this
    SDK does not know the profile."""

    @property
    def min_bet(self) -> Amount:
        """The least payment allowed now: the previous bet or the opening stake."""
        return self.legal.min_bet

    @property
    def max_bet(self) -> Amount:
        """The most a payment may be."""
        return self.legal.max_bet

    @property
    def can_show(self) -> bool:
        """True when the bot may show (heads-up, with a previous bet)."""
        return self.legal.can_show

    @property
    def show_amount(self) -> Amount | None:
        """What a show costs now, or None when showing is not allowed."""
        return self.legal.show_amount

    def stay_in(self) -> Action:
        """The cheapest way to stay in, whatever the profile: `Look()` at unseen cards, else `Bet(min_bet)`
        or `Support()`; where neither is allowed, the comparison that ends the betting, else `Fold()`."""
        legal = self.legal
        if legal.can_look:
            return Look()
        if legal.can_bet:
            return Bet(legal.min_bet)
        if legal.support_amount is not None:
            return Support()
        return self.compare() or Fold()

    def compare(self) -> Action | None:
        """The action that ends the betting by comparing hands, when one is allowed now: `Show()`
        (heads-up), `Open()` (seka36, seka21) or `Call()` (svara32); None otherwise."""
        legal = self.legal
        if legal.can_show:
            return Show()
        if legal.open_amount is not None:
            return Open()
        if legal.call_amount is not None:
            return Call()
        return None

    def raise_most(self) -> Action:
        """The largest payment allowed: `Bet(max_bet)` or `Raise(raise_max)`; else as `stay_in()`."""
        legal = self.legal
        if legal.can_bet:
            return Bet(legal.max_bet)
        if legal.raise_max is not None:
            return Raise(legal.raise_max)
        return self.stay_in()

    def mix(self, probabilities: Mapping[Action, float] | Sequence[tuple[Action, float]]) -> Mix:
        """A mixed reply: return it from `act` and the arena draws the action, with a probability for each.

        For instance `turn.mix({Fold(): 0.25, turn.stay_in(): 0.75})`. The arena draws from randomness of
        its own, derived from the session's secret seed, and records the distribution and the draw in the
        history. Well formed: betting actions only (no `Look()`), each legal now and at most once, at most
        64, probabilities finite, at least 0 and summing to 1 within 1e-9; else the arena folds the bot
        (docs/protocol.md, "Mixed replies")."""
        pairs = probabilities.items() if isinstance(probabilities, Mapping) else probabilities
        return Mix(tuple((action, float(p)) for action, p in pairs))

    @property
    def opponents(self) -> tuple[int, ...]:
        """The other seats still in this deal."""
        return tuple(seat for seat in self.in_deal if seat != self.seat)

    def hand_value(self) -> HandValue:
        """The value of the bot's own cards under the session's profile and options."""
        if self.evaluator is None:
            raise RulesError("this SDK has no hand values for the session's profile")
        if not self.cards:
            raise ValueError("the bot has not seen its cards yet (dark play): look first")
        return self.evaluator.value([Card.parse(card) for card in self.cards])


@dataclass(frozen=True, slots=True)
class SvaraOffer:
    """An offer to re-enter the replay of a svara at its price."""

    session_id: str
    pot_number: int
    replay: int
    """The replay the svara leads to: 1 for the first svara of the pot."""
    seat: int
    """The bot's own seat."""
    dealer: int
    """The dealer of the deal that ended in the tie."""
    frozen_pot: Amount
    price: Amount
    """Half of `frozen_pot`, the same for everyone asked."""
    tied: tuple[int, ...]
    eligible: tuple[int, ...]
    """The seats offered re-entry, in the order they are asked."""
    answers: tuple[SvaraEntry, ...]
    """The answers of the seats asked before this bot."""
    balances: tuple[Amount, ...]
    time_left: float | None = None
    """Seconds until the arena's deadline for this call, or None when it set none."""
    stacks: tuple[Amount, ...] = ()
    """Stake profiles: every seat's chips left, by seat."""

    @property
    def entrants(self) -> tuple[int, ...]:
        """The seats that accepted before this bot."""
        return tuple(answer.seat for answer in self.answers if answer.accepted)


@dataclass(frozen=True, slots=True)
class Deal:
    """Cards were dealt to the bot (an ordinary deal or a svara replay)."""

    session_id: str
    pot_number: int
    replay: int
    dealer: int
    seat: int
    cards: tuple[str, ...]
    bots: tuple[str, ...]
    """The bots' names by seat."""
    players: tuple[int, ...]
    """The seats dealt in."""
    balances: tuple[Amount, ...]
    pot: Amount
    cards_unseen: bool = False
    """Dark play: dealt in without seeing its cards (`cards` is empty); a `Looked` brings them."""
    stacks: tuple[Amount, ...] = ()
    """Stake profiles: every seat's chips left after the antes."""


@dataclass(frozen=True, slots=True)
class ShownHand:
    """A hand revealed at a showdown."""

    seat: int
    cards: tuple[str, ...]
    value: str
    """The value as people say it: `"24"`, `"22"`, `"seka A"`."""


@dataclass(frozen=True, slots=True)
class Showdown:
    """Hands were revealed, by a heads-up show or at the action cap."""

    session_id: str
    pot_number: int
    replay: int
    kind: str
    """`"heads_up"`, `"action_cap"`, or in the stake profiles `"open"`, `"call"`, `"short"`."""
    hands: tuple[ShownHand, ...]
    winner: int | None
    """The seat with the strongest hand, or None for a tie (a svara follows)."""

    @property
    def is_svara(self) -> bool:
        return self.winner is None


@dataclass(frozen=True, slots=True)
class PotResult:
    """An ordinary pot was resolved."""

    session_id: str
    pot_number: int
    winner: int
    amount: Amount
    """The whole pot."""
    shown: bool
    """False when the winner was the last player left."""
    balances: tuple[Amount, ...]
    stacks: tuple[Amount, ...] = ()
    """Stake profiles: every seat's chips left after the pot was paid out."""


@dataclass(frozen=True, slots=True)
class SessionEnd:
    """The session is over."""

    session_id: str
    balances: tuple[Amount, ...]
    winners: tuple[int, ...]
    stacks: tuple[Amount, ...] = ()
    """Stake profiles: every seat's chips left."""
    pots_played: int = 0
    """Stake profiles: the resolved ordinary pots played, fewer than the table's when the session ended
    early; 0 in the other profiles."""


@dataclass(frozen=True, slots=True)
class Looked:
    """A seat looked at its cards (dark play); `cards` only in the looker's own notice."""

    session_id: str
    pot_number: int
    replay: int
    seat: int
    cards: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Comparison:
    """A multiway open compared two hands; `hands` only for the two compared."""

    session_id: str
    pot_number: int
    replay: int
    opener: int
    against: int
    loser: int
    """Who dropped out: the weaker hand, or the opener on equal values."""
    hands: tuple[ShownHand, ...]


@dataclass(frozen=True, slots=True)
class ShortOfChips:
    """A seat could not cover the stake and paid all it had left."""

    session_id: str
    pot_number: int
    replay: int
    seat: int
    paid: Amount


@dataclass(frozen=True, slots=True)
class ReturnedChips:
    """The part of a raise that a short payment did not match went back to the raiser (docs/rules.md; the
    raise bound keeps every raise answerable, so the arena does not send it in play)."""

    session_id: str
    pot_number: int
    replay: int
    seat: int
    amount: Amount
    stacks: tuple[Amount, ...]


@dataclass(frozen=True, slots=True)
class Split:
    """`tie: split`: the tied seats shared the pot equally."""

    session_id: str
    pot_number: int
    seats: tuple[int, ...]
    amount: Amount
    share: Amount
    balances: tuple[Amount, ...]
    stacks: tuple[Amount, ...]
