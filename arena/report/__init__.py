"""The tournament report: a static site of standings, charts, bot pages and session replays.

Pages are rendered from the package's Jinja2 templates, charts are SVG drawn when the report is
written, and every page opens from `file://` with no network (`seka-arena report results/NAME`).
"""

from __future__ import annotations

from .. import _util
from ._build import write_report as write_report
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
