"""Isolation levels for bot processes: resource limits, control groups and a bubblewrap sandbox.

Theory of operation: a bot is launched through a chain of small programs, each doing one thing
and then exec-ing the next, so the arena never forks its own interpreter (see `_process`):

    setpriv --pdeathsig KILL          the bot dies with the arena            (every level)
    sh -c 'echo $$ > .../cgroup.procs' joins the bot's control groups        (limits, sandbox)
    prlimit --cpu --nofile --fsize    per-process resource limits             (as configured / defaults)
    bwrap ... setpriv --reuid UID     namespaces, private file system, uid    (sandbox)
    the bot's own command

A control group per bot (memory, pids and, when available, cpu) bounds what it and everything it
forks may use together, and lets the arena find and kill every process the bot left behind,
whatever process group or session it moved to. cgroup v1 (one hierarchy per controller) and v2
(the unified hierarchy) are both supported; the groups are created as children of the arena's own
groups, so they stay inside whatever limits the arena itself runs under.

The sandbox runs the bot as a uid of its own (`UidLease`: per-user kernel counts are not shared
with any other bot) in new pid, network, IPC, UTS and cgroup namespaces, on an
empty root file system where only these are visible: the system directories, Python and the
virtual environment, and the `arena` package and `protos/` (all read-only), the folders of the
files named in the bot's command (read-only; for a confined bot, a stranger's, its own folder
instead, and a command naming anything else is refused), its own socket folder (writable) and a
private /tmp.
"""

from __future__ import annotations

import ctypes
import enum
import errno
import fcntl
import grp
import itertools
import logging
import os
import pwd
import re
import resource
import secrets
import shlex
import shutil
import signal
import stat
import sys
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path

import trio

from ..engine import ArenaError

LOGGER = logging.getLogger(__name__)

NOBODY = 65534
"""The `nobody` uid; the uids of sandboxed bots lie above it."""

_CGROUP_PREFIX = "seka-arena"
_CGROUP_NAME = re.compile(rf"{_CGROUP_PREFIX}-(\d+)-\d+-")
# Seconds `Cgroup.close` keeps killing what is left in a group before giving up on it.
_KILL_WAIT = 3.0
_CPU_PERIOD_US = 100_000
# CPU weights of a bot's group while it decides (the default) and while it waits, in cgroup v1
# (`cpu.shares`) and v2 (`cpu.weight`): a waiting bot gets 1/16 of a deciding one's share.
_SHARES = {False: 1024, True: 64}
_WEIGHTS = {False: 100, True: 6}
_SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")
_SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin"
SOCKET_FOLDER_BYTES = 1 << 20
"""The size of a sandboxed bot's socket folder, a file system in memory of its own: its socket needs none."""
_ARENA_PACKAGE = Path(__file__).resolve().parents[1]


class Isolation(enum.Enum):
    """How far a launched bot is fenced in; see docs/isolation.md for what each level protects against."""

    NONE = "none"
    """A bot author's own machine: own process group, killed with the arena, only the resource
    limits explicitly configured (those that are per-process rlimits)."""
    LIMITS = "limits"
    """Resource limits, with defaults for those not configured, and a control group per bot that
    bounds memory, processes and CPU share and lets the arena kill everything the bot started."""
    SANDBOX = "sandbox"
    """`limits` plus bubblewrap: a uid of its own, no network, its own pid namespace, a private file
    system holding only what the bot needs to run."""


class SandboxError(ArenaError):
    """The machine cannot provide the isolation asked for (no usable cgroups, no bubblewrap)."""


@dataclass(frozen=True)
class ProcessLimits:
    """Operating-system limits applied to a launched bot; None means not limited (see `effective`)."""

    cpu_seconds: int | None = None
    """CPU time of each process (RLIMIT_CPU): SIGXCPU at the limit, SIGKILL a second later."""
    memory_mb: int | None = None
    """MiB of memory: the control group's limit (out of memory: SIGKILL) under `limits` and
    `sandbox`; the address space (RLIMIT_AS) under `none`."""
    processes: int | None = None
    """Processes and threads together, in the bot's control group (not enforced under `none`)."""
    open_files: int | None = None
    """Open file descriptors of each process (RLIMIT_NOFILE)."""
    file_size_mb: int | None = None
    """MiB any one file written may reach (RLIMIT_FSIZE)."""
    cpus: float | None = None
    """CPU share of the whole control group, in cores, where the cpu controller is available."""
    log_bytes: int = 1_000_000
    """Bytes of stdout and of stderr kept in the bot's log files; the rest is counted and dropped."""

    def effective(self, isolation: Isolation) -> ProcessLimits:
        """The limits that apply at `isolation`: as configured under `none`, else with `DEFAULT_LIMITS` filled in.

        >>> ProcessLimits(memory_mb=256).effective(Isolation.LIMITS).memory_mb
        256
        >>> ProcessLimits().effective(Isolation.LIMITS).processes, ProcessLimits().effective(Isolation.NONE).processes
        (64, None)
        """
        if isolation is Isolation.NONE:
            return self
        filled = {name: getattr(DEFAULT_LIMITS, name) for name in _DEFAULTED if getattr(self, name) is None}
        for key in _RLIMITS:  # a default the arena cannot give is lowered to what it can
            if key in filled and (ceiling := rlimit_ceiling(key)) is not None:
                filled[key] = min(filled[key], ceiling)
        return replace(self, **filled)


DEFAULT_LIMITS = ProcessLimits(cpu_seconds=300, memory_mb=1024, processes=64, open_files=256, file_size_mb=64,
                               cpus=1.0)
"""The limits `limits` and `sandbox` apply where none is configured."""
_DEFAULTED = ("cpu_seconds", "memory_mb", "processes", "open_files", "file_size_mb", "cpus")


@dataclass(frozen=True)
class _Rlimit:
    resource: int
    what: str
    ulimit: str
    per_unit: int
    """The resource's units in one unit of the YAML key (bytes in a MiB)."""
    slack: int = 0
    """What `prlimit` sets the hard limit above the soft one (`rlimit_options`)."""


