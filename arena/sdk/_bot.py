"""The base class a Python bot derives from: implement `act`, override the rest as needed."""

from __future__ import annotations

from ..engine import Action, Mix
from ._types import (
    Comparison,
    Deal,
    Hello,
    Looked,
    PotResult,
    ReturnedChips,
    SessionEnd,
    ShortOfChips,
    Showdown,
    Split,
    SvaraOffer,
    Turn,
)


class Bot:
    """A Seka bot. Subclass it, implement `act`, and pass an instance to `arena.sdk.run`.

    The SDK calls these methods one at a time (never two at once), so a bot needs no locks.
    Everything a decision needs is in its argument; the `on_*` notifications are there for bots
    that want to remember what they saw. They come in the order things happened, and whatever
    happened before a turn or an offer is told before `act` or `svara` is called. Override them
    in the class: the SDK does not even convert a notice whose method the class leaves as is.
    """

    name: str = ""
    """The name shown in results and to the other bots; the class name when left empty."""
    version: str = "0"
    """Free text, recorded with the results."""

    def act(self, turn: Turn) -> Action | Mix:
        """Decide a betting turn: return `Fold()`, `Bet(amount)` or `Show()`, or a mix of them
        (`turn.mix({Fold(): 0.5, Show(): 0.5})`) for the arena to draw from.

        `turn.legal` gives the bounds: a bet from `turn.min_bet` to `turn.max_bet` inclusive,
        a show only when `turn.can_show`. Anything else makes the arena fold the bot.
        """
        raise NotImplementedError(f"{type(self).__name__} must implement act(turn)")

    def svara(self, offer: SvaraOffer) -> bool:
        """Answer an offer to re-enter a svara replay for `offer.price`; the default declines."""
        return False

    def on_hello(self, hello: Hello) -> None:
        """The session starts: table settings, time limits, the bot's seat."""

    def on_deal(self, deal: Deal) -> None:
        """The bot was dealt cards (an ordinary deal or a svara replay)."""

    def on_showdown(self, showdown: Showdown) -> None:
        """Hands were revealed, whether or not the bot took part."""

    def on_pot_result(self, result: PotResult) -> None:
        """An ordinary pot was resolved."""

    def on_look(self, look: Looked) -> None:
        """A seat looked at its cards (dark play); the bot's own look carries its cards."""

    def on_comparison(self, comparison: Comparison) -> None:
        """A multiway open compared two hands (shown only to the two compared)."""

    def on_short_of_chips(self, short: ShortOfChips) -> None:
        """A seat could not cover the stake and paid all it had left."""

    def on_returned_chips(self, returned: ReturnedChips) -> None:
        """The unmatched part of a raise went back to the raiser (not sent in play: docs/rules.md)."""

    def on_split(self, split: Split) -> None:
        """A tied pot was split (`tie: split`)."""

    def on_session_end(self, end: SessionEnd) -> None:
        """The session is over; the arena may stop the process after this."""
