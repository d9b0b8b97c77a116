"""Session executors: where and how sessions are played for a driver that stores them.

`local` plays them in the driver's own trio loop (the default, no dependency); `dask` on the
workers of a Dask distributed cluster (the optional extra `dask`).
"""

from __future__ import annotations

from .. import _util
from ._governor import Governor as Governor
from ._jobs import JobOutcome as JobOutcome
from ._jobs import SessionJob as SessionJob
from ._jobs import play_job as play_job
from ._local import LocalExecutor as LocalExecutor
from ._local import SessionExecutor as SessionExecutor

__all__ = [name for name in dir() if not name.startswith("_") and name != "annotations"]

_util.fixup_module_metadata(__name__, globals())