_RLIMITS = {
    "open_files": _Rlimit(resource.RLIMIT_NOFILE, "open files", "ulimit -Hn", 1),
    "file_size_mb": _Rlimit(resource.RLIMIT_FSIZE, "file size (MiB)", "ulimit -Hf", 1024 * 1024),
    "cpu_seconds": _Rlimit(resource.RLIMIT_CPU, "CPU seconds", "ulimit -Ht", 1, slack=1),
}
"""The per-process limits `prlimit` sets, which it cannot raise above the arena's own hard limit."""


def rlimit_ceiling(key: str) -> int | None:
    """The most of limit `key` (`open_files`, `file_size_mb`, `cpu_seconds`) a bot can be given: the
    arena's own hard limit, above which `prlimit` fails at every launch; None when unlimited."""
    limit = _RLIMITS[key]
    hard = resource.getrlimit(limit.resource)[1]
    return None if hard == resource.RLIM_INFINITY else max(0, hard // limit.per_unit - limit.slack)


def rlimit_problem(key: str, value: int | None) -> str | None:
    """Why the arena cannot give each bot `value` of limit `key` (more than its own hard limit), or None."""
    ceiling = rlimit_ceiling(key) if key in _RLIMITS else None
    if value is None or ceiling is None or value <= ceiling:
        return None
    limit = _RLIMITS[key]
    return (f"must be at most {ceiling}, what this arena's own hard limit of {limit.what} allows ({limit.ulimit}), "
            f"not {value}: a bot cannot be given more than the arena has (raise the arena's limit, or lower this one)")


_FILES_OF_THE_ARENA = 64
"""Descriptors the arena holds whatever it plays: the store, the event loop, gRPC, its own logs."""
_FILES_PER_BOT = 12
"""Descriptors the arena holds for each bot in flight: pipes, log files, its socket, control-group files."""


def ensure_open_files(bots: int) -> None:
    """Make sure this process may open the files `bots` bots in flight cost it: its soft RLIMIT_NOFILE
    is raised towards its hard one when it is short (as servers do), else the run is refused at once,
    in one line, instead of failing in the middle with "Too many open files".

    Raises:
        ArenaError: even the hard limit (`ulimit -Hn`) is too low.
    """
    needed = _FILES_OF_THE_ARENA + _FILES_PER_BOT * bots
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < needed:
        raised = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (raised, hard))
        if raised < needed:
            raise ArenaError(f"too many open files: this process may open only {raised} (ulimit -n), and "
                             f"{bots} bots in flight need about {needed}; raise it (ulimit -n {max(needed, 1024)}) "
                             "and run the command again")


def lowered_defaults_warning(isolation: Isolation) -> str | None:
    """What the run's output says when default limits at `isolation` are above what the arena can
    give and are lowered (`ProcessLimits.effective`), or None."""
    if isolation is Isolation.NONE:
        return None
    lowered = [f"{_RLIMITS[key].what} {getattr(DEFAULT_LIMITS, key)} -> {ceiling} ({_RLIMITS[key].ulimit})"
               for key in _RLIMITS if (ceiling := rlimit_ceiling(key)) is not None
               and getattr(DEFAULT_LIMITS, key) is not None and getattr(DEFAULT_LIMITS, key) > ceiling]
    if not lowered:
        return None
    return f"default limits of each bot above this arena's own hard limits are lowered to them: {', '.join(lowered)}"


def rlimit_options(limits: ProcessLimits, *, address_space: bool) -> list[str]:
    """`prlimit` options for the per-process limits; `address_space`: memory as RLIMIT_AS.

    >>> rlimit_options(ProcessLimits(cpu_seconds=5, memory_mb=1, file_size_mb=2), address_space=False)
    ['--cpu=5:6', '--fsize=2097152:2097152']
    """
    options = []
    if limits.cpu_seconds is not None:
        options.append(f"--cpu={limits.cpu_seconds}:{limits.cpu_seconds + 1}")
    if limits.memory_mb is not None and address_space:
        size = limits.memory_mb * 1024 * 1024
        options.append(f"--as={size}:{size}")
    if limits.open_files is not None:
        options.append(f"--nofile={limits.open_files}:{limits.open_files}")
    if limits.file_size_mb is not None:
        size = limits.file_size_mb * 1024 * 1024
        options.append(f"--fsize={size}:{size}")
    return options


# ---------------------------------------------------------------- control groups


@dataclass(frozen=True)
class _Hierarchy:
    version: int
    controllers: frozenset[str]
    own: Path
    """The arena's own group in this hierarchy: new groups are made under it."""


def _own_paths() -> dict[str, str]:
    # "4:memory:/a/b" -> {"memory": "/a/b"}; the unified hierarchy is "0::/a/b" -> {"": "/a/b"}.
    paths = {}
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        for controller in controllers.split(",") if controllers else [""]:
            paths[controller] = path
    return paths


def _hierarchies() -> list[_Hierarchy]:
    """Every mounted cgroup hierarchy, with the directory of the arena's own group in it."""
    own = _own_paths()
    found = []
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        left, _, right = line.partition(" - ")
        fields, details = left.split(), right.split()
        if len(fields) < 5 or len(details) < 3 or details[0] not in ("cgroup", "cgroup2"):
            continue
        root, mountpoint = fields[3], Path(fields[4].replace("\\040", " "))
        if details[0] == "cgroup2":
            path = own.get("")
            try:
                controllers = frozenset((mountpoint / "cgroup.controllers").read_text().split())
            except OSError:
                continue
            version = 2
        else:
            controllers = frozenset(option for option in details[2].split(",") if option in own)
            path = next((own[controller] for controller in controllers), None)
            version = 1
        if path is None or not controllers:
            continue
        relative = os.path.relpath(path, root) if path.startswith(root) else "."
        found.append(_Hierarchy(version, controllers, (mountpoint / relative).resolve()))
    return found


