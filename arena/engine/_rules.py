"""Profiles: everything that differs between Seka variants, kept out of the betting core."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from ._amounts import Amount
from ._cards import Card
from ._errors import RulesError
from ._hands import GEORGIAN_EVALUATOR, HandEvaluator


@dataclass(frozen=True)
class Rules:
    """A profile with its table settings. Frozen: a session's rules never change mid-way.

    New variants (wild cards, triples by points, short decks, dark play) become new profiles with
    their own deck and evaluator; the betting core reads only these fields.
    """

    name: str
    """The profile's name as histories and tournament files spell it."""
    evaluator: HandEvaluator
    """The deck and the hand-strength lookup."""
    ante: Amount = 1
    """Paid by every seat before each ordinary deal (never before a svara replay)."""
    opening_stake: Amount = 1
    """The least first payment of a deal."""
    max_bet: Amount = 10
    """The most any one payment may be."""
    max_actions: int = 200
    """Arena rule: a deal is stopped after this many actions and everyone still in reveals."""
    pots_per_session: int = 8
    """Resolved ordinary pots in a session; svara replays use no extra slot."""
    min_seats: int = 2
    max_seats: int = 6

    def __post_init__(self) -> None:
        if not 0 < self.opening_stake <= self.max_bet:
            raise RulesError(f"need 0 < opening_stake <= max_bet, not {self.opening_stake} and {self.max_bet}")
        if self.ante < 0:
            raise RulesError(f"the ante cannot be negative: {self.ante}")
        if self.max_actions < 2:
            raise RulesError(f"max_actions must be at least 2, not {self.max_actions}")
        if self.pots_per_session < 1:
            raise RulesError(f"pots_per_session must be at least 1, not {self.pots_per_session}")
        if not 2 <= self.min_seats <= self.max_seats or 3 * self.max_seats > len(self.deck):
            raise RulesError(f"seat limits {self.min_seats}..{self.max_seats} do not fit a {len(self.deck)}-card deck")

    @property
    def deck(self) -> tuple[Card, ...]:
        return self.evaluator.deck

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


GEORGIAN = Rules(name="georgian", evaluator=GEORGIAN_EVALUATOR)
"""The normative default: 36 cards, no wild card, sekas above totals, ante 1, stakes 1..10."""

PROFILES: dict[str, Rules] = {GEORGIAN.name: GEORGIAN}
"""Profiles by name."""


def profile(name: str) -> Rules:
    """The profile called `name`, or a `RulesError` listing the known ones."""
    try:
        return PROFILES[name]
    except KeyError:
        raise RulesError(f"unknown profile {name!r}; known: {', '.join(sorted(PROFILES))}") from None
