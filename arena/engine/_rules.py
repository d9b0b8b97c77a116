"""Profiles: everything that differs between Seka variants, as data and small strategy objects.

Theory of operation
-------------------
A `Rules` is one profile with its options and table settings, frozen. The betting core
(`_state.py`) is one state machine for every profile; it asks the profile's strategy objects
what differs:

- `betting`: `MaxBet` (georgian, classic: each payment fresh, from the previous bet to the maximum;
  heads-up show) or `CurrentStake` (seka36, svara32, seka21: stacks, a current stake, support and
  raise, the betting ended by an `open` or a `call`, short of chips);
- `dark`: None, `DarkMaxBet` (a dark bet up to half the maximum, the next looked payment at least
  twice it) or `DarkStake` (a dark bet of one stake; the looked player pays twice while it stays unread);
- data: the evaluator (deck and hand-value lookup), cards per hand, `tie` (svara or split),
  `multiway_open`, `stack`, seat range.

A profile is a `ProfileSpec`: its options (name, allowed values, default) and a function that
builds the `Rules` from checked option values. `profile(name, options)` checks and builds.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction

from ._amounts import Amount, format_amount, parse_amount
from ._cards import Card
from ._errors import RulesError
from ._hands import HandEvaluator, hand_evaluator


class Ending(enum.Enum):
    """How a stake profile's betting ends with a comparison."""

    OPEN = "open"
    """`Open`: pay the current stake, once both players have acted in the deal (seka36, seka21)."""
    CALL = "call"
    """`Call`: pay exactly the current stake, after the deal's first payment (svara32)."""


@dataclass(frozen=True)
class MaxBet:
    """Georgian betting: each payment is fresh, from the previous bet (or the opening stake) to `max_bet`;
    with two players in and a previous bet, the player to act may show for the least payment."""

    stacks: bool = field(default=False, init=False)


@dataclass(frozen=True)
class CurrentStake:
    """Stake betting (seed 004): stacks, a current stake from the table stake up, support and raise;
    short of chips pays what is left and compares at once."""

    ending: Ending
    stacks: bool = field(default=True, init=False)


Betting = MaxBet | CurrentStake


@dataclass(frozen=True)
class DarkMaxBet:
    """Dark play of seeds 002 and 003: the first player of an ordinary deal may bet dark from the
    opening stake to half the maximum; the next payment by a player who has looked is at least twice
    it; the dark player sees its cards when its turn comes again."""

    auto_look: bool = field(default=True, init=False)


@dataclass(frozen=True)
class DarkStake:
    """Dark play of seed 004: the first player (the non-dealer) may bet one stake dark; while its hand
    stays unread, the player who has looked pays twice the stake; LOOK keeps the turn."""

    auto_look: bool = field(default=False, init=False)


Dark = DarkMaxBet | DarkStake


class Tie(enum.Enum):
    SVARA = "svara"
    """The pot is frozen and replayed (re-entry at half of it)."""
    SPLIT = "split"
    """The tied players share the pot equally, exactly; nobody re-enters, no replay."""


RULES_EDITION = 2
"""The edition of the rules new sessions play. Edition 2 (2026-12-04) corrected the stake profiles' short
of chips: only a raise is given back in part, and the ante is the table stake. Edition 1 is kept only so
that a history written before it replays under the rules it was played with."""

HISTORY_FORMAT = 3
"""The format new histories are written in (docs/history.md); format 1 names no format. Format 3 added
mixed replies (an action's `mix` and `draw`) to the rules of edition 2."""

_EDITION_OF_FORMAT = {1: 1, 2: 2, 3: 2}


def edition_of_history_format(history_format: object) -> int:
    """The rules edition a history of this format was played under.

    >>> edition_of_history_format(1), edition_of_history_format(2), edition_of_history_format(3)
    (1, 2, 2)
    """
    if type(history_format) is not int or history_format not in _EDITION_OF_FORMAT:
        known = ", ".join(map(str, _EDITION_OF_FORMAT))
        raise RulesError(f"unknown history format {history_format!r} (this arena reads formats {known})")
    return _EDITION_OF_FORMAT[history_format]


def history_format_of_edition(edition: int) -> int:
    """The format a session of this rules edition writes its history in (an edition-1 session is a replay
    of an old history, which must come out byte for byte as it was written)."""
    return HISTORY_FORMAT if edition == RULES_EDITION else max(
        fmt for fmt, of in _EDITION_OF_FORMAT.items() if of == edition)