@cache
def _placement() -> tuple[tuple[_Hierarchy, frozenset[str]], ...]:
    """Which hierarchy serves which of memory, pids and cpu; SandboxError without memory and pids."""
    if os.geteuid() != 0:
        raise SandboxError("isolation `limits` and `sandbox` need the arena to run as root "
                           "(to create control groups and switch the bot to a uid of its own)")
    try:
        hierarchies = _hierarchies()
    except OSError as error:
        raise SandboxError(f"cannot read this process's cgroups: {error}") from None
    placement: dict[_Hierarchy, set[str]] = {}
    # A v1 hierarchy that has the controller mounted wins over the unified one (hybrid systems).
    for wanted in ("memory", "pids", "cpu"):
        candidates = sorted((h for h in hierarchies if wanted in h.controllers), key=lambda h: h.version)
        if candidates:
            placement.setdefault(candidates[0], set()).add(wanted)
    served = set().union(*placement.values()) if placement else set()
    missing = {"memory", "pids"} - served
    if missing:
        found = ", ".join(f"v{h.version} {'+'.join(sorted(h.controllers))} at {h.own}" for h in hierarchies) or "none"
        raise SandboxError(f"isolation `limits` and `sandbox` need the cgroup controllers memory and pids (cgroup v1 "
                           f"or v2); "
                           f"missing: {', '.join(sorted(missing))}; cgroups found: {found}")
    result = []
    for hierarchy, controllers in placement.items():
        if hierarchy.version == 2:
            _enable_v2(hierarchy, controllers)
        _probe(hierarchy)
        result.append((hierarchy, frozenset(controllers)))
    return tuple(result)


def _enable_v2(hierarchy: _Hierarchy, controllers: set[str]) -> None:
    # Child groups only get the controllers their parent hands down in cgroup.subtree_control.
    control = hierarchy.own / "cgroup.subtree_control"
    while wanted := controllers - set(control.read_text().split()):
        try:
            control.write_text(" ".join(f"+{name}" for name in sorted(wanted)))
        except OSError as error:
            if "cpu" in wanted:
                controllers.discard("cpu")  # optional: go on without it
                continue
            hint = (" (in cgroup v2 a group with processes of its own cannot hand controllers down: start the "
                    "arena in a group of its own, e.g. with `systemd-run --scope -p Delegate=yes`)"
                    if error.errno == errno.EBUSY else "")
            raise SandboxError(f"cannot enable the {'+'.join(sorted(wanted))} cgroup controllers in {hierarchy.own}: "
                               f"{error.strerror}{hint}") from None


def _probe(hierarchy: _Hierarchy) -> None:
    probe = hierarchy.own / f"{_CGROUP_PREFIX}-{os.getpid()}-probe"
    try:
        probe.mkdir(exist_ok=True)
        probe.rmdir()
    except OSError as error:
        raise SandboxError(f"cannot create control groups in {hierarchy.own}: {error.strerror}") from None


def isolation_problem(isolation: Isolation) -> str | None:
    """Why `isolation` cannot be provided on this machine, or None when it can."""
    if isolation is Isolation.NONE:
        return None
    try:
        _placement()
    except SandboxError as error:
        return str(error)
    if isolation is Isolation.SANDBOX:
        try:
            sandbox_uids()
        except SandboxError as error:
            return str(error)
        for program, package in (("bwrap", "bubblewrap"), ("setpriv", "util-linux"), ("prlimit", "util-linux")):
            if shutil.which(program) is None:
                return f"isolation `sandbox` needs `{program}` on PATH (install the {package} package)"
    return None


def default_isolation() -> tuple[Isolation, str | None]:
    """The level for a run that names none: `sandbox` where this machine provides it, else `none`
    with a warning (the second item) saying why and what that leaves open.

    Bots are other people's programs, and only the sandbox keeps one from reading the results or
    another bot's files, or a bot's copy in one mirror of a duplicate block from passing the cards
    it was dealt to its copy in the other.
    """
    problem = isolation_problem(Isolation.SANDBOX)
    if problem is None:
        return Isolation.SANDBOX, None
    return Isolation.NONE, (f"bots run with isolation `none`, as `sandbox` is not available here ({problem}); a "
                            "bot can then read the results and other bots' files, and the mirrors of a duplicate "
                            "block can share cards (see docs/isolation.md)")


def verify_isolation(isolation: Isolation) -> None:
    """Raise SandboxError, saying what is missing, unless this machine can provide `isolation`."""
    if (problem := isolation_problem(isolation)) is not None:
        raise SandboxError(problem)


_COUNTER = itertools.count(1)


