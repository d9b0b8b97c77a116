"""Bot processes: launched in their own process group, logged with a cap, stopped without orphans.

Theory of operation: the bot is spawned from the trio thread itself (not a worker thread) because
the kernel's parent-death signal fires when the *thread* that forked exits; set that way, a bot
gets SIGKILL even when the arena is killed with SIGKILL (armed by `setpriv --pdeathsig`). Each bot
leads its own process group, so stopping it (SIGTERM, a grace period, then SIGKILL) reaches
everything it forked that stayed in the group; under isolation `limits` and `sandbox` the bot's
control group then reaches the rest (see `_sandbox`). Its stdout and
stderr are drained by tasks that write at most `log_bytes` of each to its log files and discard
the rest, so a flooding bot cannot fill the disk. Each stream is read at most `_OUTPUT_RATE` bytes
a second on average, in reads of up to `_READ` bytes from a pipe made that large: reading costs
the arena CPU outside the bot's control group, so a bot that writes faster waits on its own full
pipe instead, and pays for its output itself. Once the bot is
stopped, draining ends after `_DRAIN_GRACE` even if the pipes are still open: a child that left the
bot's process group (setsid) may hold them open for ever, and must not keep the session waiting.
"""

from __future__ import annotations

import ctypes
import enum
import fcntl
import logging
import os
import shlex
import signal
import socket
import stat
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import trio

from ..storage import DiskFullError, is_disk_full
from ._fairness import CpuWatch
from ._sandbox import (
    Cgroup,
    Isolation,
    ProcessLimits,
    SandboxError,
    UidLease,
    confinement_problem,
    copy_commands,
    mount_copies_folder,
    mount_socket_folder,
    remove_copies,
    rlimit_options,
    sandbox_argv,
    unmount,
)
from ._seccomp import filter_fd

LOGGER = logging.getLogger(__name__)

