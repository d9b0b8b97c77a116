"""The Python SDK for Seka bots: subclass `Bot`, implement `act`, call `run`.

>>> from arena.sdk import Bot, Bet, Fold, run
>>> class Caller(Bot):
...     name = "caller"
...     def act(self, turn):
...         return Bet(turn.min_bet)

`run(Caller())` then serves it on the address in SEKA_BOT_ADDRESS (or `--address ADDR`) until
SIGTERM or SIGINT. docs/protocol.md describes the protocol underneath.
"""

from __future__ import annotations

from .. import _util
from ..engine import Action as Action
from ..engine import Amount as Amount
from ..engine import Bet as Bet
from ..engine import Call as Call
from ..engine import DarkBet as DarkBet
from ..engine import Fold as Fold
from ..engine import HandEvaluator as HandEvaluator
from ..engine import HandValue as HandValue
from ..engine import LegalActions as LegalActions
from ..engine import Look as Look
from ..engine import Mix as Mix
from ..engine import MultiwayOpen as MultiwayOpen
from ..engine import Open as Open
from ..engine import Raise as Raise
from ..engine import Show as Show
from ..engine import Support as Support
from ..protocol import ADDRESS_ENV as ADDRESS_ENV
from ..protocol import PROTOCOL_VERSION as PROTOCOL_VERSION
from ..protocol import SERVICE_NAME as SERVICE_NAME
from ..protocol import amount_from_proto as amount_from_proto
from ..protocol import amount_to_proto as amount_to_proto
from ._bot import Bot as Bot
from ._server import BotServer as BotServer
from ._server import BotServerError as BotServerError
from ._server import resolve_address as resolve_address
from ._server import run as run
from ._server import serve as serve
from ._types import Comparison as Comparison
from ._types import Deal as Deal
from ._types import Hello as Hello
from ._types import Limits as Limits
from ._types import Looked as Looked
from ._types import PotResult as PotResult
from ._types import PublicAction as PublicAction
from ._types import ReturnedChips as ReturnedChips
from ._types import SessionEnd as SessionEnd
from ._types import ShortOfChips as ShortOfChips
from ._types import Showdown as Showdown
from ._types import ShownHand as ShownHand
from ._types import Split as Split
from ._types import SvaraEntry as SvaraEntry
from ._types import SvaraOffer as SvaraOffer
from ._types import SvaraRound as SvaraRound
from ._types import Table as Table
from ._types import Turn as Turn
from ._types import hand_evaluator_for as hand_evaluator_for
from ._types import hand_value as hand_value

__all__ = [name for name in dir() if not name.startswith("_") and name != "annotations"]

_util.fixup_module_metadata(__name__, globals())
