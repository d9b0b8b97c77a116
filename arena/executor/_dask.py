"""The `dask` backend: sessions played on the workers of a Dask distributed cluster.

Theory of operation: the driver (this process) keeps its trio loop, its store and its files; a
Dask `Client` runs in threads of its own. `prepare` packs every bot launched by command into a
bundle (`_bundles`), once per digest, and scatters its bytes into the cluster; each job then names
its bots' digests and Dask moves the bytes to the worker that plays it (kept there for the next).
`play` submits `play_on_worker` under a key of its own for each attempt and waits without
blocking the loop (the future's callback wakes it). A worker lost with the session (killed,
crashed, its machine gone) fails the attempt with `KilledWorker`: the driver hands the same job
out again, attempt + 1, and the session is played from its seed elsewhere, dealing the same
cards; what the lost attempt did is never stored. The local cluster the driver starts itself
(`local:N`) is told to give up on a task at its first lost worker, so every such attempt is the
driver's and counted; a cluster started by someone else may also retry on its own first.

Safety: a cluster at an address plays on other machines, so its bots must run under `sandbox`
(no network: the cluster's own ports stay out of their reach), and bots given by `address:` are
refused, as workers cannot know what that address means on the driver's machine. Every worker
checks the isolation level when the driver connects (and again before its first session).
Dask unpickles what it is sent, so whoever reaches a scheduler or a worker runs code as its user:
`local:N` listens on loopback with mutual TLS from a CA made for the run and serves no HTTP
(`_local_cluster`, `_tls`); a cluster at an address must be `tls://` with this driver's certificate,
unless it is on loopback (docs/scaling.md, "Securing the scheduler").
"""

from __future__ import annotations

import ipaddress
import logging
import math
import os
import re
from collections.abc import Sequence
from dataclasses import replace
from types import TracebackType
from typing import TYPE_CHECKING, Any

import trio

from ..engine import ArenaError
from ..isolation import Isolation
from ..transport import BotSpec
from ._bundles import Bundle, pack_bundle, shipped_spec
from ._jobs import JobOutcome, SessionJob
from ._local import SessionExecutor
from ._tls import ClusterCertificates, ClusterCredentials, make_credentials
from ._worker import check_worker, play_on_worker

if TYPE_CHECKING:
    from distributed import Client, Future, Security, SpecCluster

LOGGER = logging.getLogger(__name__)

MAX_ATTEMPTS = 3
"""Workers a session may be lost with before the run stops (a session that kills its worker)."""
CONNECT_SECONDS = 5.0
"""How long the driver waits for a scheduler to answer before it says that none does."""
_LOCAL = re.compile(r"local:(\d+)\Z")
_ADDRESS = re.compile(r"((tcp|tls)://)?(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):(\d{1,5})\Z")
MAX_LOCAL_WORKERS = 64
_RECOUNT_SECONDS = 5.0


class ClusterError(ArenaError):
    """A cluster that cannot be reached or used, or a tournament it cannot play; the message says why."""


def cluster_problem(address: object, *, shown: str | None = None) -> str | None:
    """What is wrong with a `--cluster` / `executor: {cluster: ...}` value, or None; `shown`: how to quote it.

    Plain `tcp://` (and `HOST:PORT`) only on loopback: anyone who reaches a Dask scheduler runs code
    on its workers, so a cluster of other machines must be `tls://` with certificates.

    >>> cluster_problem("local:2"), cluster_problem("tls://10.0.0.5:8786"), cluster_problem("tcp://127.0.0.1:8786")
    (None, None, None)
    >>> print(cluster_problem("sched:8786"))  # doctest: +ELLIPSIS
    tcp://sched:8786 is neither encrypted nor authenticated: ... docs/scaling.md, "Securing the scheduler"
    >>> cluster_problem("local:0")
    'local:N starts N worker processes on this machine, 1 to 64, not 0'
    >>> cluster_problem("http://x:1")
    "must be local:N or a scheduler's address (tcp://HOST:PORT, tls://HOST:PORT or HOST:PORT), not 'http://x:1'"
    """
    if isinstance(address, str) and (local := _LOCAL.match(address)):
        workers = int(local.group(1))
        if 1 <= workers <= MAX_LOCAL_WORKERS:
            return None
        return f"local:N starts N worker processes on this machine, 1 to {MAX_LOCAL_WORKERS}, not {workers}"
    if isinstance(address, str) and (match := _ADDRESS.match(address)) and 0 < int(match.group(4)) < 65536:
        if match.group(2) == "tls" or _is_loopback(match.group(3)):
            return None
        plain = address if match.group(1) else f"tcp://{address}"
        return (f"{plain} is neither encrypted nor authenticated: whoever reaches a Dask scheduler runs code on its "
                "workers (as root, for the sandbox), so plain tcp:// is accepted on loopback only. Secure the "
                f"cluster with TLS and give tls://{match.group(3)}:{match.group(4)} with this driver's certificate "
                "(--cluster-ca, --cluster-cert, --cluster-key, or executor: {cluster, ca, cert, key} in the file): "
                'docs/scaling.md, "Securing the scheduler"')
    return ("must be local:N or a scheduler's address (tcp://HOST:PORT, tls://HOST:PORT or HOST:PORT), "
            f"not {repr(address) if shown is None else shown}")


