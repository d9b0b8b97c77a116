"""Storage: each tournament's definition, commitment, plan and results in one SQLite file.

The file lives in a results folder that one arena holds at a time.
"""

from __future__ import annotations

from .. import _util
from ._errors import AlreadyWrittenError as AlreadyWrittenError
from ._errors import DefinitionMismatchError as DefinitionMismatchError
from ._errors import DiskFullError as DiskFullError
from ._errors import StorageError as StorageError
from ._errors import is_disk_full as is_disk_full
from ._files import StoreKind as StoreKind
from ._files import create_store_file as create_store_file
from ._files import make_private as make_private
from ._files import refuse_empty as refuse_empty
from ._files import verify_schema as verify_schema
from ._folder import LOCK_FILE as LOCK_FILE
from ._folder import PRIVATE_FILE as PRIVATE_FILE
from ._folder import FolderBusyError as FolderBusyError
from ._folder import FolderLock as FolderLock
from ._folder import FolderReadOnlyError as FolderReadOnlyError
from ._folder import discard_partial_files as discard_partial_files
from ._folder import make_private_folder as make_private_folder
from ._folder import make_way_for_replay as make_way_for_replay
from ._folder import write_atomically as write_atomically
from ._migrations import MIGRATIONS as MIGRATIONS
from ._migrations import Migration as Migration
from ._migrations import apply_migrations as apply_migrations
from ._store import COMMITMENT_FORM as COMMITMENT_FORM
from ._store import FaultReason as FaultReason
from ._store import PlannedLike as PlannedLike
from ._store import SessionRecord as SessionRecord
from ._store import SessionStatus as SessionStatus
from ._store import Store as Store
from ._store import TournamentRecord as TournamentRecord
from ._store import ValueFunction as ValueFunction
from ._store import commitment_of as commitment_of
from ._store import commitment_text as commitment_text
from ._transactions import write_transaction as write_transaction

__all__ = [name for name in dir() if not name.startswith("_") and name != "annotations"]

_util.fixup_module_metadata(__name__, globals())
