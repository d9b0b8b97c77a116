"""Whose time was it: how long a bot was kept from the CPU during a call, and how late the arena was.

Theory of operation: a bot is held to its time limit only for time it could use. Two measures
say how much of a call's time it could not:

- `CpuWatch`: the kernel counts, for every thread, the CPU time it ran and the time it spent
  runnable but waiting for a processor (`/proc/<pid>/task/<tid>/schedstat`; this includes the
  time its control group was throttled at its CPU quota). The watch reads both for every thread
  of the bot (its control group's threads, or under isolation `none` those of its process tree)
  when a call starts and again when the call runs late. The longest wait of any one thread (the
  one that was deciding, as a rule) is the time the bot was kept from the CPU, at most the CPU it
  could have had but did not get: its quota (or every CPU) over the call, less what all its
  threads ran. A bot that spent its whole quota was kept from nothing: throttling at its own
  quota, or threads of its own crowding each other within it, are its own doing.
- `ArenaLag`: grpcio's threads carry every request and reply; the time they waited for a CPU
  during the call (the longest wait of its event-engine threads, interval by interval, and the
  waits of the thread that takes in this bot's replies) is the arena's lateness on the call.
  The event loop's own lateness cannot make a bot late: the call's time starts once the request
  is handed to grpcio, and a reply is judged by when grpcio took it in (stamped in its thread),
  not by when the loop got round to it. The loop's lateness is measured all the same, for the
  warning that the machine is overloaded.

The sum, bounded by the limit's `grace`, extends the call's limit (see `BotConnection._call`).
Reads use file descriptors kept open (`pread` at offset 0 makes procfs render the file afresh), so
marking a call costs a few microseconds per thread of the bot.
"""

from __future__ import annotations

import errno
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import trio

_PROC = Path("/proc")
_CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
# Seconds between the lateness task's wake-ups: its resolution, at ~0.1 % of a core.
_LAG_STEP = 0.02
# Every this many wake-ups it reads the waits of grpcio's event-engine threads (a few reads).
_ENGINE_EVERY = 5
# Seconds after which a bot's process tree is walked again even if no thread count changed.
_TREE_AGE = 1.0
# The most schedstat files of the arena's own threads `ArenaLag.thread_wait` keeps open.
_THREAD_FDS = 64


def _pread(fd: int) -> bytes | None:
    try:
        return os.pread(fd, 4096, 0)
    except OSError as error:  # the thread or process is gone (ESRCH), or the file went away
        if error.errno in (errno.ESRCH, errno.ENOENT, errno.EBADF, errno.EINVAL):
            return None
        raise


def _open(path: str) -> int | None:
    try:
        return os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None


@dataclass(frozen=True)
class CpuMark:
    """The bot's threads' CPU time and run-queue waits at one moment, as read (parsed only when used:
    a call that ends in time never needs them)."""

    at: float
    """time.monotonic() when taken."""
    tids: tuple[int, ...]
    """The threads read."""
    texts: tuple[bytes | None, ...]
    """Each one's schedstat line (None: it was gone)."""
    clocks: tuple[tuple[int, int], ...] = ()
    """(pid, nanoseconds of CPU its threads have used, the ended ones' included) of each of the bot's
    processes read (`_process_clock`)."""

    @cached_property
    def threads(self) -> dict[int, tuple[int, int]]:
        """Nanoseconds each thread (by tid) has run, and waited for a CPU, since it started."""
        return _parsed(self.tids, self.texts)


def _process_clock(pid: int) -> int | None:
    """Nanoseconds of CPU the process `pid` has used, all its threads (those that ended included): its
    CPU-time clock (the `clock_getcpuclockid` encoding of Linux, `(~pid << 3) | CPUCLOCK_SCHED`), which any
    process may read; one system call, where listing and reading its threads takes one per thread.
    None when it is gone."""
    try:
        return time.clock_gettime_ns((~pid << 3) | 2)
    except OSError:
        return None


def _clocks(pids: Sequence[int]) -> tuple[tuple[int, int], ...]:
    return tuple((pid, used) for pid in pids if (used := _process_clock(pid)) is not None)


def _parsed(tids: Sequence[int], texts: Sequence[bytes | None]) -> dict[int, tuple[int, int]]:
    threads = {}
    for tid, text in zip(tids, texts, strict=True):
        if text:
            run, wait, _ = text.split(maxsplit=2)
            threads[tid] = (int(run), int(wait))
    return threads