@dataclass(frozen=True)
class Rules:
    """A profile with its options and table settings. Frozen: a session's rules never change mid-way."""

    name: str
    """The profile's name as histories and tournament files spell it."""
    evaluator: HandEvaluator
    """The deck and the hand-strength lookup."""
    ante: Amount = 1
    """Paid by every seat before each ordinary deal (never before a svara replay)."""
    opening_stake: Amount = 1
    """The least first payment of a deal; the table stake of a stake profile."""
    max_bet: Amount = 10
    """The most any one payment may be (max-bet profiles)."""
    max_actions: int = 200
    """Arena rule: a deal is stopped after this many actions and everyone still in reveals."""
    pots_per_session: int = 8
    """Resolved ordinary pots in a session; svara replays use no extra slot."""
    min_seats: int = 2
    max_seats: int = 6
    options: tuple[tuple[str, str], ...] = ()
    """Every option of the profile with its value as text, in the profile's order."""
    betting: Betting = MaxBet()
    dark: Dark | None = None
    tie: Tie = Tie.SVARA
    multiway_open: bool = False
    stack: Amount | None = None
    """Chips each seat starts a session with (stake profiles); None: no stacks, no limit."""
    edition: int = RULES_EDITION
    """The rules edition (`RULES_EDITION`); an older one only to replay a history written under it."""

    def __post_init__(self) -> None:
        if self.edition not in _EDITION_OF_FORMAT.values():
            raise RulesError(f"unknown rules edition {self.edition!r}")
        if not 0 < self.opening_stake <= self.max_bet:
            raise RulesError(f"need 0 < opening_stake <= max_bet, not {self.opening_stake} and {self.max_bet}")
        if self.ante < 0:
            raise RulesError(f"the ante cannot be negative: {self.ante}")
        if self.max_actions < 2:
            raise RulesError(f"max_actions must be at least 2, not {self.max_actions}")
        if self.pots_per_session < 1:
            raise RulesError(f"pots_per_session must be at least 1, not {self.pots_per_session}")
        if not 2 <= self.min_seats <= self.max_seats or self.cards * self.max_seats > len(self.deck):
            raise RulesError(f"seat limits {self.min_seats}..{self.max_seats} do not fit a {len(self.deck)}-card deck")
        if self.betting.stacks:
            if self.max_seats != 2:
                raise RulesError(f"a stake profile is heads-up, not for {self.min_seats}..{self.max_seats} seats")
            if self.edition >= 2 and self.ante != self.opening_stake:
                raise RulesError(f"a stake profile's ante is the table stake (seed 004): ante "
                                 f"{format_amount(self.ante)} and opening_stake {format_amount(self.opening_stake)} "
                                 "differ; set one of them, or both to the same amount")
            if self.stack is None or self.stack < self.ante + self.opening_stake:
                raise RulesError(f"each stack must cover the ante and one stake ({format_amount(self.ante)} + "
                                 f"{format_amount(self.opening_stake)}), not {self.stack}")
        elif self.stack is not None:
            raise RulesError(f"profile {self.name!r} plays without stacks")

    @property
    def deck(self) -> tuple[Card, ...]:
        return self.evaluator.deck

    @property
    def cards(self) -> int:
        """Cards per hand: the evaluator's hand size (three, or two with classic `cards: 2`)."""
        return self.evaluator.hand_size

    @property
    def option_values(self) -> dict[str, str]:
        return dict(self.options)

    @property
    def is_plain_georgian(self) -> bool:
        """The default profile with every option at its default: histories then record no options,
        exactly as before profiles had options."""
        return self.name == GEORGIAN_SPEC.name and self.options == GEORGIAN_SPEC.default_options

    def describe(self) -> str:
        """The game in one line, as the service's pages and check reports name it (tests/engine/test_rules.py)."""
        options = ", ".join(f"{name} {value}" for name, value in self.options)
        if self.betting.stacks:
            money = f"ante and table stake {format_amount(self.opening_stake)}"
        else:
            money = (f"ante {format_amount(self.ante)}, opening stake {format_amount(self.opening_stake)}, "
                     f"payments up to {format_amount(self.max_bet)}")
        pots = f"{self.pots_per_session} pot{'s' if self.pots_per_session != 1 else ''}"
        return (f"{self.name}{f' ({options})' if options else ''}: {money}, {pots} a session, "
                f"at most {self.max_actions} actions a deal")

    def table_settings(self) -> dict[str, object]:
        """The table settings: with the name and options they rebuild these rules,
        `profile(rules.name, rules.option_values).with_table(**rules.table_settings())`."""
        return {item.name: getattr(self, item.name) for item in dataclasses.fields(self)
                if item.name not in _FROM_OPTIONS}

    def with_table(self, **settings: object) -> Rules:
        """The same profile with other table settings, checked again.

        >>> GEORGIAN.with_table(max_actions=50).max_actions
        50
        """
        try:
            # Each setting is checked at run time (unknown names by replace, values by __post_init__),
            # which is the point; mypy's replace wants each field's own type from `object`.
            return dataclasses.replace(self, **settings)  # type: ignore[arg-type]
        except TypeError as error:
            raise RulesError(str(error)) from None


