"""`seka-arena serve`: one nursery over the web server, the checks, the ladder (a process of its own), the schedules.

Theory of operation: `serve` takes the data folder's lock (the results folders' `FolderLock`: a
second `serve` on the same folder is refused at once, naming the first one's pid, and the kernel
frees the lock whatever way the holder ends), opens the service store and runs every part as a
child of one nursery, the web server first (a port it cannot listen on stops the start before
anything is played): Hypercorn's trio worker serving the Starlette app, the check queue (each `pending`
version through check-bot in the sandbox, one at a time, those left pending by a stopped service
first), the leaderboard's fits (in a worker process, `_board`), the ladder (in a process of its own,
`_ladder_process`) and the cron scheduler. A first SIGTERM (or Ctrl-C) stops it gracefully: the
ladder and the scheduled tournaments start no session, those in flight are played to their end
and stored (the web still answers meanwhile), then Hypercorn finishes the requests in flight and
the rest is cancelled; `serve` exits 0. A second one stops at once: Hypercorn finishes its
requests, the sessions in flight are abandoned and their bots stopped. Either way, as everything
is committed as it happens, the next `serve` resumes what was left (a ladder block's remaining
sessions, a tournament's unplayed ones).
"""

from __future__ import annotations

import functools
import signal
import socket
import sys
import time
from collections.abc import Callable
from typing import Any, TypeVar

import trio
from hypercorn.config import Config as HypercornConfig
from hypercorn.config import Sockets
from hypercorn.trio import serve as hypercorn_serve

from ..engine import ArenaError
from ..isolation import lowered_defaults_warning
from ..storage import FolderLock
from ._app import build_app
from ._config import ServiceConfig
from ._cron import Scheduler
from ._ladder import Ladder
from ._ladder_process import run_ladder_process
from ._service import Service, open_service

_T = TypeVar("_T")


def parse_bind(text: str) -> tuple[str, int]:
    """`HOST:PORT` checked (`[::1]:8080` for IPv6).

    >>> parse_bind("127.0.0.1:8080"), parse_bind("[::1]:0")
    (('127.0.0.1', 8080), ('::1', 0))
    """
    host, colon, port = text.rpartition(":")
    if not colon or not host or not port.isdigit() or int(port) > 65535:
        raise ArenaError(f"--bind must be HOST:PORT such as 127.0.0.1:8080, not {text!r}")
    return host.strip("[]"), int(port)


class _WebConfig(HypercornConfig):
    """Hypercorn's settings, its listening sockets closing stalled connections.

    Hypercorn shields a response's writes from cancellation, so a client that stops reading (or vanishes)
    holds its connection, and an event stream its place under `web.events_total`, for as long as the
    kernel keeps the connection. TCP_USER_TIMEOUT, set on the listening socket and so on every connection
    it accepts, has the kernel close one whose sent bytes stay unacknowledged that long (window probes to a
    full receive window included): the blocked write then fails and the stream ends.
    """

    def __init__(self, *, stalled_client_seconds: int) -> None:
        super().__init__()
        self.stalled_client_seconds = stalled_client_seconds

    def create_sockets(self) -> Sockets:
        sockets = super().create_sockets()
        for listening in sockets.secure_sockets + sockets.insecure_sockets:
            if listening.family in (socket.AF_INET, socket.AF_INET6):
                listening.setsockopt(socket.IPPROTO_TCP, socket.TCP_USER_TIMEOUT, self.stalled_client_seconds * 1000)
        return sockets


