"""Whose fault it is: a bot's failures are `BotFault`s; anything else raised is the arena's own error.

As h11 tells its caller's mistakes (LocalProtocolError) from its peer's (RemoteProtocolError), a
session folds a bot only for a `BotFault`. An engine error raised while the arena builds a view
or applies a decision is a bug of the arena, never scored as the bot's `illegal`.
"""

from __future__ import annotations

import math
from fractions import Fraction

from ..engine import Action, Amount, ArenaError, Bet, DarkBet, Fault, IllegalActionError, Mix, Raise, SessionState

WIRE_HEADROOM_BITS = 36
"""Bits of the protocol's 63-bit integers kept free by every bet a bot makes: room for the pot to
grow through nested svaras (each halves it into a price) and to be added to a balance."""
_WIRE_LIMIT = 1 << (63 - WIRE_HEADROOM_BITS)


class BotFault(ArenaError):
    """A bot failed a call: late, malformed, illegal or crashed."""

    def __init__(self, kind: Fault, detail: str) -> None:
        super().__init__(f"{kind.value}: {detail}")
        self.kind = kind
        self.detail = detail


class MalformedReplyError(BotFault, ValueError):
    """A reply that is not a well-formed answer to the call (wrong shape, missing choice, bad amount)."""

    def __init__(self, detail: str) -> None:
        super().__init__(Fault.MALFORMED, detail)


class IllegalReplyError(BotFault):
    """A well-formed reply whose action the rules do not allow at that moment."""

    def __init__(self, action: Action | Mix, detail: str) -> None:
        super().__init__(Fault.ILLEGAL, detail)
        self.action = action


def verify_reply(state: SessionState, action: Action | Mix) -> None:
    """Refuse, as the bot's fault, an action (or a mix holding one) the rules do not allow now; the
    state is untouched.

    Call it before applying the action: an error while applying is then the arena's own.

    Raises:
        IllegalReplyError: the engine's reason, with the action or the mix.
    """
    try:
        if isinstance(action, Mix):
            state.verify_mix(action)
        else:
            state.verify(action)
    except IllegalActionError as error:
        raise IllegalReplyError(action, str(error)) from None
    for named in action.entries if isinstance(action, Mix) else ((action, 1.0),):
        if isinstance(named[0], (Bet, DarkBet)):
            _verify_representable(state, action, named[0].amount)
        elif isinstance(named[0], Raise):
            _verify_representable(state, action, named[0].stake)


def _verify_representable(state: SessionState, bet: Action | Mix, named: Amount) -> None:
    # The rules allow any exact amount within the bounds, so a bot could bet fractions whose
    # denominators multiply (1 + 1/(2**61 - 1), then 1 + 1/(2**31 - 1)) until the pot no longer fits
    # the protocol's int64 numerator and denominator: the arena could then tell no one about it.
    # Every amount of a session is a multiple of one common denominator, which the tournament file's
    # bounds allow for; a bet that brings a new factor into it must leave WIRE_HEADROOM_BITS free.
    # A raise names a stake and pays it once or twice: the same denominator either way.
    held = [Fraction(state.pot), *map(Fraction, state.balances)]
    common = math.lcm(*(amount.denominator for amount in held))
    amount = Fraction(named)
    widened = math.lcm(common, amount.denominator)
    if widened == common:
        return
    largest = sum(map(abs, held)) + amount
    if widened * largest >= _WIRE_LIMIT:
        raise IllegalReplyError(bet, (
            f"a payment of {named} would make 1/{widened} the session's unit of account, too fine for the "
            f"protocol's 64-bit amounts with room for the pots to grow; bet a multiple of 1/{common}"))