_FROM_OPTIONS = frozenset({"name", "evaluator", "options", "betting", "dark", "tie", "multiway_open", "stack"})
"""The fields a profile's options decide."""


# ------------------------------------------------------------------ profiles as data


@dataclass(frozen=True)
class OptionSpec:
    """One option of a profile: its allowed values as text (None: a positive amount) and default."""

    name: str
    values: tuple[str, ...] | None
    default: str
    meaning: str

    def check(self, value: object, profile_name: str) -> str:
        """The canonical text of `value`, or a `RulesError` naming the allowed values."""
        if isinstance(value, bool):
            text = "true" if value else "false"
        elif isinstance(value, (int, Fraction)):
            text = format_amount(value)
        elif isinstance(value, str):
            text = value.strip()
        else:
            raise RulesError(f"option {self.name!r} of profile {profile_name!r} is text or a number, not {value!r}")
        if self.values is None:
            try:
                amount = parse_amount(text)
            except ValueError as error:
                raise RulesError(f"option {self.name!r} of profile {profile_name!r}: {error}") from None
            if amount <= 0:
                raise RulesError(f"option {self.name!r} of profile {profile_name!r} must be positive, not {text}")
            return format_amount(amount)
        if text not in self.values:
            raise RulesError(f"option {self.name!r} of profile {profile_name!r} is one of "
                             f"{', '.join(self.values)}, not {text!r}")
        return text


@dataclass(frozen=True)
class ProfileSpec:
    """A profile: its options and how checked option values become `Rules`."""

    name: str
    summary: str
    options: tuple[OptionSpec, ...]
    build: Callable[[Mapping[str, str]], Rules]
    min_seats: int
    max_seats: int

    @property
    def default_options(self) -> tuple[tuple[str, str], ...]:
        return tuple((option.name, option.default) for option in self.options)

    def rules(self, options: Mapping[str, object] | None = None) -> Rules:
        """The profile with `options` (the others at their defaults), checked."""
        given = dict(options or {})
        known = {option.name: option for option in self.options}
        unknown = sorted(set(given) - set(known))
        if unknown:
            have = ", ".join(known) or "none"
            raise RulesError(f"profile {self.name!r} has no option {unknown[0]!r} (its options: {have})")
        values = {name: option.check(given[name], self.name) if name in given else option.default
                  for name, option in known.items()}
        return self.build(values)


def _option(name: str, values: tuple[str, ...], meaning: str) -> OptionSpec:
    """An option whose first value is its default."""
    return OptionSpec(name, values, values[0], meaning)


_TIE = _option("tie", ("svara", "split"), "svara: replay for the frozen pot; split: the tied players share it")
_DARK = _option("dark", ("false", "true"), "true: the first player of an ordinary deal may bet dark")


def _georgian(values: Mapping[str, str]) -> Rules:
    return Rules(
        name="georgian",
        evaluator=hand_evaluator("georgian", deck=int(values["deck"])),
        options=tuple(values.items()),
        tie=Tie(values["tie"]),
        dark=DarkMaxBet() if values["dark"] == "true" else None,
    )


GEORGIAN_SPEC = ProfileSpec(
    name="georgian",
    summary="Tamashebi: 36 cards, no wild card, sekas above totals, stakes 1..10, heads-up show, svara",
    options=(_option("deck", ("36", "32"), "32: sevens to aces; the weakest seka is 7-7-7"), _TIE, _DARK),
    build=_georgian,
    min_seats=2,
    max_seats=6,
)