class Cgroup:
    """One bot's control groups (one per hierarchy used): created before the launch, joined by
    the launch chain, and on `close` emptied with SIGKILL and removed."""

    def __init__(self, name: str, directories: Sequence[tuple[int, frozenset[str], Path]], limits: ProcessLimits):
        self.name = name
        self.directories = tuple(directories)
        self.limits = limits
        self._waiting = False
        self._weights: list[tuple[int, bytes, bytes]] | None = None  # open weight files, for `set_waiting`

    @classmethod
    def create(cls, bot: str, limits: ProcessLimits) -> Cgroup:
        """A new group for `bot` in every hierarchy used, with `limits` written; SandboxError if impossible."""
        placement = _placement()
        remove_stale_cgroups()
        name = f"{_CGROUP_PREFIX}-{os.getpid()}-{next(_COUNTER)}-{re.sub(r'[^A-Za-z0-9_.-]', '_', bot)[:40]}"
        made: list[tuple[int, frozenset[str], Path]] = []
        try:
            for hierarchy, controllers in placement:
                directory = hierarchy.own / name
                directory.mkdir()
                made.append((hierarchy.version, controllers, directory))
                _write_limits(hierarchy.version, controllers, directory, limits)
        except OSError as error:
            for _, _, directory in made:
                _rmdir(directory)
            raise SandboxError(f"cannot set up the control group {name}: {error}") from None
        return cls(name, made, limits)

    @property
    def procs_files(self) -> list[Path]:
        """The `cgroup.procs` files a process writes its pid to, to join the group."""
        return [directory / "cgroup.procs" for _, _, directory in self.directories]

    @property
    def threads_file(self) -> Path:
        """The file listing every thread in the group (of every process)."""
        version, _, directory = self.directories[0]
        return directory / ("tasks" if version == 1 else "cgroup.threads")

    @property
    def cpu_quota(self) -> float | None:
        """The group's CPU quota in cores, None without one (no cpu controller, or no quota set)."""
        has_cpu = any("cpu" in controllers for _, controllers, _ in self.directories)
        return self.limits.cpus if has_cpu else None

    def set_waiting(self, waiting: bool) -> None:
        """Give the group a small CPU weight while it waits for the arena (another seat decides),
        the default weight while the arena waits for it; nothing without the cpu controller.

        A waiting bot still runs when a CPU is free, but yields it to any bot that is deciding.
        Twice a call: the weight files are opened once and kept open until `close`.
        """
        if waiting == self._waiting:
            return
        if self._weights is None:
            self._weights = []
            for version, controllers, directory in self.directories:
                if "cpu" in controllers:
                    name, weights = ("cpu.shares", _SHARES) if version == 1 else ("cpu.weight", _WEIGHTS)
                    try:
                        fd = os.open(directory / name, os.O_WRONLY | os.O_CLOEXEC)
                    except OSError:  # the group is being removed
                        return
                    self._weights.append((fd, str(weights[False]).encode(), str(weights[True]).encode()))
        for fd, deciding, idle in self._weights:
            try:
                os.pwrite(fd, idle if waiting else deciding, 0)
            except OSError:  # the group is being removed
                return
        self._waiting = waiting

    def _close_weights(self) -> None:
        for fd, _, _ in self._weights or ():
            os.close(fd)
        self._weights = None

    def pids(self) -> set[int]:
        """Every process in the group (read from each hierarchy; a root bot could leave one)."""
        found: set[int] = set()
        for path in self.procs_files:
            try:
                found.update(int(line) for line in path.read_text().split())
            except OSError:
                pass
        return found

    def memory_peak(self) -> int | None:
        """The most memory the group has held at once since it was made, in bytes (`memory.peak` in
        cgroup v2, `memory.max_usage_in_bytes` in v1; page cache included); None if unreadable."""
        for version, controllers, directory in self.directories:
            if "memory" in controllers:
                try:
                    return int((directory / ("memory.peak" if version == 2 else "memory.max_usage_in_bytes"))
                               .read_text())
                except (OSError, ValueError):
                    return None
        return None

    def limit_notes(self) -> list[str]:
        """The limits the group ran into: `out of memory at the 256 MiB limit`, `3 forks refused at ...`."""
        notes = []
        for version, controllers, directory in self.directories:
            if "memory" in controllers:
                events = _counters(directory / ("memory.events" if version == 2 else "memory.oom_control"))
                if events.get("oom_kill", 0) > 0:
                    notes.append(f"out of memory at the {self.limits.memory_mb} MiB limit")
            if "pids" in controllers:
                refused = _counters(directory / "pids.events").get("max", 0)
                if refused:
                    notes.append(f"{refused} forks refused at the {self.limits.processes}-process limit")
        return notes

    def kill_all(self) -> None:
        """SIGKILL every process in the group once (see `close` for emptying it)."""
        for version, _, directory in self.directories:
            if version == 2 and (directory / "cgroup.kill").exists():
                try:
                    (directory / "cgroup.kill").write_text("1")
                except OSError:
                    pass
        for pid in self.pids():
            self._kill_member(pid)

    def _kill_member(self, pid: int) -> None:
        # A pidfd pins the process: if `pid` was reused by another one after it was listed, the
        # cgroup check below fails; if it is reused after pidfd_open, the signal fails (ESRCH).
        try:
            pidfd = os.pidfd_open(pid)
        except OSError:
            return
        try:
            if f"/{self.name}" in Path(f"/proc/{pid}/cgroup").read_text():
                signal.pidfd_send_signal(pidfd, signal.SIGKILL)
        except OSError:
            pass
        finally:
            os.close(pidfd)

    def discard(self) -> None:
        """Remove a group that no process joined (the launch failed)."""
        self._close_weights()
        for _, _, directory in self.directories:
            _rmdir(directory)

    async def close(self) -> None:
        """Kill whatever is left in the group until it is empty, then remove the group."""
        self._close_weights()
        with trio.move_on_after(_KILL_WAIT):
            while self.pids():
                self.kill_all()
                await trio.sleep(0.01)
        left = self.pids()
        if left:
            LOGGER.warning("control group %s still holds %s after SIGKILL; left in place", self.name, sorted(left))
            return
        for _, _, directory in self.directories:
            # A process that has just died may keep the group busy for a moment.
            for _ in range(100):
                if _rmdir(directory):
                    break
                await trio.sleep(0.01)
            else:
                LOGGER.warning("cannot remove the control group %s", directory)


def _write_limits(version: int, controllers: frozenset[str], directory: Path, limits: ProcessLimits) -> None:
    def write(name: str, value: object, *, optional: bool = False) -> None:
        path = directory / name
        if optional and not path.exists():
            return
        path.write_text(str(value))

    if "memory" in controllers and limits.memory_mb is not None:
        size = limits.memory_mb * 1024 * 1024
        if version == 1:
            write("memory.limit_in_bytes", size)
            write("memory.memsw.limit_in_bytes", size, optional=True)  # no swapping past the limit
        else:
            write("memory.max", size)
            write("memory.swap.max", 0, optional=True)
            write("memory.oom.group", 1, optional=True)
    if "pids" in controllers and limits.processes is not None:
        write("pids.max", limits.processes)
    if "cpu" in controllers and limits.cpus is not None:
        quota = max(1000, round(limits.cpus * _CPU_PERIOD_US))
        if version == 1:
            write("cpu.cfs_period_us", _CPU_PERIOD_US)
            write("cpu.cfs_quota_us", quota)
        else:
            write("cpu.max", f"{quota} {_CPU_PERIOD_US}")