def _is_loopback(host: str) -> bool:
    """Whether `host` is this machine's loopback (by name `localhost`, or an address in 127.0.0.0/8 or ::1)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _configured_tls() -> bool:
    """Whether Dask's configuration names a CA and a client certificate (`distributed.comm.tls`)."""
    try:
        import dask.config
    except ImportError:
        raise ClusterError("--cluster needs Dask distributed: pip install 'seka-arena[dask]'") from None
    return bool(dask.config.get("distributed.comm.tls.ca-file", None)
                and dask.config.get("distributed.comm.tls.client.cert", None))


def is_remote(address: str) -> bool:
    """Whether `address` is a cluster of other machines (not `local:N`, which this process starts)."""
    return _LOCAL.match(address) is None


def _distributed() -> Any:
    try:
        import distributed
    except ImportError:
        raise ClusterError("--cluster needs Dask distributed: pip install 'seka-arena[dask]'") from None
    return distributed


class DaskExecutor(SessionExecutor):
    """Sessions on a Dask cluster's workers; see the module docstring."""

    name = "dask"

    def __init__(self, address: str, *, isolation: Isolation, concurrency: int | None = None,
                 cores: int | None = None, certificates: ClusterCertificates | None = None) -> None:
        """`certificates`: this driver's, for a `tls://` cluster (else Dask's configuration must name them)."""
        if (problem := cluster_problem(address)) is not None:
            raise ClusterError(f"--cluster {problem}")
        if certificates is not None and not address.startswith("tls://"):
            raise ClusterError(f"certificates are for a tls:// cluster, not {address}")
        if certificates is not None and (problem := certificates.problem()) is not None:
            raise ClusterError(problem)

        if is_remote(address) and isolation is not Isolation.SANDBOX:
            raise ClusterError(f"a cluster at {address} plays on other machines: its bots must run with isolation "
                               f"`sandbox`, not `{isolation.value}`")
        self.address = address
        self.certificates = certificates
        self.isolation = isolation
        self.concurrency = concurrency
        local = _LOCAL.match(address)
        self.local_workers = int(local.group(1)) if local else None
        cores = cores if cores is not None else len(os.sched_getaffinity(0))
        wanted = concurrency if concurrency is not None else cores
        self.threads_per_worker = max(1, math.ceil(wanted / self.local_workers)) if self.local_workers else None
        """Sessions each worker of a local cluster plays at once."""
        self._client: Client | None = None
        self._cluster: SpecCluster | None = None
        self._credentials: ClusterCredentials | None = None
        self._threads = 0
        self._counted = 0.0
        self._bundles: dict[str, Future[bytes]] = {}  # digest -> its bytes in the cluster
        self._data: dict[str, bytes] = {}  # digest -> its bytes here, to scatter again if the cluster loses them
        self._shipped: dict[str, tuple[BotSpec, str]] = {}  # bot name -> shipped spec, digest

    @property
    def credentials(self) -> ClusterCredentials | None:
        """The files of the local cluster's throw-away CA while it runs (None otherwise, or for a remote one)."""
        return self._credentials

    @property
    def scheduler_address(self) -> str | None:
        """The address of the scheduler in use, while connected."""
        scheduler = None if self._client is None else self._client.scheduler
        return None if scheduler is None else str(scheduler.address)

    @property
    def limit(self) -> int:
        threads = max(1, self._threads)
        return min(threads, self.concurrency) if self.concurrency is not None else threads

    def describe(self) -> str:
        where = (f"on a local Dask cluster of {self.local_workers} worker processes x {self.threads_per_worker} "
                 "threads" if self.local_workers else f"on the Dask cluster at {self.address}")
        return where + (f", {self.concurrency} at a time" if self.concurrency is not None else
                        ", as many at a time as its workers have threads")

    async def __aenter__(self) -> DaskExecutor:
        distributed = _distributed()
        self._client, self._cluster = await trio.to_thread.run_sync(self._connect, distributed)
        try:
            await self._check_workers()
        except BaseException:
            await self._close()
            raise
        return self

    def _connect(self, distributed: Any) -> tuple[Client, SpecCluster | None]:
        import dask

        if self.local_workers is not None:
            from ._local_cluster import start_local_cluster

            # Loopback, mutual TLS from the run's own CA, no HTTP; a lost worker fails the task at once, so
            # the driver counts and replays every attempt itself (and says so: Dask's own log lines stay quiet).
            assert self.threads_per_worker is not None
            try:
                credentials = self._credentials = make_credentials()
            except ImportError as missing:
                raise ClusterError(str(missing)) from None
            try:
                with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
                    cluster = start_local_cluster(self.local_workers, self.threads_per_worker, credentials)
                try:
                    return distributed.Client(cluster, set_as_default=False), cluster
                except BaseException:
                    cluster.close()
                    raise
            except BaseException:
                self._credentials = None
                credentials.remove()
                raise
        try:
            return distributed.Client(self.address, timeout=CONNECT_SECONDS, set_as_default=False,
                                      security=self._security(distributed)), None
        except OSError as error:
            raise ClusterError(f"no Dask scheduler answered at {self.address} within {CONNECT_SECONDS:g} s ({error}); "
                               "start one (dask scheduler, then dask worker ADDRESS on each machine) or correct "
                               "--cluster") from None

    def _security(self, distributed: Any) -> Security | None:
        """The driver's TLS settings for a `tls://` cluster: its certificates, or Dask's configuration's."""
        if not self.address.startswith("tls://"):
            return None
        security: Security
        if self.certificates is not None:
            security = distributed.Security(require_encryption=True, tls_ca_file=str(self.certificates.ca),
                                            tls_client_cert=str(self.certificates.cert),
                                            tls_client_key=str(self.certificates.key))
            return security
        security = distributed.Security(require_encryption=True)  # Dask's configuration names the files
        return security

    async def _check_workers(self) -> None:
        assert self._client is not None
        client = self._client
        problems: dict[str, str | None] = await trio.to_thread.run_sync(
            lambda: client.run(check_worker, self.isolation.value))
        if not problems:
            raise ClusterError(f"the Dask cluster at {self.address} has no workers")
        refused = {worker: problem for worker, problem in problems.items() if problem is not None}
        if refused:
            raise ClusterError("; ".join(f"worker {worker} cannot run bots at isolation `{self.isolation.value}`: "
                                         f"{problem}" for worker, problem in sorted(refused.items())))
        await self._count_threads()

    async def _count_threads(self) -> None:
        # Workers join and leave (an autoscaled cluster, a worker restarted): their threads are the limit.
        assert self._client is not None
        self._threads = sum((await trio.to_thread.run_sync(self._client.nthreads)).values())
        self._counted = trio.current_time()

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None,
                        traceback: TracebackType | None) -> None:
        await self._close()

    async def _close(self) -> None:
        client, cluster, credentials = self._client, self._cluster, self._credentials
        self._client = self._cluster = self._credentials = None
        self._bundles.clear()
        self._data.clear()
        self._shipped.clear()

        def close() -> None:
            try:
                if client is not None:
                    client.close()
            finally:
                try:
                    if cluster is not None:
                        cluster.close()
                finally:
                    if credentials is not None:  # the keys go with the cluster: nothing is left to connect with
                        credentials.remove()

        with trio.CancelScope(shield=True):
            await trio.to_thread.run_sync(close)

    def verify(self, bots: Sequence[BotSpec]) -> None:
        for spec in bots:
            if spec.address is not None and spec.disabled is None and is_remote(self.address):
                raise ClusterError(f"bot {spec.name!r} is given by address ({spec.address}): workers on other "
                                   f"machines cannot reach it as this machine does; give it a command, or play "
                                   "without --cluster")
        if self.address.startswith("tls://") and self.certificates is None and not _configured_tls():
            raise ClusterError(f"{self.address} needs the cluster's CA and this driver's certificate and key: "
                               "--cluster-ca, --cluster-cert and --cluster-key (or executor: {cluster, ca, cert, key}"
                               " in the file, or distributed.comm.tls in Dask's configuration); docs/scaling.md")

    async def prepare(self, bots: Sequence[BotSpec]) -> None:
        self.verify(bots)
        packed: dict[str, Bundle] = {}
        for spec in bots:
            if spec.command is None or spec.name in self._shipped:
                continue
            bundle = await trio.to_thread.run_sync(pack_bundle, spec)
            packed.setdefault(bundle.digest, bundle)
            self._shipped[spec.name] = (shipped_spec(spec), bundle.digest)
        for digest, bundle in packed.items():
            self._data.setdefault(digest, bundle.data)
        await self._ship(list(packed))

    async def _ship(self, digests: Sequence[str]) -> None:
        # Each bundle to every worker at once, and again when the cluster has lost every copy (the
        # workers holding it died): a job waiting for it would be cancelled.
        assert self._client is not None
        client = self._client
        for digest in digests:
            if digest not in self._bundles or self._bundles[digest].status != "finished":
                self._bundles[digest] = await trio.to_thread.run_sync(self._scatter, client, self._data[digest])

    @staticmethod
    def _scatter(client: Client, data: bytes) -> Future[bytes]:
        future: Future[bytes] = client.scatter(data, hash=False, broadcast=True)
        return future

    def _job(self, job: SessionJob) -> SessionJob:
        bots: list[BotSpec] = []
        digests: list[str | None] = []
        for spec in job.bots:
            shipped = self._shipped.get(spec.name) if spec.disabled is None and spec.command is not None else None
            if shipped is None:
                bots.append(spec)
                digests.append(None)
            else:
                bots.append(replace(shipped[0], env=spec.env, limit=spec.limit, process=spec.process,
                                    isolation=spec.isolation))
                digests.append(shipped[1])
        return replace(job, bots=tuple(bots), bundles=tuple(digests))

    async def play(self, job: SessionJob) -> JobOutcome:
        distributed = _distributed()
        assert self._client is not None
        unknown = [spec.name for spec in job.bots if spec.command is not None and spec.name not in self._shipped]
        if unknown:
            raise ClusterError(f"bots {unknown} were not prepared for the cluster")
        job = self._job(job)
        from distributed.client import FutureCancelledError

        while True:
            digests = [digest for digest in job.bundles if digest is not None]
            await self._ship(digests)
            try:
                outcome = await self._run(job, {digest: self._bundles[digest] for digest in digests})
                if trio.current_time() - self._counted > _RECOUNT_SECONDS:
                    await self._count_threads()
                return outcome
            except (distributed.KilledWorker, FutureCancelledError) as lost:
                # Lost with its worker, or before it started, with the only copies of a bundle.
                if job.attempt >= MAX_ATTEMPTS:
                    raise ClusterError(f"session {job.session_id} was lost with its worker {job.attempt} times: "
                                       f"stopped ({lost})") from None
                LOGGER.warning("session %s: attempt %d lost (%s); played again", job.session_id, job.attempt, lost)
                job = replace(job, attempt=job.attempt + 1)

    async def _run(self, job: SessionJob, bundles: dict[str, Future[bytes]]) -> JobOutcome:
        assert self._client is not None
        client = self._client
        future: Future[JobOutcome] = await trio.to_thread.run_sync(lambda: client.submit(
            play_on_worker, job, bundles, key=f"{job.session_id}-attempt-{job.attempt}-{os.urandom(4).hex()}",
            pure=False))
        token = trio.lowlevel.current_trio_token()
        done = trio.Event()
        future.add_done_callback(lambda _: token.run_sync_soon(done.set))
        try:
            await done.wait()
        except BaseException:
            with trio.CancelScope(shield=True):  # a running session cannot be stopped; its result is dropped
                await trio.to_thread.run_sync(future.cancel)
            raise
        outcome: JobOutcome = await trio.to_thread.run_sync(future.result)
        return outcome
