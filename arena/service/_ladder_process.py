"""The ladder in a process of its own: `serve` answers the web in one process and plays the ladder in another.

Theory of operation: a Python process runs one thread at a time, and the ladder is a chain of
short waits (each bot's reply, each store write) on the same event loop as the web server. With
32 clients browsing back to back, every step of a session waited behind the requests' steps and
the ladder lost a third of its pace or more (benchmarks/service.py); bounding the web's requests
instead would have slowed the web as much. So `serve` runs the ladder in a child process
(`ladder_command`: `arena.service._ladder_worker.main(CONFIG)`), which opens the same store (SQLite in WAL
mode: one writer at a time, readers never blocked) and plays as `Ladder.run` does, and the
machine's scheduler shares the cores between the two.

The child reads the configuration from its file, and its stdin is its tie to `serve`: each byte
wakes its ladder (something changed: a version accepted, a block put back in play); a `_STOP` byte
(serve stopping gracefully, after a first SIGTERM or Ctrl-C) lets the sessions in flight finish and
be stored, starts no other, and the child exits; the end of stdin (serve stopping at once, or
killed, even by SIGKILL) cancels its ladder, which stops the sessions in flight and their bots. The
child's own signals do the same (Ctrl-C reaches the whole process group): the first stops it
gracefully, the second at once. A child that ends by itself is logged and started again after
`_RESTART_SECONDS`, unless the service is stopping. The leaderboard learns of its results from the store
(`Board.run` polls the ladder's generation).
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
from pathlib import Path

import trio

from ..engine import ArenaError
from ._config import load_service_config
from ._ladder import Ladder
from ._service import Service, open_service

LOGGER = logging.getLogger(__name__)
LADDER_IMPORT = "import sys; from arena.service._ladder_worker import main"
"""What the ladder process runs before `main(CONFIG)` (`ladder_command`)."""
_STOP_SECONDS = 20.0
"""How long the child has to stop its sessions once its stdin ends, before it is killed."""
_RESTART_SECONDS = 30.0
_WAKE = b"\n"
_STOP = b"S"


async def run_ladder_process(service: Service) -> None:
    """Play the ladder in a child process until cancelled, or until the service is stopping and the
    child has stored its sessions in flight (see the module's docstring).

    Raises:
        ArenaError: the configuration was not read from a file, which the child must read.
    """
    if service.config.path is None:
        raise ArenaError("the ladder's process reads the service's configuration file: load it with "
                         "load_service_config")
    command = ladder_command(service.config.path)
    while True:
        process = await trio.lowlevel.open_process(command, stdin=subprocess.PIPE)
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(_wake_on_changes, service, process)
                status = await process.wait()
                nursery.cancel_scope.cancel()
        finally:
            with trio.CancelScope(shield=True):
                await _stop(process)
        if service.stopping.is_set():
            return
        LOGGER.error("the ladder's process ended by itself (exit status %s); another starts in %g s", status,
                     _RESTART_SECONDS)
        await trio.sleep(_RESTART_SECONDS)


def ladder_command(config: Path) -> list[str]:
    """The ladder process's command line: `python -c`, not `-m`, as a process started with `-m` has every
    process it spawns (a local Dask cluster's workers, their restarts) import its main module again, and
    with it the service's web stack: 3.5-4 s a worker instead of 0.7, and longer in serve's process group,
    where a Ctrl-C reaches it."""
    return [sys.executable, "-c", f"{LADDER_IMPORT}; main(sys.argv[1])", str(config)]


async def _wake_on_changes(service: Service, process: trio.Process) -> None:
    assert process.stdin is not None
    while True:
        if not service.stopping.is_set():
            await service.changed.wait()  # `Service.stop` sets it too
        try:
            await process.stdin.send_all(_STOP if service.stopping.is_set() else _WAKE)
            if service.stopping.is_set():
                return
        except (trio.BrokenResourceError, trio.ClosedResourceError):  # it ended: run_ladder_process sees why
            return


async def _stop(process: trio.Process) -> None:
    # The end of its stdin stops the child's ladder; one that does not stop in time is killed.
    if process.stdin is not None:
        await process.stdin.aclose()
    with trio.move_on_after(_STOP_SECONDS):
        await process.wait()
    if process.returncode is None:
        process.kill()
        await process.wait()


async def play_until_stdin_ends(config_path: Path) -> None:
    """The child's side: play the ladder of the service configured in `config_path` until stdin ends,
    or it is told to stop (by `_STOP` or a signal) and its sessions in flight are stored."""
    service = open_service(load_service_config(config_path))
    try:
        async with trio.open_nursery() as nursery:

            async def ladder() -> None:
                await Ladder(service, announce=lambda line: print(line, flush=True)).run()
                nursery.cancel_scope.cancel()  # stopping, and the sessions in flight are stored

            nursery.start_soon(ladder)
            nursery.start_soon(_stop_on_signals, service, nursery.cancel_scope)
            async with trio.lowlevel.FdStream(os.dup(sys.stdin.fileno())) as stdin:
                while data := await stdin.receive_some():
                    if _STOP in data:
                        service.stop()
                    else:
                        service.notify()
            nursery.cancel_scope.cancel()
    finally:
        service.store.close()


async def _stop_on_signals(service: Service, scope: trio.CancelScope) -> None:
    # Ctrl-C reaches the whole process group, this child too: it stops as serve does, not with a traceback.
    # Its own second signal stops it at once; serve's `_STOP`, sent for the same Ctrl-C, may come first.
    with trio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
        received = 0
        async for _ in signals:
            received += 1
            if received > 1:
                scope.cancel()
            service.stop()
