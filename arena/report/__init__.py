"""The tournament report: a static site of standings, charts, bot pages and session replays.

Pages are rendered from the package's Jinja2 templates, charts are SVG drawn when the report is
written, and every page opens from `file://` with no network (`seka-arena report results/NAME`).
"""

from __future__ import annotations

from .. import _util
from ._build import write_report as write_report
from ._charts import IntervalChart as IntervalChart
from ._charts import LineChart as LineChart
from ._charts import interval_chart as interval_chart
from ._charts import line_chart as line_chart
from ._formats import chips as chips
from ._formats import chips_text as chips_text
from ._formats import rating_text as rating_text
from ._formats import when as when
from ._replay import FORMAT_VERSION as FORMAT_VERSION
from ._replay import SPECTATOR as SPECTATOR
from ._replay import ReplayDataError as ReplayDataError
from ._replay import card_name as card_name
from ._replay import card_text as card_text
from ._replay import redact_records as redact_records
from ._replay import replay_data as replay_data
from ._replays import Audience as Audience
from ._replays import SessionHistory as SessionHistory
from ._replays import balance_curve as balance_curve
from ._replays import seat_page as seat_page
from ._replays import write_replays as write_replays
from ._replays import write_session_replay as write_session_replay
from ._results import ReportError as ReportError
from ._results import Results as Results
from ._results import StandingRow as StandingRow
from ._results import Standings as Standings
from ._results import load_results as load_results
from ._results import parse_standings as parse_standings
from ._site import NAVIGATION as NAVIGATION
from ._site import STYLESHEET as STYLESHEET
from ._site import NavLink as NavLink
from ._site import Site as Site
from ._site import bot_page as bot_page
from ._site import environment as environment
from ._site import page_name as page_name
from ._site import session_page as session_page

__all__ = [name for name in dir() if not name.startswith("_") and name != "annotations"]

_util.fixup_module_metadata(__name__, globals())
