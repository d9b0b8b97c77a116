"""Whose fault it is: a bot's failures are `BotFault`s; anything else raised is the arena's own error.

As h11 tells its caller's mistakes (LocalProtocolError) from its peer's (RemoteProtocolError), a
session folds a bot only for a `BotFault`. An engine error raised while the arena builds a view
or applies a decision is a bug of the arena, never scored as the bot's `illegal`.
"""

from __future__ import annotations

from ..engine import Action, ArenaError, Fault, IllegalActionError, SessionState


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

    def __init__(self, action: Action, detail: str) -> None:
        super().__init__(Fault.ILLEGAL, detail)
        self.action = action


def verify_reply(state: SessionState, action: Action) -> None:
    """Refuse, as the bot's fault, an action the rules do not allow now; the state is untouched.

    Call it before applying the action: an error while applying is then the arena's own.

    Raises:
        IllegalReplyError: the engine's reason, with the action.
    """
    try:
        state.verify(action)
    except IllegalActionError as error:
        raise IllegalReplyError(action, str(error)) from None
