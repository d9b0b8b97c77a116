"""The arena as a service: bot submissions, a continuous ladder and scheduled tournaments, on the web.

`seka-arena serve CONFIG` runs it (see docs/service.md); `submit` packs a bot's folder and sends it
through the same HTTP API the upload form uses.
"""

from __future__ import annotations

from .. import _util
from ._app import build_app as build_app
from ._archive import MANIFEST as MANIFEST
from ._archive import ArchiveError as ArchiveError
from ._archive import Manifest as Manifest
from ._archive import unpack_archive as unpack_archive
from ._client import TOKEN_ENV as TOKEN_ENV
from ._client import SubmitError as SubmitError
from ._client import pack_folder as pack_folder
from ._client import read_token as read_token
from ._client import submit_folder as submit_folder
from ._config import LadderConfig as LadderConfig
from ._config import Quotas as Quotas
from ._config import ScheduleConfig as ScheduleConfig
from ._config import ServiceConfig as ServiceConfig
from ._config import UploadLimits as UploadLimits
from ._config import WebLimits as WebLimits
from ._config import load_service_config as load_service_config
from ._cron import Scheduler as Scheduler
from ._cron import fire_now as fire_now
from ._cron import latest_due as latest_due
from ._cron import next_due as next_due
from ._ladder import Ladder as Ladder
from ._ladder import choose_table as choose_table
from ._ladder import information as information
from ._ladder import table_information as table_information
from ._registry import DataFolder as DataFolder
from ._registry import Registry as Registry
from ._serve import serve as serve
from ._service import Service as Service
from ._service import open_service as open_service
from ._store import Author as Author
from ._store import FinishedSession as FinishedSession
from ._store import ServiceStore as ServiceStore
from ._store import TokenRecord as TokenRecord
from ._store import TokenRefusedError as TokenRefusedError
from ._store import VersionRecord as VersionRecord
from ._store import VersionStatus as VersionStatus

__all__ = [name for name in dir() if not name.startswith("_") and name != "annotations"]

_util.fixup_module_metadata(__name__, globals())
