"""OS isolation of bot processes: launch, resource limits, control groups, the sandbox and its system-call filter.

Where a bot is fenced in; `arena.transport` launches bots through these names and calls them over gRPC.
"""

from __future__ import annotations

from .. import _util
from ._fairness import ArenaLag as ArenaLag
from ._fairness import CallTime as CallTime
from ._fairness import arena_lag as arena_lag
from ._process import BotProcess as BotProcess
from ._process import Stopped as Stopped
from ._process import Stopping as Stopping
from ._sandbox import DEFAULT_LIMITS as DEFAULT_LIMITS
from ._sandbox import Isolation as Isolation
from ._sandbox import ProcessLimits as ProcessLimits
from ._sandbox import SandboxError as SandboxError
from ._sandbox import confinement_problem as confinement_problem
from ._sandbox import default_isolation as default_isolation
from ._sandbox import ensure_open_files as ensure_open_files
from ._sandbox import isolation_problem as isolation_problem
from ._sandbox import lowered_defaults_warning as lowered_defaults_warning
from ._sandbox import remove_stale_cgroups as remove_stale_cgroups
from ._sandbox import remove_stale_folders as remove_stale_folders
from ._sandbox import rlimit_ceiling as rlimit_ceiling
from ._sandbox import rlimit_problem as rlimit_problem
from ._sandbox import sandbox_env as sandbox_env
from ._sandbox import seal_socket_folder as seal_socket_folder
from ._sandbox import session_folder as session_folder
from ._sandbox import verify_bot_folders as verify_bot_folders
from ._sandbox import verify_isolation as verify_isolation

__all__ = [name for name in dir() if not name.startswith("_") and name != "annotations"]

_util.fixup_module_metadata(__name__, globals())