class CpuWatch:
    """The threads of one bot, for `mark` and `kept_since`; `close` it when the bot is gone.

    Args:
        pid: the bot's process (the root of its process tree).
        threads_file: its control group's list of threads (`tasks` in cgroup v1, `cgroup.threads`
            in v2); None under isolation `none`, where the process tree is walked instead.
        cpus: its CPU quota in cores, None without one (it may use every CPU the arena may).
    """

    def __init__(self, pid: int, *, threads_file: Path | None = None, cpus: float | None = None) -> None:
        self.pid = pid
        self.cpus = cpus if cpus is not None else float(len(os.sched_getaffinity(0)))
        """The CPU the bot may use at most, in cores: its quota, or every CPU."""
        # The threads last listed, and each one's schedstat, open.
        self._tids: list[int] = []
        self._fds: list[int] = []
        self._threads_file = threads_file
        # The bot's processes: under isolation `none` those of the process tree as last walked (with its
        # threads, and when), under a control group those it listed when its threads last changed.
        self._processes: list[int] = []
        self._tree: list[int] = []
        self._walked = -_TREE_AGE

    def close(self) -> None:
        for fd in self._fds:
            os.close(fd)
        self._tids, self._fds = [], []

    def threads(self, *, fresh: bool = False) -> list[int]:
        """The tids of the bot's threads.

        Under isolation `none` the process tree is walked at most every `_TREE_AGE` seconds, or
        when `fresh`, and the threads of its processes listed in between: a process born since the
        walk is missed by a mark and counted from its start.
        """
        if self._threads_file is not None:
            # Opened afresh each time: cgroup v1 keeps serving an open `tasks` file the list it
            # made at its first read for as long as it is read again within a second.
            try:
                return [int(word) for word in self._threads_file.read_bytes().split()]
            except OSError:
                return []
        now = time.monotonic()
        if fresh or now - self._walked > _TREE_AGE:
            self._processes, self._tree = _tree(self.pid)
            self._walked = now
            return self._tree
        # Between walks, the threads of the processes last walked: one listing each (a bot is one
        # process as a rule), so a thread its gRPC server starts for a call is read from that call.
        tids: list[int] = []
        for pid in self._processes:
            try:
                tids.extend(int(entry) for entry in os.listdir(f"/proc/{pid}/task"))
            except OSError:
                pass
        return tids

    def mark(self) -> CpuMark:
        """The bot's counters now: taken as a call starts."""
        tids = self.threads()
        if tids != self._tids:
            self._reopen(tids)
        return CpuMark(time.monotonic(), tuple(self._tids), tuple([_pread(fd) for fd in self._fds]),
                       _clocks(self._processes))

    def kept_since(self, mark: CpuMark) -> float:
        """Seconds since `mark` that the bot was kept from the CPU by others (see the module docstring).

        The longest wait of any one of its threads, and at most the CPU it could have had but did
        not get (its quota, or every CPU, over the time since `mark`, less what all its threads
        ran): a bot that had its whole quota was kept from nothing. A thread born since `mark`
        counts from its start.
        """
        now, threads = time.monotonic(), self._read(self.threads(fresh=True))
        ran = longest = 0
        for tid, (run, wait) in threads.items():
            run_then, wait_then = mark.threads.get(tid, (0, 0))
            ran += run - run_then
            longest = max(longest, wait - wait_then)
        unused = self.cpus * (now - mark.at) - ran / 1e9
        return max(0.0, min(longest / 1e9, unused))

    def ran_since(self, mark: CpuMark) -> float:
        """CPU seconds the bot's processes used since `mark`: one clock read per process (a bot is one
        process as a rule), no listing of its threads. Every thread counts, one the bot's gRPC server
        started for the call (a bot's first calls run on new threads) and one that ended since alike.
        A process started since `mark` is not counted, nor one that ended since."""
        ran = 0
        for pid, then in mark.clocks:
            if (now := _process_clock(pid)) is not None:
                ran += now - then
        return max(0, ran) / 1e9

    def processes(self) -> list[int]:
        """The bot's processes: listed by its control group, or under isolation `none` those of the
        last walk of its process tree (at most `_TREE_AGE` old: one started since is not listed yet)."""
        if self._threads_file is not None:
            self._processes = self._group_processes()
        else:
            self.threads()
        return self._processes

    def cpu_seconds(self) -> float:
        """CPU time the bot's live processes have used, with that of the children they reaped.

        One read of each process's `stat` (a bot is one process as a rule), its processes listed
        by its control group, or under isolation `none` by the last walk of its process tree (at most
        `_TREE_AGE` old: a process started since, and still running, is not counted yet).
        """
        used = 0
        for pid in self.processes():
            try:
                with open(f"/proc/{pid}/stat", "rb") as stat:
                    fields = stat.read().rsplit(b")", 1)[1].split()
            except (OSError, IndexError):
                continue
            used += sum(int(value) for value in fields[11:15])  # utime stime cutime cstime
        return used / _CLOCK_TICKS

    def _read(self, tids: list[int]) -> dict[int, tuple[int, int]]:
        if tids != self._tids:  # the fast path reads the files it has open, no more
            self._reopen(tids)
        return _parsed(self._tids, [_pread(fd) for fd in self._fds])

    def _group_processes(self) -> list[int]:
        assert self._threads_file is not None
        try:
            return [int(word) for word in self._threads_file.with_name("cgroup.procs").read_bytes().split()]
        except OSError:
            return []

    def _reopen(self, tids: list[int]) -> None:
        """Open the schedstat files of `tids` (keeping those open already); under a control group, list
        its processes again too (the same threads are the same processes)."""
        if self._threads_file is not None:
            self._processes = self._group_processes()
        kept = dict(zip(self._tids, self._fds, strict=True))
        self._tids, self._fds = [], []
        for tid in tids:
            fd = kept.pop(tid, None)
            if fd is None:
                fd = _open(f"/proc/{tid}/task/{tid}/schedstat")
            if fd is not None:
                self._tids.append(tid)
                self._fds.append(fd)
        for fd in kept.values():
            os.close(fd)


