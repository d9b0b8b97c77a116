"""trio + gRPC: starting bots (fenced in by `arena.isolation`), calling them under deadlines, speaking engine types."""

from __future__ import annotations

from .. import _util
from ._bot import CHANNEL_OPTIONS as CHANNEL_OPTIONS
from ._bot import MAX_REPLY_BYTES as MAX_REPLY_BYTES
from ._bot import BotConnection as BotConnection
from ._bot import BotSpec as BotSpec
from ._bot import DecisionCost as DecisionCost
from ._bot import Telemetry as Telemetry
from ._bot import TimeLimit as TimeLimit
from ._bot import is_address as is_address
from ._bot import open_bot as open_bot
from ._bot import with_our_python as with_our_python
from ._bridge import call_unary as call_unary
from ._convert import HelloInfo as HelloInfo
from ._faults import BotFault as BotFault
from ._faults import IllegalReplyError as IllegalReplyError
from ._faults import MalformedReplyError as MalformedReplyError
from ._faults import verify_reply as verify_reply
from ._notices import NoticeBoard as NoticeBoard
from ._notices import Notices as Notices
from ._pool import BotPool as BotPool
from ._pool import open_bot_pool as open_bot_pool
from ._raw import RawClient as RawClient
from ._raw import open_raw_client as open_raw_client

__all__ = [name for name in dir() if not name.startswith("_") and name != "annotations"]

_util.fixup_module_metadata(__name__, globals())
