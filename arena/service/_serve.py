"""`seka-arena serve`: one nursery over the web server, the checks, the ladder (a process of its own), the schedules.

Theory of operation: `serve` takes the data folder's lock (the results folders' `FolderLock`: a
second `serve` on the same folder is refused at once, naming the first one's pid, and the kernel
frees the lock whatever way the holder ends), opens the service store and runs every part as a
child of one nursery, the web server first (a port it cannot listen on stops the start before
anything is played): Hypercorn's trio worker serving the Starlette app, the check queue (each `pending`
version through check-bot in the sandbox, one at a time, those left pending by a stopped service
first), the leaderboard's fits (in a worker process, `_board`), the ladder (in a process of its own,
`_ladder_process`) and the cron scheduler. SIGTERM (or Ctrl-C) asks Hypercorn to finish the
requests in flight, then cancels the rest: sessions in flight are abandoned, their bots stopped,
and, as everything is committed as it happens, the next `serve` resumes them.
"""

from __future__ import annotations

import functools
import signal
import sys
import time
from collections.abc import Callable
from typing import Any, TypeVar

import trio
from hypercorn.config import Config as HypercornConfig
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


async def serve(config: ServiceConfig, *, bind: str = "127.0.0.1:8080", clock: Callable[[], float] = time.time,
                announce: Callable[[str], None] = lambda line: print(line, flush=True)) -> None:
    """Run the service until SIGTERM or SIGINT, then stop cleanly (everything in flight resumes next time).

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
            tasks = _start(lambda: background_tasks(service))
            web = HypercornConfig()
            web.bind = [f"[{host}]:{port}" if ":" in host else f"{host}:{port}"]
            web.accesslog = None
            web.graceful_timeout = 3.0
            stop = trio.Event()
            async with trio.open_nursery() as nursery:
                nursery.start_soon(_stop_on_signals, stop)

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


def background_tasks(service: Service) -> list[Callable[[], Any]]:
    """The leaderboard's fits, the ladder (unless the configuration turns it off) and the cron scheduler.

    Raises:
        StorageError: the ladder's folder holds histories the store knows nothing of.
    """
    tasks: list[Callable[[], Any]] = [service.board.run]
    if service.config.ladder.enabled:
        Ladder(service).verify_histories()
        tasks.append(functools.partial(run_ladder_process, service))
    scheduler = Scheduler(service)
    service.freeze_checks.append(scheduler.frozen_until)
    tasks.append(scheduler.run)
    return tasks


async def _stop_on_signals(stop: trio.Event) -> None:
    with trio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
        async for number in signals:
            print(f"seka-arena serve: {signal.Signals(number).name}: stopping", file=sys.stderr, flush=True)
            stop.set()