# Seconds the output is still read after the bot was stopped, to keep what it wrote last.
_DRAIN_GRACE = 0.5
_STOP_STRETCH = 10
"""A stopping bot waits at most this many grace periods, however long it was kept from the CPU."""
_STOP_STEP = 0.005
"""Less time given back than this is not worth another wait."""
_KINDS = ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISREG, "a file"), (stat.S_ISDIR, "a folder"),
          (stat.S_ISFIFO, "a pipe"), (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device"))
# Bytes a second of each of stdout and stderr the arena reads, on average, and the burst it reads at once.
_OUTPUT_RATE = 16 << 20
_OUTPUT_BURST = 16 << 20
# Bytes per read, and the size asked for the pipes (a flood then costs ~16 reads a second).
_READ = 1 << 20
# Seconds between looks at whether a bot that has made no socket yet has exited meanwhile.
_EXIT_POLL = 0.05
# Seconds between looks for the socket where the folder cannot be watched (no inotify instance left).
_SOCKET_POLL = 0.01
_LIBC = ctypes.CDLL(None, use_errno=True)
_IN_MOVED_TO, _IN_CREATE = 0x80, 0x100


class _FolderWatch:
    """inotify on one folder: its file descriptor becomes readable when an entry appears in it, so
    the arena learns of a bot's socket the moment the bot binds it, instead of at its next poll."""

    def __init__(self, fd: int) -> None:
        self._fd = fd

    @classmethod
    def open(cls, folder: Path) -> _FolderWatch | None:
        """A watch on `folder`, or None where inotify is not available (the per-user limit of
        instances reached, say): the caller polls instead."""
        fd = _LIBC.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if fd < 0:
            return None
        if _LIBC.inotify_add_watch(fd, os.fsencode(folder), _IN_CREATE | _IN_MOVED_TO) < 0:
            os.close(fd)
            return None
        return cls(fd)

    async def wait(self, seconds: float) -> None:
        """Return once something appeared in the folder since the last wait, or after `seconds`."""
        with trio.move_on_after(seconds):
            await trio.lowlevel.wait_readable(self._fd)
        try:
            while os.read(self._fd, 4096):  # the events themselves say nothing the caller needs
                pass
        except BlockingIOError:
            pass

    def close(self) -> None:
        trio.lowlevel.notify_closing(self._fd)
        # Closing an inotify instance waits for the kernel to retire its watches (an RCU grace
        # period: 5-30 ms measured here), which would delay the bot's first health check: a thread
        # of its own waits instead.
        threading.Thread(target=os.close, args=(self._fd,), name="seka-arena inotify close", daemon=True).start()


def _write_log(log: BinaryIO, data: bytes, path: Path) -> None:
    # A full disk stops the run with the one line that says so, like any other write of the arena's.
    try:
        log.write(data)
    except OSError as error:
        if is_disk_full(error):
            raise DiskFullError(path.parent, f"writing {path.name}") from error
        raise


def launch_prefix(limits: ProcessLimits, *, cgroup: Cgroup | None = None,
                  copies: Sequence[tuple[Path, Path]] = ()) -> list[str]:
    """The command words that arm the parent-death signal, join the control group, set the limits, then exec.

    With `copies` (under `sandbox`), the bot's folders are copied once it is in its control group,
    which is charged for the copies' pages.

    util-linux's `setpriv` and `prlimit` (and `sh` for joining the group) do in the child what a
    `preexec_fn` would, so the arena never forks its own (multi-threaded, gRPC-running)
    interpreter: subprocess can use vfork. With a control group, memory is limited there, not as
    address space.

    >>> launch_prefix(ProcessLimits(cpu_seconds=5, open_files=64))
    ['setpriv', '--pdeathsig', 'KILL', '--', 'prlimit', '--cpu=5:6', '--nofile=64:64', '--']
    """
    prefix = ["setpriv", "--pdeathsig", "KILL", "--"]
    if cgroup is not None:
        steps = [f"echo $$ > {shlex.quote(str(path))}" for path in cgroup.procs_files] + copy_commands(copies)
        prefix += ["/bin/sh", "-c", f'{" && ".join(steps)} && exec "$@"', "sh"]
    rlimits = rlimit_options(limits, address_space=cgroup is None)
    if rlimits:
        prefix += ["prlimit", *rlimits, "--"]
    return prefix


def describe_exit(returncode: int, *, sandboxed: bool = False) -> str:
    """`exit status 3` or `killed by SIGKILL`; `sandboxed`: bubblewrap reports a signal as 128 + its number.

    >>> describe_exit(-9), describe_exit(137, sandboxed=True)
    ('killed by SIGKILL', 'killed by SIGKILL (exit status 137 from the sandbox)')
    """
    if sandboxed and 128 < returncode <= 128 + 64:
        return f"{describe_exit(128 - returncode)} (exit status {returncode} from the sandbox)"
    if returncode < 0:
        try:
            return f"killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"killed by signal {-returncode}"
    return f"exit status {returncode}"


def _descendants(pid: int) -> list[int]:
    """The processes `pid` started, theirs, and so on (from /proc/PID/task/TID/children: a few small
    reads, where scanning all of /proc for a process group's members took 4 ms for 135 processes)."""
    found: list[int] = []
    parents = [pid]
    while parents:
        parent = parents.pop()
        try:
            tasks = os.listdir(f"/proc/{parent}/task")
        except OSError:  # ended meanwhile
            continue
        for task in tasks:
            try:
                with open(f"/proc/{parent}/task/{task}/children", "rb") as children:
                    started = [int(child) for child in children.read().split()]
            except OSError:
                continue
            found += started
            parents += started
    return found


class _StderrExcerpt:
    """The first and the last bytes of a bot's stderr, for a fault to quote: a crash's cause is often
    at the top (a Go panic, a Java exception's first line) and what the bot did last at the bottom."""

    _HEAD = 4096
    _TAIL = 4096

    def __init__(self) -> None:
        self._head = bytearray()
        self._tail = bytearray()
        self._skipped = 0  # bytes between the head and the tail, not kept

    def add(self, chunk: bytes) -> None:
        room = self._HEAD - len(self._head)
        if room > 0:
            self._head += chunk[:room]
            chunk = chunk[room:]
        self._tail += chunk
        if (over := len(self._tail) - self._TAIL) > 0:
            del self._tail[:over]
            self._skipped += over

    def text(self, lines: int) -> str:
        """All of it when it is at most 2 x `lines` lines, else the first and the last `lines`."""
        if not self._skipped:
            every = bytes(self._head + self._tail).decode("utf-8", "replace").splitlines()
            if len(every) <= 2 * lines:
                return "\n".join(every)
            first, last, gap = every[:lines], every[-lines:], f"{len(every) - 2 * lines} lines"
        else:
            first = bytes(self._head).decode("utf-8", "replace").splitlines()[:lines]
            last = bytes(self._tail).decode("utf-8", "replace").splitlines()[-lines:]
            gap = f"{self._skipped:,} bytes and more"
        return "\n".join([*first, f"[... {gap} left out: the whole is in the bot's stderr log ...]", *last])


class _CappedLog:
    """One log file of a bot's stream: the first `cap` bytes kept, the rest counted and dropped."""

    def __init__(self, path: Path, cap: int, *, append: bool = False) -> None:
        # Unbuffered: the log is up to date while the session runs (`tail -f` works), and a killed
        # arena loses none of what the bot wrote.
        self._file = open(path, "ab" if append else "wb", buffering=0)  # noqa: SIM115  # closed in close()
        self._path = path
        self._cap = cap
        self._kept = self._dropped = 0

    def write(self, chunk: bytes) -> None:
        room = max(0, self._cap - self._kept)
        if room:
            _write_log(self._file, chunk[:room], self._path)
        self._kept += min(room, len(chunk))
        self._dropped += len(chunk) - min(room, len(chunk))

    def close(self) -> int:
        """Close the file, noting in it what was dropped; the bytes dropped."""
        try:
            if self._dropped:
                self._file.write(f"\n[seka-arena: {self._dropped} bytes past the {self._cap}-byte cap "
                                 "dropped]\n".encode())
        except OSError as error:
            if not is_disk_full(error):  # a full disk has been said already, or will be by the next write
                raise
        finally:
            self._file.close()
        return self._dropped


class Stopping(enum.Enum):
    """How a bot ended when the arena stopped it."""

    ON_SIGTERM = "on SIGTERM"
    """It exited within the grace period after SIGTERM, as the launch contract asks."""
    KILLED_AFTER_GRACE = "killed after the grace period"
    """Still running when the grace period was over: SIGKILL ended it."""
    ENDED_BEFORE = "ended before"
    """It had already exited (or been killed by a limit) before the arena stopped it."""


@dataclass(frozen=True)
class Stopped:
    """How `BotProcess.stop` ended a bot, with the details in words."""

    how: Stopping
    detail: str
    """`ended 120 ms after SIGTERM (exit status 0)`, `still running 1 s after SIGTERM: killed by SIGKILL`, ..."""


class BotProcess:
    """A launched bot. Create it with `BotProcess.launch` inside a nursery that drains its output."""

    def __init__(self, popen: subprocess.Popen[bytes], log_dir: Path, name: str, limits: ProcessLimits, *,
                 isolation: Isolation = Isolation.NONE, cgroup: Cgroup | None = None,
                 uid: UidLease | None = None, socket_folder: Path | None = None, copies_folder: Path | None = None,
                 launched_at: float | None = None) -> None:
        self._popen = popen
        self.spawned_at = time.monotonic()
        """time.monotonic() once the bot's process was started (the arena's set-up done)."""
        self.launched_at = self.spawned_at if launched_at is None else launched_at
        """time.monotonic() as the arena began to launch the bot (its control group, sandbox and
        process to set up): its launch-to-ready time runs from here."""
        self.socket_seen: float | None = None
        """time.monotonic() when the arena first saw the bot's socket (`wait_for_socket`)."""
        self.refused_at: float | None = None
        """time.monotonic() when a connection to the bot's socket was last refused (`wait_listening`):
        it was bound, not yet listening."""
        self.pid = popen.pid
        self.name = name
        self.limits = limits
        """The limits in force (`ProcessLimits.effective` at the bot's isolation level)."""
        self.isolation = isolation
        self.cgroup = cgroup
        """The bot's control group (None under isolation `none`), removed once the bot is stopped."""
        self.uid = uid
        """The uid of a sandboxed bot, its own while it runs, given back once it is stopped."""
        self.socket_folder = socket_folder
        self.copies_folder = copies_folder
        """Where the sandboxed bot's copies of its folders are, removed once it is stopped."""
        """A sandboxed bot's socket folder, a file system in memory, detached once it is stopped."""
        self.stdout_log = log_dir / f"{name}.stdout.log"
        self.stderr_log = log_dir / f"{name}.stderr.log"
        self._logs_changed = 0  # counts `log_to` calls: the drain tasks switch files when it moves
        self._stderr = _StderrExcerpt()
        self.dropped_bytes = 0
        """Output past the log cap, counted but not kept."""
        self._pidfd = os.pidfd_open(popen.pid)
        self.cpu = CpuWatch(popen.pid, threads_file=cgroup.threads_file if cgroup is not None else None,
                            cpus=cgroup.cpu_quota if cgroup is not None else None)
        """The bot's threads' CPU time and waits for the CPU (see `_fairness`)."""
        self._draining = trio.CancelScope()
        self.stderr_closed = trio.Event()
        """Set once everything the bot wrote to stderr has been read (or reading was given up)."""
        self.stopped: Stopped | None = None
        """How `stop` ended the bot (None until it is stopped), for check-bot's report."""

    @classmethod
    def launch(cls, argv: Sequence[str], *, name: str, log_dir: Path, cwd: str | None = None,
               env: Mapping[str, str] | None = None, limits: ProcessLimits = ProcessLimits(),
               isolation: Isolation = Isolation.NONE, writable: Path | None = None,
               private: Sequence[Path] = (), confined: bool = False) -> BotProcess:
        """Start the bot from the calling (trio) thread; see the module docstring for why.

        Under `sandbox`, the bot runs as a uid of its own (see `UidLease`), `writable` is its socket
        folder (required; a small file system in memory of that uid is mounted there), `env` its
        whole environment (see `sandbox_env`), and a command that would show it any part of a
        `private` path (or of `log_dir`) is refused. A `confined` bot (a stranger's) is shown only
        `cwd` and the runtime, and a command naming anything outside `cwd` is refused at every level.

        Raises:
            SandboxError: the machine cannot provide `isolation`, the sandbox cannot be built, or
                a confined bot's command reaches outside its folder.
        """
        if confined and (problem := confinement_problem(argv, folder=Path(cwd or os.getcwd()))) is not None:
            raise SandboxError(f"bot {name!r}: {problem}")
        launched_at = time.monotonic()
        log_dir.mkdir(parents=True, exist_ok=True)
        limits = limits.effective(isolation)
        command = list(argv)
        seccomp_fd = filter_fd() if isolation is Isolation.SANDBOX else None
        uid = None
        cgroup = None
        socket_folder = None
        copies_folder = None
        copies: list[tuple[Path, Path]] = []
        try:
            if isolation is Isolation.SANDBOX:
                assert writable is not None, "a sandboxed bot needs its socket folder"
                uid = UidLease.take()
                mount_socket_folder(writable, uid.uid)  # where the bot creates its socket
                socket_folder = writable
                try:
                    sandboxed = sandbox_argv(argv, uid=uid.uid, cwd=Path(cwd or os.getcwd()), env=env or {},
                                             writable=writable, private=[log_dir, *private], seccomp_fd=seccomp_fd,
                                             confined=confined, copies=writable.with_name(f"{writable.name}.copies"))
                except SandboxError as error:
                    raise SandboxError(f"bot {name!r}: {error}") from None
                command, copies = sandboxed.argv, sandboxed.copies
                if copies:
                    mount_copies_folder(copies[0][1].parent, limits)
                    copies_folder = copies[0][1].parent
            cgroup = Cgroup.create(name, limits) if isolation is not Isolation.NONE else None
            popen = subprocess.Popen(
                [*launch_prefix(limits, cgroup=cgroup, copies=copies), *command], cwd=cwd,
                env=dict(env) if env is not None else None, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, start_new_session=True, pass_fds=() if seccomp_fd is None else (seccomp_fd,),
            )
        except BaseException:
            if cgroup is not None:
                cgroup.discard()
            if socket_folder is not None:
                unmount(socket_folder)
            if copies_folder is not None:
                remove_copies(copies_folder)
            if uid is not None:
                uid.release()
            raise
        finally:
            if seccomp_fd is not None:
                os.close(seccomp_fd)
        LOGGER.debug("launched %s as pid %d (isolation %s): %s", name, popen.pid, isolation.value, command)
        return cls(popen, log_dir, name, limits, isolation=isolation, cgroup=cgroup, uid=uid,
                   socket_folder=socket_folder, copies_folder=copies_folder, launched_at=launched_at)

    def memory_peak(self) -> int | None:
        """The most memory the bot has held at once since it was launched, in bytes: its control
        group's peak under `limits` and `sandbox`; under `none`, the sum of the peak resident sizes
        (VmHWM) of its live processes, as its `CpuWatch` last walked them (at most a second ago: a walk
        reads a file per thread, ~85 us for a grpcio bot, and this is read at every session's end).
        None when it cannot be read (the bot is gone)."""
        if self.cgroup is not None:
            return self.cgroup.memory_peak()
        peak = None
        for pid in self.cpu.processes():
            try:
                status = Path(f"/proc/{pid}/status").read_bytes()
            except OSError:
                continue
            for line in status.splitlines():
                if line.startswith(b"VmHWM:"):  # `VmHWM:    1234 kB`
                    peak = (peak or 0) + int(line.split()[1]) * 1024
        return peak

    def exit_description(self) -> str:
        """How the bot ended (`killed by SIGKILL`, `exit status 1`) and any limit it ran into."""
        returncode = self.returncode
        if returncode is None:
            return "still running"
        text = describe_exit(returncode, sandboxed=self.isolation is Isolation.SANDBOX)
        notes = self.cgroup.limit_notes() if self.cgroup is not None else []
        if returncode in (-signal.SIGXCPU, 128 + signal.SIGXCPU) and self.limits.cpu_seconds is not None:
            notes.append(f"CPU time limit of {self.limits.cpu_seconds} s")
        return f"{text}; {', '.join(notes)}" if notes else text

    @property
    def returncode(self) -> int | None:
        return self._popen.poll()

    def stderr_excerpt(self, lines: int = 8) -> str:
        """The first and the last `lines` lines the bot wrote to stderr since it started, or since the
        last `quote_stderr_from_here` (kept even past the log cap)."""
        return self._stderr.text(lines)

    def quote_stderr_from_here(self) -> None:
        """Let `stderr_excerpt` start here (a call to the bot begins): a crash in the call then shows
        what the bot wrote during it, a Go panic's first line among the first lines, not the log
        lines of the calls before."""
        self._stderr = _StderrExcerpt()

    def log_to(self, log_dir: Path) -> None:
        """Write the bot's output from now on to log files in `log_dir` (a warm process's next
        session), each again up to the cap; the stderr lines a fault quotes start afresh too."""
        log_dir.mkdir(parents=True, exist_ok=True)
        self.stdout_log = log_dir / f"{self.name}.stdout.log"
        self.stderr_log = log_dir / f"{self.name}.stderr.log"
        for path in (self.stdout_log, self.stderr_log):
            path.write_bytes(b"")
        self._logs_changed += 1
        self._stderr = _StderrExcerpt()

    async def drain_output(self) -> None:
        """Copy stdout and stderr to the capped logs until both close; run it in the bot's nursery."""
        assert self._popen.stdout is not None and self._popen.stderr is not None
        with self._draining:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._drain, self._popen.stdout.fileno(), False)
                nursery.start_soon(self._drain, self._popen.stderr.fileno(), True)

    async def _drain(self, fd: int, keep_tail: bool) -> None:
        budget, then = float(_OUTPUT_BURST), time.monotonic()
        try:
            fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, _READ)
        except OSError:  # above /proc/sys/fs/pipe-max-size: the pipe keeps its size
            pass
        stream = trio.lowlevel.FdStream(os.dup(fd))
        async with stream:
            log = _CappedLog(self.stderr_log if keep_tail else self.stdout_log, self.limits.log_bytes)
            changed = self._logs_changed
            try:
                while chunk := await stream.receive_some(_READ):
                    if changed != self._logs_changed:  # a warm process's next session: its own files
                        self.dropped_bytes += log.close()
                        log = _CappedLog(self.stderr_log if keep_tail else self.stdout_log, self.limits.log_bytes,
                                         append=True)
                        changed = self._logs_changed
                    log.write(chunk)
                    if keep_tail:
                        self._stderr.add(chunk)
                    now = time.monotonic()
                    budget = min(_OUTPUT_BURST, budget + (now - then) * _OUTPUT_RATE) - len(chunk)
                    then = now
                    if budget < 0:
                        await trio.sleep(-budget / _OUTPUT_RATE)
            finally:  # also when draining is cut short after a stop
                self.dropped_bytes += log.close()
                if keep_tail:
                    self.stderr_closed.set()

    async def wait(self) -> int:
        """Wait for the bot to exit; its exit status (negative: the signal that killed it)."""
        await trio.lowlevel.wait_readable(self._pidfd)
        return self._popen.wait()

    async def wait_for_socket(self, path: Path) -> str | None:
        """Wait until `path` exists or the bot has exited: None if it is a socket (or never came),
        else what it is instead, which the arena refuses to connect to.

        The folder is watched (inotify), so the wait ends as the bot creates the socket: connecting
        before it exists would put the channel into gRPC's reconnect backoff, and polling would add
        up to a poll's interval; either is waiting of the arena's own, charged to the bot's start.
        `lstat`, not `stat`: a symbolic link in the bot's folder would be followed on the host, to
        any socket it names.
        """
        watch = _FolderWatch.open(path.parent)
        try:
            while self.returncode is None:
                try:
                    info = os.lstat(path)
                except FileNotFoundError:
                    if watch is not None:
                        await watch.wait(_EXIT_POLL)
                    else:
                        await trio.sleep(_SOCKET_POLL)
                    continue
                if self.socket_seen is None:
                    self.socket_seen = time.monotonic()
                if stat.S_ISSOCK(info.st_mode):
                    return None
                kind = next((name for test, name in _KINDS if test(info.st_mode)), "not a file")
                return f"{path.name} is {kind}, not a socket"
            return None
        finally:
            if watch is not None:
                watch.close()

    async def wait_listening(self, path: Path) -> None:
        """Wait until the socket at `path` accepts connections (or the bot has exited).

        A server binds its socket (which makes it appear) a moment before it listens; a gRPC
        connection made in between is refused, and the channel then waits out its reconnect
        backoff (50 ms and more) before trying again: waiting of the arena's own. A plain connect,
        closed at once, tells without it: every millisecond for the first 50 ms, then less often.
        """
        tries = 0
        while self.returncode is None:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_NONBLOCK) as probe:
                try:
                    probe.connect(os.fspath(path))
                    return
                except BlockingIOError:  # listening, its backlog full for now
                    return
                except OSError:  # refused: bound, not listening yet (or gone: the health check will say)
                    self.refused_at = time.monotonic()
            tries += 1
            await trio.sleep(0.001 if tries < 50 else _SOCKET_POLL)

    def kill_group(self, sig: int = signal.SIGKILL) -> None:
        """Signal the bot's whole process group (everything it forked that did not leave it)."""
        try:
            os.killpg(self.pid, sig)
        except ProcessLookupError:
            pass

    def _ask_to_stop(self) -> None:
        """SIGTERM to the bot's process group; in the sandbox to all of it but bubblewrap, its leader.

        bubblewrap neither handles nor forwards SIGTERM: it would die of it at once, its
        `--die-with-parent` would SIGKILL the bot, and the exit status seen would be bubblewrap's
        "killed by SIGTERM" whatever the bot did. Spared, it waits for the bot and exits with its
        status. (bubblewrap's init, pid 1 of the bot's pid namespace, gets no signal it has no
        handler for.)
        """
        if self.isolation is not Isolation.SANDBOX:
            self.kill_group(signal.SIGTERM)
            return
        for pid in _descendants(self.pid):
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass

    async def stop(self, *, grace: float = 1.0) -> int:
        """SIGTERM the group, wait `grace` seconds (and the time others kept it from the CPU meanwhile), then
        SIGKILL it; always reaps the bot.

        With a control group, everything still in it is then killed and the group removed.
        Reading its output stops a moment later, even if a child that escaped the group still
        holds the pipes open.
        """
        if self.cgroup is not None:  # a waiting bot's small CPU weight would slow its dying too
            self.cgroup.set_waiting(False)
        if self.returncode is None:
            mark = self.cpu.mark()
            self._ask_to_stop()
            asked = trio.current_time()
            deadline = asked + grace
            while True:
                with trio.move_on_at(deadline):
                    await self.wait()
                # The time others kept it from the CPU meanwhile is given back, as a decision's is (up to
                # `_STOP_STRETCH` graces): on a loaded machine a bot that stops promptly may not get to run.
                stretched = asked + min(grace + self.cpu.kept_since(mark), grace * _STOP_STRETCH)
                if self.returncode is not None or stretched <= trio.current_time() + _STOP_STEP:
                    break
                deadline = stretched
            if self.returncode is None:
                waited = trio.current_time() - asked
                self.stopped = Stopped(Stopping.KILLED_AFTER_GRACE, (
                    f"still running {grace:g} s after SIGTERM: killed by SIGKILL" if waited < grace + _STOP_STEP
                    else f"still running {waited:.1f} s after SIGTERM ({grace:g} s and the time it was kept from the "
                         "CPU): killed by SIGKILL"))
            else:
                self.stopped = Stopped(Stopping.ON_SIGTERM, f"ended {(trio.current_time() - asked) * 1000:.0f} ms "
                                                            f"after SIGTERM ({self.exit_description()})")
        else:
            self.stopped = Stopped(Stopping.ENDED_BEFORE,
                                   f"had ended before it was stopped ({self.exit_description()})")
        self.kill_group(signal.SIGKILL)  # also reaches children that outlived a bot which did exit
        with trio.CancelScope(shield=True):
            returncode = await self.wait()
            if self.cgroup is not None:  # and whatever left the group, under `limits` and `sandbox`
                await self.cgroup.close()
            if not (self.cgroup is not None and self.cgroup.pids()):  # kept while a process of the bot may live
                if self.socket_folder is not None:
                    unmount(self.socket_folder)
                if self.copies_folder is not None:
                    remove_copies(self.copies_folder)
                if self.uid is not None:
                    self.uid.release()
        self._draining.deadline = min(self._draining.deadline, trio.current_time() + _DRAIN_GRACE)
        os.close(self._pidfd)
        self.cpu.close()
        for pipe in (self._popen.stdout, self._popen.stderr):
            if pipe is not None:
                pipe.close()
        return returncode