def _tree(root: int) -> tuple[list[int], list[int]]:
    """The processes of the tree under `root` that still run (each thread's `children` file names
    the processes that thread started), and all their threads."""
    processes: list[int] = []
    threads: list[int] = []
    pending, seen = [root], set()
    while pending:
        pid = pending.pop()
        if pid in seen:
            continue
        seen.add(pid)
        try:
            tids = [int(entry) for entry in os.listdir(f"/proc/{pid}/task")]
        except OSError:
            continue
        processes.append(pid)
        threads.extend(tids)
        for tid in tids:
            try:
                with open(f"/proc/{pid}/task/{tid}/children", "rb") as children:
                    pending.extend(int(word) for word in children.read().split())
            except OSError:
                pass
    return processes, threads


class ArenaLag:
    """How late the arena itself is, over its run: its event loop waking late (reported, see
    `take_worst`), and grpcio's threads, which carry every request and reply, waiting for a CPU.

    Started once per trio run by `arena_lag()`. Its task wakes every `_LAG_STEP` to see how late
    the loop is, and every `_ENGINE_EVERY` steps reads the waits of grpcio's event-engine threads:
    each interval adds the longest wait of any one of them (a call's bytes pass through one at a
    time), at most the interval's length.
    """

    def __init__(self) -> None:
        self._loop = 0.0
        self._due: float | None = None
        self._worst = 0.0
        self._engine = 0.0
        self._read_at = time.monotonic()
        self._listed_at = -_TREE_AGE
        self._waits: dict[int, int] = {}
        self._fds: dict[int, int] = {}
        self._thread_fds: dict[int, int] = {}  # `thread_wait`'s schedstat files, by tid, kept open

    def loop_total(self) -> float:
        """Seconds the event loop has been late so far, its current delay included."""
        due = self._due
        return self._loop + (max(0.0, time.monotonic() - due) if due is not None else 0.0)

    def engine_total(self, *, fresh: bool = False) -> float:
        """Seconds grpcio's threads have been kept from the CPU so far (as above); `fresh`: up to
        now (a read per thread), not only up to the task's last reading."""
        if fresh:
            self._add_engine_waits()
        return self._engine

    def thread_wait(self, tid: int) -> int:
        """Nanoseconds the arena's thread `tid` has waited for a CPU since it started (0 once it is
        gone). Its file is kept open: grpcio's threads that take in replies live long, and a call
        reads one twice."""
        fd = self._thread_fds.get(tid)
        if fd is None:
            if len(self._thread_fds) >= _THREAD_FDS:  # threads come and go: start the cache afresh
                self._close_threads()
            if (fd := _open(f"/proc/self/task/{tid}/schedstat")) is None:
                return 0
            self._thread_fds[tid] = fd
        text = _pread(fd)
        if not text:
            os.close(self._thread_fds.pop(tid))
            return 0
        return int(text.split(maxsplit=2)[1])

    def take_worst(self) -> float:
        """The event loop's longest single delay since the last call (seconds), then start over."""
        worst, self._worst = self._worst, 0.0
        return worst

    async def run(self) -> None:
        steps = 0
        try:
            while True:
                self._due = time.monotonic() + _LAG_STEP
                await trio.sleep(_LAG_STEP)
                late = time.monotonic() - self._due
                self._due = None
                if late > 0:
                    self._loop += late
                    self._worst = max(self._worst, late)
                steps += 1
                if steps % _ENGINE_EVERY == 0:
                    self._add_engine_waits()
        finally:
            for fd in self._fds.values():
                os.close(fd)
            self._fds.clear()
            self._close_threads()

    def _close_threads(self) -> None:
        for fd in self._thread_fds.values():
            os.close(fd)
        self._thread_fds.clear()

    def _engine_threads(self) -> None:
        # grpcio names the threads of its event engine; their number changes now and then.
        now = time.monotonic()
        if now - self._listed_at < _TREE_AGE:
            return
        self._listed_at = now
        found = set()
        for entry in os.listdir("/proc/self/task"):
            try:
                with open(f"/proc/self/task/{entry}/comm", "rb") as comm:
                    if comm.read().strip() == b"event_engine":
                        found.add(int(entry))
            except OSError:
                continue
        for gone in self._fds.keys() - found:
            os.close(self._fds.pop(gone))
        for tid in found - self._fds.keys():
            if (fd := _open(f"/proc/self/task/{tid}/schedstat")) is not None:
                self._fds[tid] = fd

    def _add_engine_waits(self) -> None:
        self._engine_threads()
        now = time.monotonic()
        longest = 0
        waits = {}
        for tid, fd in self._fds.items():
            if text := _pread(fd):
                waits[tid] = int(text.split(maxsplit=2)[1])
                longest = max(longest, waits[tid] - self._waits.get(tid, waits[tid]))
        self._engine += min(longest / 1e9, now - self._read_at)
        self._waits, self._read_at = waits, now


