"""Bot processes: launched in their own process group, logged with a cap, stopped without orphans.

Theory of operation: the bot is spawned from the trio thread itself (not a worker thread) because
the kernel's parent-death signal fires when the *thread* that forked exits; set that way, a bot
gets SIGKILL even when the arena is killed with SIGKILL (armed by `setpriv --pdeathsig`). Each bot leads its own process group, so
stopping it (SIGTERM, a grace period, then SIGKILL) reaches everything it forked. Its stdout and
stderr are drained by tasks that write at most `log_bytes` of each to its log files and discard
the rest, so a flooding bot can neither fill the disk nor block on a full pipe. Once the bot is
stopped, draining ends after `_DRAIN_GRACE` even if the pipes are still open: a child that left the
bot's process group (setsid) may hold them open for ever, and must not keep the session waiting.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import trio

LOGGER = logging.getLogger(__name__)

# Seconds the output is still read after the bot was stopped, to keep what it wrote last.
_DRAIN_GRACE = 0.5


@dataclass(frozen=True)
class ProcessLimits:
    """Operating-system limits applied to a launched bot."""

    cpu_seconds: int | None = None
    """CPU time for the whole process (RLIMIT_CPU); the kernel kills it past that."""
    memory_mb: int | None = None
    """Address space (RLIMIT_AS) in MiB."""
    open_files: int | None = None
    """Open file descriptors (RLIMIT_NOFILE)."""
    log_bytes: int = 1_000_000
    """Bytes of stdout and of stderr kept in the bot's log files; the rest is counted and dropped."""


def launch_prefix(limits: ProcessLimits) -> list[str]:
    """The command words that arm the parent-death signal and the limits, then exec the bot.

    util-linux's `setpriv` and `prlimit` do in the child what a `preexec_fn` would, so the arena
    never forks its own (multi-threaded, gRPC-running) interpreter: subprocess can use vfork.

    >>> launch_prefix(ProcessLimits(cpu_seconds=5, open_files=64))
    ['setpriv', '--pdeathsig', 'KILL', '--', 'prlimit', '--cpu=5:6', '--nofile=64:64', '--']
    """
    prefix = ["setpriv", "--pdeathsig", "KILL", "--"]
    rlimits = []
    if limits.cpu_seconds is not None:
        rlimits.append(f"--cpu={limits.cpu_seconds}:{limits.cpu_seconds + 1}")
    if limits.memory_mb is not None:
        size = limits.memory_mb * 1024 * 1024
        rlimits.append(f"--as={size}:{size}")
    if limits.open_files is not None:
        rlimits.append(f"--nofile={limits.open_files}:{limits.open_files}")
    if rlimits:
        prefix += ["prlimit", *rlimits, "--"]
    return prefix


def describe_exit(returncode: int) -> str:
    """`exit status 3` or `killed by SIGKILL`."""
    if returncode < 0:
        try:
            return f"killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"killed by signal {-returncode}"
    return f"exit status {returncode}"


class BotProcess:
    """A launched bot. Create it with `BotProcess.launch` inside a nursery that drains its output."""

    def __init__(self, popen: subprocess.Popen[bytes], log_dir: Path, name: str, limits: ProcessLimits) -> None:
        self._popen = popen
        self.pid = popen.pid
        self.name = name
        self.limits = limits
        self.stdout_log = log_dir / f"{name}.stdout.log"
        self.stderr_log = log_dir / f"{name}.stderr.log"
        self._stderr_tail: deque[bytes] = deque(maxlen=20)
        self.dropped_bytes = 0
        """Output past the log cap, counted but not kept."""
        self._pidfd = os.pidfd_open(popen.pid)
        self._draining = trio.CancelScope()

    @classmethod
    def launch(cls, argv: Sequence[str], *, name: str, log_dir: Path, cwd: str | None = None,
               env: Mapping[str, str] | None = None, limits: ProcessLimits = ProcessLimits()) -> BotProcess:
        """Start the bot from the calling (trio) thread; see the module docstring for why."""
        log_dir.mkdir(parents=True, exist_ok=True)
        popen = subprocess.Popen(
            [*launch_prefix(limits), *argv], cwd=cwd, env=dict(env) if env is not None else None,
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
        )
        LOGGER.debug("launched %s as pid %d: %s", name, popen.pid, argv)
        return cls(popen, log_dir, name, limits)

    @property
    def returncode(self) -> int | None:
        return self._popen.poll()

    def stderr_tail(self, lines: int = 5) -> str:
        """The last lines the bot wrote to stderr (kept even past the log cap)."""
        text = b"".join(self._stderr_tail).decode("utf-8", "replace")
        return "\n".join(text.splitlines()[-lines:])

    async def drain_output(self) -> None:
        """Copy stdout and stderr to the capped logs until both close; run it in the bot's nursery."""
        assert self._popen.stdout is not None and self._popen.stderr is not None
        with self._draining:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._drain, self._popen.stdout.fileno(), self.stdout_log, False)
                nursery.start_soon(self._drain, self._popen.stderr.fileno(), self.stderr_log, True)

    async def _drain(self, fd: int, path: Path, keep_tail: bool) -> None:
        kept = dropped = 0
        stream = trio.lowlevel.FdStream(os.dup(fd))
        async with stream:
            with open(path, "wb") as log:
                try:
                    while chunk := await stream.receive_some(65536):
                        room = max(0, self.limits.log_bytes - kept)
                        log.write(chunk[:room])
                        kept += min(room, len(chunk))
                        dropped += len(chunk) - min(room, len(chunk))
                        if keep_tail:
                            self._stderr_tail.append(chunk[-2048:])
                finally:  # also when draining is cut short after a stop
                    if dropped:
                        log.write(f"\n[seka-arena: {dropped} bytes past the {self.limits.log_bytes}-byte cap "
                                  "dropped]\n".encode())
                    self.dropped_bytes += dropped

    async def wait(self) -> int:
        """Wait for the bot to exit; its exit status (negative: the signal that killed it)."""
        await trio.lowlevel.wait_readable(self._pidfd)
        return self._popen.wait()

    def kill_group(self, sig: int = signal.SIGKILL) -> None:
        """Signal the bot's whole process group (everything it forked that did not leave it)."""
        try:
            os.killpg(self.pid, sig)
        except ProcessLookupError:
            pass

    async def stop(self, *, grace: float = 1.0) -> int:
        """SIGTERM the group, wait `grace` seconds, then SIGKILL it; always reaps the bot.

        Reading its output stops a moment later, even if a child that escaped the group still
        holds the pipes open.
        """
        if self.returncode is None:
            self.kill_group(signal.SIGTERM)
            with trio.move_on_after(grace):
                await self.wait()
        self.kill_group(signal.SIGKILL)  # also reaches children that outlived a bot which did exit
        with trio.CancelScope(shield=True):
            returncode = await self.wait()
        self._draining.deadline = min(self._draining.deadline, trio.current_time() + _DRAIN_GRACE)
        os.close(self._pidfd)
        for pipe in (self._popen.stdout, self._popen.stderr):
            if pipe is not None:
                pipe.close()
        return returncode