def _counters(path: Path) -> dict[str, int]:
    try:
        lines = path.read_text().splitlines()
    except OSError:
        return {}
    counters = {}
    for line in lines:
        key, _, value = line.partition(" ")
        if value.strip().isdigit():
            counters[key] = int(value)
    return counters


def _rmdir(directory: Path) -> bool:
    try:
        directory.rmdir()
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return True


def _is_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_stale_cgroups() -> list[Path]:
    """Kill and remove the groups of arenas that are no longer running (killed with SIGKILL, say).

    Under `limits` a bot's child that outlived such an arena is stopped here, by the next arena.
    Returns the groups removed.
    """
    try:
        placement = _placement()
    except SandboxError:
        return []
    removed = []
    for hierarchy, _ in placement:
        try:
            entries = list(hierarchy.own.iterdir())
        except OSError:
            continue
        for directory in entries:
            match = _CGROUP_NAME.match(directory.name)
            if match is None or not directory.is_dir() or _is_alive(int(match.group(1))):
                continue
            # Kill what is left, then try to remove the group: processes take a moment to die, so
            # a group still busy now is removed by a later call (each launch makes one).
            Cgroup(directory.name, [(hierarchy.version, frozenset(), directory)], ProcessLimits()).kill_all()
            if _rmdir(directory):
                removed.append(directory)
    return removed


# ---------------------------------------------------------------- a uid per sandboxed bot


UIDS_ENV = "SEKA_ARENA_UIDS"
"""The environment variable naming the uids sandboxed bots run as, `FIRST-LAST` (inclusive)."""
DEFAULT_UIDS = range(2_000_000_000, 2_000_065_536)
"""Far above every user and container range a distribution hands out (0x77359400: in the range
systemd leaves unused), and below 2^31, which some tools read as a signed number."""
_UID_LOCKS = Path("/run/seka-arena/uids")


def sandbox_uids() -> range:
    """The uids reserved for sandboxed bots: `$SEKA_ARENA_UIDS` (`FIRST-LAST`), else `DEFAULT_UIDS`.

    Raises:
        SandboxError: the variable is malformed, or names a range that holds an ordinary user's
            uid or that this process's user namespace does not map.
    """
    text = os.environ.get(UIDS_ENV, "").strip()
    if not text:
        uids = DEFAULT_UIDS
    else:
        first, dash, last = text.partition("-")
        if not (dash and first.strip().isdigit() and last.strip().isdigit()):
            raise SandboxError(f"{UIDS_ENV} names uids as FIRST-LAST (like 2000000000-2000065535), not {text!r}")
        uids = range(int(first), int(last) + 1)
    if not uids or uids.start <= NOBODY or uids.stop > 2**31:
        raise SandboxError(f"{UIDS_ENV}: the uids of sandboxed bots must lie above {NOBODY} and below 2^31, "
                           f"not {uids.start}-{uids.stop - 1}")
    if not _mapped(uids):
        raise SandboxError(f"the uids {uids.start}-{uids.stop - 1} for sandboxed bots are not mapped in this user "
                           f"namespace (/proc/self/uid_map): set {UIDS_ENV} to a range that is")
    return uids


def _mapped(uids: range) -> bool:
    try:
        lines = Path("/proc/self/uid_map").read_text().splitlines()
    except OSError:
        return True  # no user namespaces: every uid exists
    for line in lines:
        inside, _, count = (int(field) for field in line.split())
        if inside <= uids.start and uids.stop <= inside + count:
            return True
    return False


def _uids_running() -> set[int]:
    """Every uid (real, effective, saved, file system) of a live process."""
    found: set[int] = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                status = Path(f"/proc/{entry}/status").read_text()
            except OSError:
                continue
            for line in status.splitlines():
                if line.startswith("Uid:"):
                    found.update(int(field) for field in line.split()[1:])
                    break
    return found


def _has_account(uid: int) -> bool:
    for lookup in (pwd.getpwuid, grp.getgrgid):
        try:
            lookup(uid)
            return True
        except KeyError:
            pass
    return False


class UidLease:
    """One uid of `sandbox_uids` held for one bot, free of any account and process when taken.

    The lease is an exclusive lock on a file named after the uid, so arenas running side by side
    never hand out the same one, and one killed with SIGKILL frees its uids as it dies.
    """

    _cursor = secrets.randbelow(1 << 16)
    """Where the next search starts: past the last uid taken, so that none is handed out again at once."""

    def __init__(self, uid: int, fd: int, path: Path) -> None:
        self.uid = uid
        self._fd: int | None = fd
        self._path = path

    @classmethod
    def take(cls) -> UidLease:
        """The first free uid of the range after the last one this arena took.

        Raises:
            SandboxError: no free uid is left in the range, or the lock folder is unsafe.
        """
        uids = sandbox_uids()
        folder = _lock_folder()
        running = _uids_running()
        for offset in range(len(uids)):
            position = (UidLease._cursor + offset) % len(uids)
            uid = uids[position]
            if uid in running or _has_account(uid):
                continue
            path = folder / str(uid)
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                # The file may have been removed by a lease released meanwhile: then it is not the lock.
                if os.fstat(fd).st_ino == os.stat(path, follow_symlinks=False).st_ino:
                    UidLease._cursor = position + 1
                    return cls(uid, fd, path)
            except OSError:
                pass
            os.close(fd)
        raise SandboxError(f"no free uid left for a sandboxed bot in {uids.start}-{uids.stop - 1} (each bot in flight "
                           f"takes one): widen {UIDS_ENV}")

    def release(self) -> None:
        """Give the uid back (once the bot's processes are all gone)."""
        if self._fd is not None:
            self._path.unlink(missing_ok=True)  # before the lock goes: see `take`
            os.close(self._fd)
            self._fd = None


