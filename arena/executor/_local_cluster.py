"""`--cluster local:N`: a Dask cluster of this machine that only this run can reach.

Scheduler, nannies and workers listen on loopback with mutual TLS from the run's throw-away CA
(`_tls`), and none of them starts an HTTP server: Dask's scheduler and workers start one even
without a dashboard (`/health`, `/info/...`, `/metrics`), which no certificate guards. The
arena never reads it. Imports Dask: only loaded when a local cluster is asked for.
"""

from __future__ import annotations

import logging
import os
from typing import Any

from distributed import Nanny, Scheduler, Security, SpecCluster, Worker
from distributed.http.routing import RoutingApplication
from distributed.worker_memory import parse_memory_limit

from ._tls import ROLES, ClusterCredentials

LOGGER = logging.getLogger(__name__)


class _NoHttp:
    """A Dask node without its HTTP server: nothing listens but the node's TLS comm port."""

    def start_http_server(self, routes: Any, dashboard_address: Any, default_port: int = 0,
                          ssl_options: Any = None) -> None:
        # Dask calls this while the node starts; stopping a node walks these (no) applications.
        self.http_application = RoutingApplication([])


class QuietScheduler(_NoHttp, Scheduler):
    """Dask's scheduler with no HTTP server."""


class QuietWorker(_NoHttp, Worker):
    """Dask's worker with no HTTP server, in a process group of its own.

    Ctrl-C in a terminal signals its whole foreground process group: the driver (`run`, serve's
    ladder) takes it as "finish the sessions in flight", but a worker process would die of it with
    those sessions. Out of the group, only its driver stops it, once they are stored (its bots have
    sessions of their own already).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        os.setpgrp()  # in the worker's own process: the nanny starts it, the driver's process holds the nanny
        super().__init__(*args, **kwargs)


def security(credentials: ClusterCredentials) -> Security:
    """Dask's TLS settings for `credentials`: encryption required, certificates from the run's CA only."""
    files: dict[str, str] = {}
    for role in ROLES:
        files[f"tls_{role}_cert"] = str(credentials.cert(role))
        files[f"tls_{role}_key"] = str(credentials.key(role))
    return Security(require_encryption=True, tls_ca_file=str(credentials.ca_file), **files)


def start_local_cluster(workers: int, threads_per_worker: int, credentials: ClusterCredentials) -> SpecCluster:
    """Start `workers` worker processes (each under a nanny, which restarts it) and a scheduler, in this process.

    A lost worker fails its task at once (`allowed-failures` 0, set by the caller), so every attempt
    is the driver's and counted. Each worker's memory limit is the machine's share, as LocalCluster's.
    """
    settings = security(credentials)
    common = {"host": "127.0.0.1", "protocol": "tls://", "security": settings}
    scheduler = {"cls": QuietScheduler, "options": {**common, "dashboard": False, "dashboard_address": None}}
    worker = {"cls": Nanny, "options": {
        **common, "worker_class": QuietWorker, "nthreads": threads_per_worker, "dashboard": False,
        "dashboard_address": None, "silence_logs": logging.CRITICAL,
        "memory_limit": parse_memory_limit("auto", 1, workers, logger=LOGGER)}}
    return SpecCluster(scheduler=scheduler, workers={number: worker for number in range(workers)}, worker=worker,
                       security=settings, silence_logs=logging.CRITICAL, name="seka-arena")
