"""The pure Seka engine: cards, hand values, profiles, and a session as a state machine.

Nothing here does I/O, reads a clock or touches global random state; the transport, storage and
CLI layers depend on this package and it depends on none of them.
"""

from __future__ import annotations

from .. import _util
from ._actions import Action as Action
from ._actions import Bet as Bet
from ._actions import Call as Call
from ._actions import DarkBet as DarkBet
from ._actions import Fault as Fault
from ._actions import Fold as Fold
from ._actions import LegalActions as LegalActions
from ._actions import Look as Look
from ._actions import MultiwayOpen as MultiwayOpen
from ._actions import Open as Open
from ._actions import Raise as Raise
from ._actions import Show as Show
from ._actions import Support as Support
from ._actions import SvaraAnswer as SvaraAnswer
from ._amounts import Amount as Amount
from ._amounts import exact as exact
from ._amounts import format_amount as format_amount
from ._amounts import parse_amount as parse_amount
from ._cards import ALL_CARDS as ALL_CARDS
from ._cards import DECK_21 as DECK_21
from ._cards import DECK_24 as DECK_24
from ._cards import DECK_32 as DECK_32
from ._cards import DECK_36 as DECK_36
from ._cards import RANKS as RANKS
from ._cards import SUITS as SUITS
from ._cards import Card as Card
from ._cards import parse_cards as parse_cards
from ._errors import ArenaError as ArenaError
from ._errors import IllegalActionError as IllegalActionError
from ._errors import RulesError as RulesError
from ._events import Acted as Acted
from ._events import AntePaid as AntePaid
from ._events import ChipsReturned as ChipsReturned
from ._events import Compared as Compared
from ._events import Dealt as Dealt
from ._events import Entered as Entered
from ._events import Event as Event
from ._events import Looked as Looked
from ._events import PotSplit as PotSplit
from ._events import PotWon as PotWon
from ._events import Revealed as Revealed
from ._events import SessionCut as SessionCut
from ._events import SessionEnded as SessionEnded
from ._events import SessionStarted as SessionStarted
from ._events import ShortOfChips as ShortOfChips
from ._events import ShowdownHeld as ShowdownHeld
from ._events import SvaraDeclared as SvaraDeclared
from ._hands import GEORGIAN_EVALUATOR as GEORGIAN_EVALUATOR
from ._hands import HAND_OPTIONS as HAND_OPTIONS
from ._hands import HandEvaluator as HandEvaluator
from ._hands import HandValue as HandValue
from ._hands import TwoCardEvaluator as TwoCardEvaluator
from ._hands import classic_value as classic_value
from ._hands import georgian_value as georgian_value
from ._hands import hand_evaluator as hand_evaluator
from ._hands import seka21_value as seka21_value
from ._hands import seka36_value as seka36_value
from ._hands import svara32_value as svara32_value
from ._mix import MAX_MIX_ENTRIES as MAX_MIX_ENTRIES
from ._mix import MIX_TOLERANCE as MIX_TOLERANCE
from ._mix import Mix as Mix
from ._mix import choose as choose
from ._mix import mix_draw as mix_draw
from ._mix import mix_kind as mix_kind
from ._rules import GEORGIAN as GEORGIAN
from ._rules import HISTORY_FORMAT as HISTORY_FORMAT
from ._rules import PROFILE_SPECS as PROFILE_SPECS
from ._rules import RULES_EDITION as RULES_EDITION
from ._rules import CurrentStake as CurrentStake
from ._rules import Dark as Dark
from ._rules import DarkMaxBet as DarkMaxBet
from ._rules import DarkStake as DarkStake
from ._rules import Ending as Ending
from ._rules import MaxBet as MaxBet
from ._rules import OptionSpec as OptionSpec
from ._rules import ProfileSpec as ProfileSpec
from ._rules import Rules as Rules
from ._rules import Tie as Tie
from ._rules import check_seats as check_seats
from ._rules import edition_of_history_format as edition_of_history_format
from ._rules import profile as profile
from ._shuffle import Shuffler as Shuffler
from ._shuffle import deck_order as deck_order
from ._shuffle import draw_first_dealer as draw_first_dealer
from ._shuffle import seeded_shuffler as seeded_shuffler
from ._shuffle import stacked_shuffler as stacked_shuffler
from ._state import Phase as Phase
from ._state import SessionState as SessionState
from ._views import SvaraRound as SvaraRound
from ._views import SvaraView as SvaraView
from ._views import TurnView as TurnView
from ._views import redact_for as redact_for
from ._views import svara_view as svara_view
from ._views import turn_view as turn_view

__all__ = [name for name in dir() if not name.startswith("_") and name != "annotations"]

_util.fixup_module_metadata(__name__, globals())
