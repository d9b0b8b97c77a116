"""Collusion analytics: per pair of bots, soft play (flags, Holm-corrected), chip flow and a duplicate-paired test.

See docs/integrity.md for each measure.
"""

from __future__ import annotations

from .. import _util
from ._collusion import EVIDENCE_ONLY as EVIDENCE_ONLY
from ._collusion import FLAGGING as FLAGGING
from ._collusion import TESTS as TESTS
from ._collusion import Aggregate as Aggregate
from ._collusion import CollusionReport as CollusionReport
from ._collusion import Evidence as Evidence
from ._collusion import PairTest as PairTest
from ._collusion import collect as collect
from ._collusion import collusion_report as collusion_report
from ._collusion import holm as holm
from ._collusion import report_of as report_of
from ._evidence import Decision as Decision
from ._evidence import Pot as Pot
from ._evidence import SessionEvidence as SessionEvidence
from ._evidence import session_evidence as session_evidence
from ._folder import folder_collusion as folder_collusion

__all__ = [
    "EVIDENCE_ONLY",
    "FLAGGING",
    "TESTS",
    "Aggregate",
    "CollusionReport",
    "Decision",
    "Evidence",
    "PairTest",
    "Pot",
    "SessionEvidence",
    "collect",
    "collusion_report",
    "folder_collusion",
    "holm",
    "report_of",
    "session_evidence",
]

_util.fixup_module_metadata(__name__, globals())