def _lock_folder() -> Path:
    try:
        _UID_LOCKS.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = os.stat(_UID_LOCKS, follow_symlinks=False)
    except OSError as error:
        raise SandboxError(f"cannot make the folder of uid locks {_UID_LOCKS}: {error.strerror}") from None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid() or info.st_mode & 0o022:
        raise SandboxError(f"{_UID_LOCKS} must be a folder of the arena's user that no one else may write to")
    return _UID_LOCKS


# ---------------------------------------------------------------- the arena's folders on the host


_OWNER_MARK = ".seka-arena-owner"
_LIBC = ctypes.CDLL(None, use_errno=True)
_MS_NOSUID, _MS_NODEV, _MS_NOEXEC, _MNT_DETACH = 0x2, 0x4, 0x8, 0x2


@contextmanager
def session_folder() -> Iterator[Path]:
    """A new folder `seka-*` in the system's temporary folder, for one session's sockets, removed on exit.

    The arena holds a lock on it while it lives, so that a folder left behind by an arena killed
    with SIGKILL is removed by the next one to make a folder (`remove_stale_folders`), and never one
    in use.
    """
    remove_stale_folders()
    path = Path(tempfile.mkdtemp(prefix="seka-"))
    lock = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        (path / _OWNER_MARK).touch()  # only a folder already locked is marked: see remove_stale_folders
        yield path
    finally:
        _remove_folder(path)
        os.close(lock)