async def serve(config: ServiceConfig, *, bind: str = "127.0.0.1:8080", clock: Callable[[], float] = time.time,
                announce: Callable[[str], None] = lambda line: print(line, flush=True)) -> None:
    """Run the service until SIGTERM or SIGINT, then stop cleanly (see the module's docstring).

    Raises:
        ArenaError: it cannot start (another `serve` holds the data folder, the port is taken, the
            store is refused, a folder cannot be made), in one line.
    """
    host, port = parse_bind(bind)
    lock = FolderLock.acquire(config.data, purpose="serve", kind="data folder")
    try:
        service = _start(lambda: open_service(config, clock=clock))
        try:
            if service.isolation_warning is not None:
                announce(f"warning: {service.isolation_warning}")
            if (lowered := lowered_defaults_warning(service.isolation)) is not None:
                announce(f"warning: {lowered}")
            graceful, tasks = _start(lambda: background_tasks(service))
            web = _WebConfig(stalled_client_seconds=config.web.stalled_client_seconds)
            web.bind = [f"[{host}]:{port}" if ":" in host else f"{host}:{port}"]
            web.accesslog = None
            web.graceful_timeout = 3.0
            stop = trio.Event()
            """Hypercorn's trigger: it finishes the requests in flight, then everything is cancelled."""
            async with trio.open_nursery() as nursery:
                nursery.start_soon(_stop_on_signals, service, stop)

                async def web_server(task_status: trio.TaskStatus[list[str]] = trio.TASK_STATUS_IGNORED) -> None:
                    await hypercorn_serve(build_app(service), web,  # type: ignore[arg-type]
                                          shutdown_trigger=stop.wait, task_status=task_status)
                    nursery.cancel_scope.cancel()  # the web server has finished its requests: stop the rest

                try:
                    urls = await nursery.start(web_server)
                except* OSError as group:  # the port is taken, or the address is not this machine's
                    error = _first_leaf(group)
                    raise ArenaError(f"cannot listen on {bind}: {error.strerror or error}") from None
                nursery.start_soon(service.run_checks)
                for task in tasks:
                    nursery.start_soon(task)

                async def until_stored() -> None:
                    async with trio.open_nursery() as stopping:
                        for task in graceful:
                            stopping.start_soon(task)
                    stop.set()  # they return once stopping and their sessions in flight are stored

                nursery.start_soon(until_stored)
                announce(f"seka-arena serve: listening on {' '.join(urls)} (data in {config.data}); "
                         "SIGTERM or Ctrl-C stops it")
        finally:
            service.store.close()
    finally:
        lock.release()


def _first_leaf(group: BaseExceptionGroup[OSError]) -> OSError:
    # Hypercorn's trio worker raises from a nursery of its own: the error comes wrapped.
    first = group.exceptions[0]
    return first if isinstance(first, OSError) else _first_leaf(first)


def _start(step: Callable[[], _T]) -> _T:
    # A start-up step whose OSError (a folder that cannot be made, a permission) is one line, not a traceback.
    try:
        return step()
    except OSError as error:
        raise ArenaError(f"cannot start: {error.strerror or error}"
                         f"{f' ({error.filename})' if error.filename else ''}") from None


def background_tasks(service: Service) -> tuple[list[Callable[[], Any]], list[Callable[[], Any]]]:
    """The tasks that play sessions, which return once the service is stopping and their sessions in
    flight are stored: the ladder (unless the configuration turns it off) and the cron scheduler; and
    the others, cancelled when the service stops: the leaderboard's fits and the collusion reports.

    Raises:
        StorageError: the ladder's folder holds histories the store knows nothing of.
    """
    graceful: list[Callable[[], Any]] = []
    if service.config.ladder.enabled:
        Ladder(service).verify_histories()
        graceful.append(functools.partial(run_ladder_process, service))
    scheduler = Scheduler(service)
    service.freeze_checks.append(scheduler.frozen_until)
    graceful.append(scheduler.run)
    return graceful, [service.board.run, service.collusion.run]


async def _stop_on_signals(service: Service, stop: trio.Event) -> None:
    # The first signal stops the sessions' tasks gracefully; the next one stops everything at once.
    with trio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
        async for number in signals:
            name = signal.Signals(number).name
            if service.stopping.is_set():
                print(f"seka-arena serve: {name}: stopping at once", file=sys.stderr, flush=True)
                stop.set()
            else:
                print(f"seka-arena serve: {name}: stopping: the sessions in flight finish, no new one starts; "
                      "a second SIGTERM or Ctrl-C stops at once", file=sys.stderr, flush=True)
                service.stop()
