"""Tournaments: YAML definitions and schedules (pure), and the resumable trio runner that plays them."""

from __future__ import annotations

from .. import _util
from ..isolation import Isolation as Isolation
from ._config import BotLimits as BotLimits
from ._config import BotProcesses as BotProcesses
from ._config import Bounds as Bounds
from ._config import Participant as Participant
from ._config import TournamentConfig as TournamentConfig
from ._config import limit_problem as limit_problem
from ._config import name_problem as name_problem
from ._deals import BOOK_NAME as BOOK_NAME
from ._deals import MAX_DEALS as MAX_DEALS
from ._deals import DealBook as DealBook
from ._deals import make_deal_book as make_deal_book
from ._display import LiveProgress as LiveProgress
from ._display import crosstable_table as crosstable_table
from ._display import faults_table as faults_table
from ._display import standings_table as standings_table
from ._errors import ConfigProblem as ConfigProblem
from ._errors import TournamentConfigError as TournamentConfigError
from ._loader import INVALID as INVALID
from ._loader import ConfigEntry as ConfigEntry
from ._loader import ConfigReader as ConfigReader
from ._loader import compose_yaml as compose_yaml
from ._loader import load_config as load_config
from ._loader import node_line as node_line
from ._loader import parse_config as parse_config
from ._loader import read_cluster as read_cluster
from ._loader import read_config_file as read_config_file
from ._loader import read_limits as read_limits
from ._loader import read_rules as read_rules
from ._runner import Progress as Progress
from ._runner import TournamentResults as TournamentResults
from ._runner import TournamentRunner as TournamentRunner
from ._runner import arena_launch_failure as arena_launch_failure
from ._runner import commitment_binds as commitment_binds
from ._runner import live_folder as live_folder
from ._runner import pairwise_scores as pairwise_scores
from ._runner import recompute_results as recompute_results
from ._runner import results_dir as results_dir
from ._runner import tournament_results as tournament_results
from ._runner import value_function as value_function
from ._runner import write_results as write_results
from ._schedule import Format as Format
from ._schedule import Plan as Plan
from ._schedule import PlannedSession as PlannedSession
from ._schedule import block_seed as block_seed
from ._schedule import mirrors as mirrors
from ._schedule import plan as plan
from ._schedule import tables as tables
from ._sprt import PairResult as PairResult
from ._sprt import run_sprt as run_sprt

__all__ = [name for name in dir() if not name.startswith("_") and name != "annotations"]

_util.fixup_module_metadata(__name__, globals())
