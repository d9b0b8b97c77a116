"""Session executors: where and how sessions are played for a driver that stores them.

`local` plays them in the driver's own trio loop (the default, no dependency); `dask` on the
workers of a Dask distributed cluster (the optional extra `dask`).
"""

from __future__ import annotations

from .. import _util
from ._bundles import MAX_BUNDLE_BYTES as MAX_BUNDLE_BYTES
from ._bundles import Bundle as Bundle
from ._bundles import BundleError as BundleError
from ._bundles import pack_bundle as pack_bundle
from ._bundles import shipped_spec as shipped_spec
from ._bundles import unpack_bundle as unpack_bundle
from ._bundles import unpacked_spec as unpacked_spec
from ._dask import ClusterError as ClusterError
from ._dask import DaskExecutor as DaskExecutor
from ._dask import cluster_problem as cluster_problem
from ._dask import is_remote as is_remote
from ._governor import Governor as Governor
from ._jobs import JobOutcome as JobOutcome
from ._jobs import SessionJob as SessionJob
from ._jobs import play_job as play_job
from ._local import LocalExecutor as LocalExecutor
from ._local import SessionExecutor as SessionExecutor
from ._tls import ClusterCertificates as ClusterCertificates
from ._worker import WorkerError as WorkerError
from ._worker import check_worker as check_worker
from ._worker import play_on_worker as play_on_worker

__all__ = [name for name in dir() if not name.startswith("_") and name != "annotations"]

_util.fixup_module_metadata(__name__, globals())