def remove_stale_folders() -> list[Path]:
    """Remove the session folders of arenas that are no longer running; returns those removed.

    A folder counts only if it is the arena user's and marked as made by `session_folder`, which
    marks it once locked: a marked folder whose lock is free has lost its arena. File systems
    mounted in it (the bots' socket folders) are detached first.
    """
    removed = []
    for entry in Path(tempfile.gettempdir()).glob("seka-*"):
        try:
            folder, mark = os.lstat(entry), os.lstat(entry / _OWNER_MARK)
            lock = os.open(entry, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            if stat.S_ISDIR(folder.st_mode) and folder.st_uid == mark.st_uid == os.geteuid():
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                _remove_folder(entry)
                removed.append(entry)
        except OSError:
            pass  # its arena is alive (BlockingIOError), or it went meanwhile
        finally:
            os.close(lock)
    return removed


def _remove_folder(path: Path) -> None:
    for mount in sorted(_mounts_below(path), key=lambda mount: len(mount.parts), reverse=True):
        unmount(mount)
    shutil.rmtree(path, ignore_errors=True)


def _mounts_below(path: Path) -> list[Path]:
    found = []
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        mountpoint = Path(re.sub(r"\\([0-7]{3})", lambda octal: chr(int(octal.group(1), 8)), line.split()[4]))
        if path in mountpoint.parents:
            found.append(mountpoint)
    return found


def mount_socket_folder(folder: Path, uid: int) -> None:
    """Make a sandboxed bot's socket folder a file system in memory of `SOCKET_FOLDER_BYTES`, owned by `uid`.

    What the bot writes there, through files it opened before the folder was taken back too,
    stays within that size and counts against its memory limit (its control group is charged for
    the pages it writes), never on the host's disk.

    Raises:
        SandboxError: the file system cannot be mounted.
    """
    options = f"size={SOCKET_FOLDER_BYTES},mode=0700,uid={uid},gid={uid}".encode()
    if _LIBC.mount(b"tmpfs", os.fsencode(folder), b"tmpfs", ctypes.c_ulong(_MS_NOSUID | _MS_NODEV | _MS_NOEXEC),
                   options) != 0:
        error = ctypes.get_errno()
        raise SandboxError(f"cannot mount a file system in memory on the socket folder {folder}: "
                           f"{os.strerror(error)}")


def unmount(folder: Path) -> None:
    """Detach the file system mounted on `folder`, if any."""
    _LIBC.umount2(os.fsencode(folder), _MNT_DETACH)


def mount_copies_folder(folder: Path, limits: ProcessLimits) -> None:
    """Make `folder` a file system in memory to hold a sandboxed bot's copies of its own folders.

    The copies are made by the bot's launch, in its control group, which is charged for their
    pages (see `copy_commands`); the file system is as large as the bot's memory limit.

    Raises:
        SandboxError: the file system cannot be mounted.
    """
    folder.mkdir(mode=0o700)
    size = f"size={limits.memory_mb}m," if limits.memory_mb is not None else ""
    if _LIBC.mount(b"tmpfs", os.fsencode(folder), b"tmpfs", ctypes.c_ulong(_MS_NOSUID | _MS_NODEV),
                   f"{size}mode=0755".encode()) != 0:
        error = ctypes.get_errno()
        folder.rmdir()
        raise SandboxError(f"cannot mount a file system in memory for the bot's copies at {folder}: "
                           f"{os.strerror(error)}")


def remove_copies(folder: Path) -> None:
    """Detach the file system of a bot's copies (its pages go with it) and remove its mount point."""
    unmount(folder)
    try:
        folder.rmdir()
    except OSError:
        LOGGER.warning("could not remove the copies folder %s", folder)


def copy_commands(copies: Sequence[tuple[Path, Path]]) -> list[str]:
    """Shell commands that copy each folder to its copy, as they are (links not followed, owners,
    modes and times kept), for the launch to run once in the bot's control group.

    >>> copy_commands([(Path("/bots/a b"), Path("/c/1"))])
    ["cp -a -- '/bots/a b' /c/1"]
    """
    return [f"cp -a -- {shlex.quote(str(source))} {shlex.quote(str(copy))}" for source, copy in copies]


# ---------------------------------------------------------------- the sandbox


def sandbox_env(env: Mapping[str, str], *, address_env: str, address: str) -> dict[str, str]:
    """The whole environment of a sandboxed bot: PATH, HOME=/tmp, LANG, the bot's own `env`, its address.

    >>> sandbox_env({"DEPTH": "3"}, address_env="SEKA_BOT_ADDRESS", address="unix:/s/bot.sock")["HOME"]
    '/tmp'
    """
    return {"PATH": _SANDBOX_PATH, "HOME": "/tmp", "LANG": os.environ.get("LANG", "C.UTF-8"), **env,
            address_env: address}


def _covered(path: Path, mounted: Iterable[Path]) -> bool:
    return any(path == root or root in path.parents for root in mounted)


def _program(program: str, env: Mapping[str, str]) -> str:
    # The sandbox's PATH is short; a program found on the arena's own PATH is run by its full path.
    if "/" in program:
        return program
    return shutil.which(program, path=f"{env.get('PATH', '')}:{os.environ.get('PATH', '')}") or program


def bot_paths(argv: Sequence[str], *, cwd: Path, env: Mapping[str, str]) -> list[Path]:
    """The folders a sandboxed bot sees read-only as its own: those of the files its command names.

    Each word that names an existing file (relative words against `cwd`) makes its folder visible;
    a word naming a folder makes that folder visible. The program, when found on PATH, makes its
    folder visible too.
    """
    found: list[Path] = []
    words = list(argv)
    if words:
        words[0] = _program(words[0], env)
    for index, word in enumerate(words):
        if not word or word.startswith("-"):
            continue
        path = Path(os.path.normpath(cwd / word))
        try:
            if path.is_file():
                candidates = [path.parent]
                if index == 0:
                    candidates.append(path.resolve().parent)
            elif path.is_dir() and index > 0:
                candidates = [path]
            else:
                continue
        except OSError:
            continue
        found.extend(candidate for candidate in candidates if candidate not in found)
    return found


def _overlap(a: Path, b: Path) -> bool:
    return a == b or a in b.parents or b in a.parents


def _spellings(path: Path) -> set[Path]:
    # As written and with symbolic links resolved: bubblewrap follows a link it is asked to bind.
    found = {Path(os.path.normpath(path))}
    try:
        found.add(path.resolve())
    except (OSError, RuntimeError):
        pass
    return found


def _arena_temporary(path: Path) -> bool:
    # The arena's own folders in the system's temporary folder, `seka-*` (every bot's socket
    # folder, check-bot's logs), those of other arenas and later sessions included.
    temporary = Path(tempfile.gettempdir()).resolve()
    for spelling in _spellings(path):
        if spelling == temporary or spelling in temporary.parents:
            return True
        if temporary in spelling.parents and spelling.relative_to(temporary).parts[0].startswith("seka-"):
            return True
    return False


def verify_bot_folders(argv: Sequence[str], *, cwd: Path, env: Mapping[str, str],
                       hidden: Iterable[Path] = ()) -> list[Path]:
    """The folders a sandboxed bot is shown as its own (`bot_paths`), once checked to show nothing else.

    A bot's command decides what the sandbox shows it, so it must not name anything of the
    arena's: no part of `hidden` (the results, the store, the tournament file with its secret,
    logs), of the arena's temporary folders (`seka-*`: every bot's socket folder), of the uid
    locks, nor the whole file system. Every word of the command that names a path counts, whether or not the
    path exists yet (the results of later sessions appear while the tournament runs), as written
    and with symbolic links resolved, and whether it lies inside such a part or holds one.

    Raises:
        SandboxError: the command would show the bot such a part; the message says which.
    """
    argv = [_program(argv[0], env), *argv[1:]] if argv else []
    own = bot_paths(argv, cwd=cwd, env=env)
    if Path("/") in own:
        raise SandboxError(f"the command {shlex.join(argv)!r} names '/', which would show the whole file system to "
                           "the bot in the sandbox: keep each bot in a folder of its own")
    forbidden = [*hidden, _UID_LOCKS]
    named = [Path(os.path.normpath(cwd / word)) for word in argv if word and not word.startswith("-")]
    for candidate in [*own, *named]:
        shown = next((secret for secret in forbidden
                      if any(_overlap(a, b) for a in _spellings(candidate) for b in _spellings(secret))), None)
        if shown is None and _arena_temporary(candidate):
            shown = Path(tempfile.gettempdir()) / "seka-*"
        if shown is not None:
            what = "folder" if candidate in own else "path"
            raise SandboxError(f"the bot's {what} {str(candidate)!r} (from its command {shlex.join(argv)!r}) "
                               f"would show {str(shown)!r} to it in the sandbox: keep each bot in a folder of its "
                               "own, and name nothing of the arena's in its command")
    return own


def confinement_problem(argv: Sequence[str], *, folder: Path) -> str | None:
    """Why a confined bot's command would reach outside its folder, or None when it does not.

    A confined bot (a stranger's: a submission to the service) is shown its folder and the runtime
    every bot gets, never what its command names, so its command may name nothing else: the program
    is a name looked up on the sandbox's PATH (`node`), the arena's own interpreter (what `python3`
    becomes) or a file of the folder; every other word is relative, and its real path (after `..`,
    `//` and symbolic links) lies in the folder. Words that are no path at all (`--fast`, `3`) are
    relative words that stay inside, so they pass.

    >>> from pathlib import Path
    >>> confinement_problem(["python3", "bot.py", "--depth", "3"], folder=Path("/srv/bots/a"))
    >>> confinement_problem(["python3", "bot.py", "//srv/bots"], folder=Path("/srv/bots/a"))
    "'//srv/bots' is an absolute path: a submitted bot's command names only files of its own folder, relatively"
    """
    real = os.path.realpath(folder)
    for index, word in enumerate(argv):
        if index == 0 and ("/" not in word or word == sys.executable):
            continue
        if os.path.isabs(word):
            return (f"{word[:200]!r} is an absolute path: a submitted bot's command names only files of its own "
                    "folder, relatively")
        resolved = os.path.realpath(os.path.join(folder, word))
        if resolved != real and not resolved.startswith(real + os.sep):
            return f"{word[:200]!r} leads outside the bot's folder (through '..' or a link)"
    return None


def seal_socket_folder(folder: Path, socket: Path) -> None:
    """Take a sandboxed bot's socket folder back once its socket is there, before the arena first
    connects: the bot can create nothing more on the host, nor swap the socket for a link.

    The folder passes to the arena's user (the bot, as its own uid, needed it only to create its
    socket), and everything in it but the socket is removed; folders of the bot's are closed to
    it first, so that it cannot keep filling one while it goes. What is left to it is writing
    into files it still holds open, each capped by `file_size_mb`.
    """
    os.chown(folder, os.getuid(), os.getgid())
    os.chmod(folder, 0o755)
    for entry in folder.iterdir():
        if entry == socket:
            continue
        if not entry.is_dir() or entry.is_symlink():
            entry.unlink(missing_ok=True)
            continue
        for _ in range(3):  # again if a subfolder made while the walk went escaped it
            for inner, _, _ in os.walk(entry):  # top down: each folder is closed before its subfolders
                os.chown(inner, os.getuid(), os.getgid(), follow_symlinks=False)
                os.chmod(inner, 0o700)
            shutil.rmtree(entry, ignore_errors=True)
            if not entry.exists():
                break


def _verify_confined_folder(folder: Path, hidden: Iterable[Path]) -> None:
    # A confined bot is shown its folder whole: that folder may lie inside a hidden one (the
    # service's data folder holds every bot's), but must hold nothing hidden or of the arena's.
    for secret in [*hidden, _UID_LOCKS]:
        if any(a == b or a in b.parents for a in _spellings(folder) for b in _spellings(secret)):
            raise SandboxError(f"the bot's folder {str(folder)!r} holds {str(secret)!r}, which no bot may be shown")
    if _arena_temporary(folder) or Path("/") in _spellings(folder):
        raise SandboxError(f"the bot's folder {str(folder)!r} holds the arena's own folders: keep each bot in a "
                           "folder of its own")


@dataclass(frozen=True)
class SandboxCommand:
    """The bubblewrap command of a sandboxed bot, and the folders it shows from copies."""

    argv: list[str]
    copies: list[tuple[Path, Path]]
    """(a folder of the bot's, where its copy must be made before the command runs)."""


def sandbox_argv(argv: Sequence[str], *, uid: int, cwd: Path, env: Mapping[str, str], writable: Path,
                 private: Sequence[Path] = (), seccomp_fd: int | None = None,
                 confined: bool = False, copies: Path | None = None) -> SandboxCommand:
    """The bubblewrap command that runs `argv` as `uid` (and as the group of that number) in the sandbox.

    Args:
        argv: the bot's command.
        uid: the bot's own uid (see `UidLease`).
        cwd: its folder (created empty in the sandbox when nothing visible holds it).
        env: its environment (only PATH is read here, to find the program).
        writable: its socket folder, the one place it may write outside its private /tmp.
        private: files and folders it must not see (see `verify_bot_folders`).
        seccomp_fd: a file descriptor the bot's process inherits, holding the system-call filter.
        confined: a stranger's bot: it is shown `cwd` and the runtime only, whatever its command
            names (whose words the caller checked with `confinement_problem`).
        copies: where copies of the bot's own folders (those of its command, not the shared ones) are
            made, to be shown in their place: files of their own, whose page cache no other
            session shares (a bot could otherwise leave a trace there for its copy in the next
            mirror). None: the folders themselves are shown.

    Raises:
        SandboxError: bubblewrap is missing, or the bot's command would show it a `private` path
            (confined: `cwd` holds one).
    """
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        raise SandboxError("isolation `sandbox` needs bubblewrap: install it (apt-get install bubblewrap)")
    command = ["--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
               "--hostname", "seka-bot", "--die-with-parent", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    for system in _SYSTEM_DIRS:
        command += ["--ro-bind-try", system, system]
    command += ["--proc", "/proc", "--dev", "/dev", "--perms", "1777", "--tmpfs", "/tmp"]
    # Counters of the whole machine that a bot does not need, and that one process could move for
    # another to read: /proc/sys (the count of ptys, of open files, ...) is an empty folder, and so
    # is /dev/pts (no pty to open: /dev/ptmx leads nowhere).
    command += ["--tmpfs", "/proc/sys", "--tmpfs", "/dev/pts"]
    readonly = [Path(system) for system in _SYSTEM_DIRS]
    made: set[Path] = set()

    def ensure_parents(path: Path) -> None:
        # bubblewrap makes missing mount points private (0700), which the bot's uid could not cross.
        for parent in reversed(path.parents):
            if parent == Path("/") or parent in made or _covered(parent, readonly):
                continue
            command.extend(["--perms", "0755", "--dir", str(parent)])
            made.add(parent)

    shared = [Path(sys.base_prefix), Path(sys.prefix), _ARENA_PACKAGE, _ARENA_PACKAGE.parent / "protos"]
    if confined:
        # Its words name nothing outside `cwd` (`BotProcess.launch` checked them, at every level);
        # its program is looked up on the sandbox's own PATH, in the system folders every bot sees.
        _verify_confined_folder(cwd, [*private, writable.parent])
        own = [cwd]
    else:
        argv = [_program(argv[0], env), *argv[1:]]
        own = verify_bot_folders(argv, cwd=cwd, env=env, hidden=[*private, writable.parent])
    copied: list[tuple[Path, Path]] = []
    for directory in sorted({*shared, *own}, key=lambda path: len(path.parts)):
        if _covered(directory, readonly) or not directory.exists():
            continue
        ensure_parents(directory)
        source = directory
        # A folder holding the arena's Python or package is shown in place: a copy would hold them too.
        if copies is not None and directory not in shared and not any(directory in path.parents for path in shared):
            source = copies / str(len(copied))
            copied.append((directory, source))
        command += ["--ro-bind", str(source), str(directory)]
        readonly.append(directory)
    ensure_parents(writable)
    command += ["--bind", str(writable), str(writable)]
    if not _covered(cwd, [*readonly, writable]) and cwd not in made:
        ensure_parents(cwd)
        command += ["--perms", "0755", "--dir", str(cwd)]
    if seccomp_fd is not None:
        command += ["--seccomp", str(seccomp_fd)]
    command += ["--chdir", str(cwd), "--",
                "setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--inh-caps=-all",
                "--bounding-set=-all", "--"]
    return SandboxCommand([bwrap, *command, *argv], copied)