def _classic(values: Mapping[str, str]) -> Rules:
    return Rules(
        name="classic",
        evaluator=hand_evaluator("classic", wild=values["wild"], cards=int(values["cards"]), deck=int(values["deck"])),
        max_seats=8,
        options=tuple(values.items()),
        tie=Tie(values["tie"]),
        dark=DarkMaxBet() if values["dark"] == "true" else None,
        multiway_open=values["open"] == "multiway",
    )


CLASSIC_SPEC = ProfileSpec(
    name="classic",
    summary="seed 003: wild 7c, triples by points, 2-8 seats, betting and svara as georgian",
    options=(
        _option("wild", ("7c", "black7", "none"), "which cards are wild"),
        _option("cards", ("3", "2"), "2: two-card hands (dva lista): no three of a kind"),
        _option("deck", ("36", "24"), "24: Trynka, A T 9 8 7 6"),
        _option("open", ("heads_up", "multiway"), "multiway: with three or more in, open against the previous payer"),
        _DARK,
        _TIE,
    ),
    build=_classic,
    min_seats=2,
    max_seats=8,
)

_STACK = OptionSpec("stack", None, "50", "chips each seat starts a session with (the ante and stake are 1)")


def _stake_spec(name: str, summary: str, ending: Ending, *, split: bool) -> ProfileSpec:
    """A heads-up stake profile of seed 004."""

    def build(values: Mapping[str, str]) -> Rules:
        return Rules(
            name=name,
            evaluator=hand_evaluator(name),
            max_seats=2,
            options=tuple(values.items()),
            betting=CurrentStake(ending),
            dark=DarkStake() if values["dark"] == "true" else None,
            tie=Tie(values.get("tie", Tie.SVARA.value)),
            stack=parse_amount(values["stack"]),
        )

    return ProfileSpec(name, summary, (_STACK, _DARK, *((_TIE,) if split else ())), build, 2, 2)


SEKA36_SPEC = _stake_spec("seka36", "seed 004 SEKA 36: 7c wild, triples by points, 6-6-6 top; stacks; open",
                          Ending.OPEN, split=True)
SVARA32_SPEC = _stake_spec("svara32", "seed 004 SVARA 32: 7-A, 7c wild joins a suit or rank group, 7-7-7 top; "
                           "stacks; call", Ending.CALL, split=False)
SEKA21_SPEC = _stake_spec("seka21", "seed 004 SEKA 21: T-A and the 9c wild, pairs add up, triples above all; "
                          "stacks; open", Ending.OPEN, split=False)

PROFILE_SPECS: dict[str, ProfileSpec] = {
    spec.name: spec for spec in (GEORGIAN_SPEC, CLASSIC_SPEC, SEKA36_SPEC, SVARA32_SPEC, SEKA21_SPEC)}
"""Every profile by name, with its options."""

GEORGIAN = GEORGIAN_SPEC.rules()
"""The normative default: 36 cards, no wild card, sekas above totals, ante 1, stakes 1..10."""

@functools.cache
def _defaults(name: str) -> Rules:
    """A profile at its default options, built on first use: each profile's hand table costs
    tens of milliseconds, which every bot process importing the SDK would otherwise pay."""
    return GEORGIAN if name == GEORGIAN.name else PROFILE_SPECS[name].rules()


def profile(name: str, options: Mapping[str, object] | None = None) -> Rules:
    """The profile called `name` with `options` (the rest at their defaults), or a `RulesError`
    naming the known profiles, or the option or value that is wrong.

    >>> profile("georgian", {"deck": 32}).option_values
    {'deck': '32', 'tie': 'svara', 'dark': 'false'}
    """
    try:
        spec = PROFILE_SPECS[name]
    except (KeyError, TypeError):
        raise RulesError(f"unknown profile {name!r}; known: {', '.join(sorted(PROFILE_SPECS))}") from None
    if not options:
        return _defaults(name)
    return spec.rules(options)


def check_seats(rules: Rules, seats: int) -> None:
    """A `RulesError` unless `rules` seats `seats` players."""
    if not rules.min_seats <= seats <= rules.max_seats:
        raise RulesError(f"profile {rules.name!r} seats {rules.min_seats} to {rules.max_seats} players, not {seats}")

