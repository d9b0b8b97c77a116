"""A worker process the service asks one line at a time: the leaderboard's fits and the collusion reports run
in one each, so their CPU and memory never stall the web or the ladder (and a worker's memory cap is its own)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import trio

from ..storage import StorageError

_LINE_BYTES = 64 << 20
"""An answer longer than this is refused: a worker's line is read into memory whole."""


class LineWorker:
    """`python -m MODULE STORE`, answering each line written to its stdin with one line on its stdout; started
    when first asked, and again after it ended or was stopped (`aclose`: a worker stopped half-way through an
    answer is never asked again)."""

    def __init__(self, module: str, store: Path, *, what: str, env: Mapping[str, str], ended: str = "") -> None:
        self.command = [sys.executable, "-m", module, str(store)]
        self.what = what
        """Whose worker it is, for errors: `the leaderboard`."""
        self.env = dict(env)
        self.ended = ended
        """Said after the exit status of a worker that ended: `; its memory is capped at 2048 MiB`."""
        self._process: trio.Process | None = None
        self._pending = b""

    async def ask(self, request: bytes) -> bytes:
        """The worker's answer to one line (`request`, without its newline).

        Raises:
            StorageError: the worker ended, or its answer is too long.
            OSError: it could not be started or written to.
        """
        process = await self._started()
        assert process.stdin is not None and process.stdout is not None
        await process.stdin.send_all(request + b"\n")
        while b"\n" not in self._pending:
            data = await process.stdout.receive_some()
            if not data:
                raise StorageError(f"{self.what}'s worker process ended (exit status {await process.wait()}"
                                   f"{self.ended})")
            self._pending += data
            if len(self._pending) > _LINE_BYTES:
                raise StorageError(f"{self.what}'s worker process sent an answer over {_LINE_BYTES >> 20} MiB")
        line, _, self._pending = self._pending.partition(b"\n")
        return line

    async def aclose(self) -> None:
        """Stop the worker, if one runs (the next question starts another)."""
        process, self._process, self._pending = self._process, None, b""
        if process is not None:
            process.kill()
            with trio.CancelScope(shield=True), trio.move_on_after(10):
                await process.wait()

    async def _started(self) -> trio.Process:
        if self._process is None or self._process.returncode is not None:
            # A session of its own: a terminal's Ctrl-C is the service's to handle (it stops its workers
            # itself), not a KeyboardInterrupt mid-answer; a worker whose service died ends at its stdin's end.
            self._process = await trio.lowlevel.open_process(self.command, stdin=subprocess.PIPE,
                                                             stdout=subprocess.PIPE, env=self.env,
                                                             start_new_session=True)
            self._pending = b""
        return self._process