_ARENA_LAG: trio.lowlevel.RunVar[ArenaLag] = trio.lowlevel.RunVar("seka_arena_lag")


def arena_lag() -> ArenaLag:
    """This trio run's `ArenaLag`, started (as a system task) on first use."""
    try:
        return _ARENA_LAG.get()
    except LookupError:
        monitor = ArenaLag()
        _ARENA_LAG.set(monitor)
        trio.lowlevel.spawn_system_task(monitor.run, name="seka-arena lateness")
        return monitor


class CallTime:
    """One call's clock, and how much of its time since the bot could not use.

    Create it just before the call is handed to grpcio (the bot's counters are read then), and
    `start` it just after (the deadline runs from there: a loop that is late making the call
    delays the start, not the bot); `credit` may then be read as often as needed.
    """

    def __init__(self, cpu: CpuWatch | None, *, grace: float, callback_thread: int | None = None) -> None:
        self._lag = arena_lag()
        self._cpu = cpu
        self.grace = grace
        """The most `credit` gives, in seconds."""
        self._mark = cpu.mark() if cpu is not None else None
        self._callback = callback_thread
        self._callback_then = self._callback_wait()
        self._engine_then = self._lag.engine_total()
        self.created = time.monotonic()
        """When the call was about to be handed to grpcio (its latency runs from here)."""
        self.started = self.created
        """When the call's time started (see `start`)."""
        self._trio_started = trio.current_time()

    def start(self) -> None:
        """The call has been handed to grpcio: its time runs from now."""
        self.started = time.monotonic()
        self._trio_started = trio.current_time()

    def at(self, seconds: float) -> float:
        """The trio time `seconds` after the call started (for cancel-scope deadlines)."""
        return self._trio_started + seconds

    def credit(self) -> float:
        """Seconds of the call's time until now that the bot could not use: kept from the CPU,
        plus the time grpcio's threads (its event engine's, and the one that takes in this bot's
        replies) waited for one; at most `grace`."""
        kept = self._cpu.kept_since(self._mark) if self._cpu is not None and self._mark is not None else 0.0
        engine = self._lag.engine_total(fresh=True) - self._engine_then
        callback = (self._callback_wait() - self._callback_then) / 1e9
        return min(self.grace, kept + max(0.0, engine) + max(0.0, callback))

    def cpu(self) -> float | None:
        """CPU seconds the bot's processes used since the call was created (None without a watch)."""
        return self._cpu.ran_since(self._mark) if self._cpu is not None and self._mark is not None else None

    def _callback_wait(self) -> int:
        return self._lag.thread_wait(self._callback) if self._callback is not None else 0
