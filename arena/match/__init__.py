"""Playing sessions: the engine drives out-of-process bots; faults fold the bot and the session goes on."""

from __future__ import annotations

from .. import _util
from ._ids import public_session_id as public_session_id
from ._ids import session_key as session_key
from ._seeds import deal_key_problem as deal_key_problem
from ._seeds import keyed_seed as keyed_seed
from ._seeds import new_deal_key as new_deal_key
from ._session import SeatReport as SeatReport
from ._session import SessionResult as SessionResult
from ._session import play_session as play_session
from ._session import run_session as run_session

__all__ = ["SeatReport", "SessionResult", "deal_key_problem", "keyed_seed", "new_deal_key", "play_session",
           "public_session_id", "run_session", "session_key"]

_util.fixup_module_metadata(__name__, globals())
