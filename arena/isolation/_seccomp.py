"""The system-call filter of sandboxed bots: a seccomp BPF program that bubblewrap installs.

A bot needs ordinary system calls only, and the filter allows only those: files (in the folders
the sandbox shows it), memory, processes and threads, signals, time, waiting, System V IPC (in
its own IPC namespace) and sockets. The list (`ALLOWED_X86_64`) was drawn from what the sample
bots (Python and Node.js), a C++ gRPC server and the JVM call through a whole `check-bot` run,
traced with strace, widened to the other calls of the same kinds that an ordinary program of
another language may make. Everything else fails with EPERM: new namespaces (`unshare`, `setns`),
tracing and reading other processes (`ptrace`, `process_vm_*`), kernel keyrings, BPF, perf
events, io_uring, userfaultfd, the mount API (`open_tree_attr`, `listmount` included), modules,
kexec, the clock, `memfd_secret`, and every call newer than this list (`cachestat` included).
Nor does it allow what tells or moves what the page cache holds of a file, which a bot could use
to leave a trace for its copy in a later session (see docs/isolation.md): `mincore`, `readahead`,
`fadvise64`. Five calls are allowed with their arguments checked:

- `clone`, without namespace flags (EPERM with them); `clone3` reports ENOSYS, since its flags
  are behind a pointer the filter cannot read, so that the C library falls back to `clone`;
- `preadv2` and `pwritev2`, without `RWF_NOWAIT` (EPERM with it: it fails when the pages are
  not cached, and so reads the page cache as `mincore` does);
- `socket` and `socketpair`, for the families unix, inet and inet6 only (EAFNOSUPPORT for the
  others: vsock, which no network namespace covers, netlink, packet, bluetooth...).

A system call of another ABI than the arena's own (32-bit or x32 calls from a 64-bit process)
kills the bot. The program is built by hand (no libseccomp binding is needed) for x86_64, the
machines the arena runs on; elsewhere `bot_filter` returns None and the sandbox goes without it.
"""

from __future__ import annotations

import errno
import os
import platform
import struct
from functools import cache

# Classic BPF, as seccomp reads it: struct sock_filter { u16 code; u8 jt; u8 jf; u32 k; }.
_LOAD_WORD = 0x20  # BPF_LD | BPF_W | BPF_ABS
_JUMP_EQUAL = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_JUMP_GREATER = 0x25  # BPF_JMP | BPF_JGT | BPF_K
_JUMP_AT_LEAST = 0x35  # BPF_JMP | BPF_JGE | BPF_K
_JUMP_ANY_BIT = 0x45  # BPF_JMP | BPF_JSET | BPF_K
_RETURN = 0x06  # BPF_RET | BPF_K

_KILL_PROCESS = 0x80000000
_ALLOW = 0x7FFF0000
_ERRNO = 0x00050000

# struct seccomp_data: int nr; u32 arch; u64 instruction_pointer; u64 args[6] (little-endian).
_NUMBER, _ARCH, _FIRST_ARGUMENT = 0, 4, 16

_AUDIT_ARCH_X86_64 = 0xC000003E
_X32_BIT = 0x40000000
_CLONE, _CLONE3, _SOCKET, _SOCKETPAIR = 56, 435, 41, 53
_PREADV2, _PWRITEV2 = 327, 328
_RWF_NOWAIT = 0x8
_SIXTH_ARGUMENT = _FIRST_ARGUMENT + 5 * 8  # preadv2's and pwritev2's flags (their low 32 bits)
_NAMESPACE_FLAGS = 0x7E020080  # CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET, NEWTIME
SOCKET_FAMILIES = {"unix": 1, "inet": 2, "inet6": 10}
"""The socket families a sandboxed bot may use (AF_UNIX, AF_INET, AF_INET6)."""

ALLOWED_X86_64 = {
    # files
    "read": 0, "write": 1, "open": 2, "openat": 257, "openat2": 437, "close": 3, "close_range": 436, "lseek": 8,
    "pread64": 17, "pwrite64": 18, "readv": 19, "writev": 20, "preadv": 295, "pwritev": 296, "stat": 4,
    "fstat": 5, "lstat": 6, "newfstatat": 262, "statx": 332, "statfs": 137,
    "fstatfs": 138, "access": 21, "faccessat": 269, "faccessat2": 439, "readlink": 89, "readlinkat": 267,
    "getdents": 78, "getdents64": 217, "fcntl": 72, "flock": 73, "dup": 32, "dup2": 33, "dup3": 292, "pipe": 22,
    "pipe2": 293, "mkdir": 83, "mkdirat": 258, "rmdir": 84, "unlink": 87, "unlinkat": 263, "rename": 82,
    "renameat": 264, "renameat2": 316, "link": 86, "linkat": 265, "symlink": 88, "symlinkat": 266, "chmod": 90,
    "fchmod": 91, "fchmodat": 268, "fchmodat2": 452, "chown": 92, "fchown": 93, "lchown": 94, "fchownat": 260,
    "truncate": 76, "ftruncate": 77, "fsync": 74, "fdatasync": 75, "sync_file_range": 277, "fallocate": 285,
    "utime": 132, "utimes": 235, "utimensat": 280, "futimesat": 261, "getcwd": 79, "chdir": 80, "fchdir": 81,
    "umask": 95, "ioctl": 16, "sendfile": 40, "splice": 275, "tee": 276, "vmsplice": 278, "copy_file_range": 326,
    "memfd_create": 319, "getxattr": 191, "lgetxattr": 192, "fgetxattr": 193,
    "listxattr": 194, "llistxattr": 195, "flistxattr": 196, "mknod": 133, "mknodat": 259, "inotify_init": 253,
    "inotify_init1": 294, "inotify_add_watch": 254, "inotify_rm_watch": 255,
    # memory
    "brk": 12, "mmap": 9, "munmap": 11, "mremap": 25, "mprotect": 10, "madvise": 28, "msync": 26,
    "mlock": 149, "mlock2": 325, "munlock": 150, "mlockall": 151, "munlockall": 152, "membarrier": 324,
    "get_mempolicy": 239, "set_mempolicy": 238, "mbind": 237, "pkey_alloc": 330, "pkey_free": 331,
    "pkey_mprotect": 329,
    # processes and threads (clone: see `program`)
    "fork": 57, "vfork": 58, "execve": 59, "execveat": 322, "exit": 60, "exit_group": 231, "wait4": 61, "waitid": 247,
    "kill": 62, "tkill": 200, "tgkill": 234, "getpid": 39, "getppid": 110, "gettid": 186, "getuid": 102,
    "geteuid": 107, "getgid": 104, "getegid": 108, "getresuid": 118, "getresgid": 120, "getgroups": 115,
    "setuid": 105, "setgid": 106, "setreuid": 113, "setregid": 114, "setresuid": 117, "setresgid": 119,
    "setgroups": 116, "setfsuid": 122, "setfsgid": 123, "capget": 125, "capset": 126, "prctl": 157, "arch_prctl": 158,
    "set_tid_address": 218, "set_robust_list": 273, "get_robust_list": 274, "rseq": 334, "futex": 202,
    "futex_waitv": 449, "sched_yield": 24, "sched_getaffinity": 204, "sched_setaffinity": 203, "sched_getparam": 143,
    "sched_setparam": 142, "sched_getscheduler": 145, "sched_setscheduler": 144, "sched_get_priority_max": 146,
    "sched_get_priority_min": 147, "sched_rr_get_interval": 148, "sched_getattr": 315, "sched_setattr": 314,
    "getpriority": 140, "setpriority": 141, "getrlimit": 97, "setrlimit": 160, "prlimit64": 302, "getrusage": 98,
    "times": 100, "sysinfo": 99, "uname": 63, "setsid": 112, "getsid": 124, "setpgid": 109, "getpgid": 121,
    "getpgrp": 111, "pidfd_open": 434, "pidfd_send_signal": 424, "ioprio_get": 252, "getcpu": 309,
    # signals, time, waiting
    "sigaltstack": 131, "rt_sigaction": 13, "rt_sigprocmask": 14, "rt_sigreturn": 15, "rt_sigsuspend": 130,
    "rt_sigpending": 127, "rt_sigtimedwait": 128, "rt_sigqueueinfo": 129, "rt_tgsigqueueinfo": 297, "pause": 34,
    "alarm": 37, "nanosleep": 35, "clock_nanosleep": 230, "clock_gettime": 228, "clock_getres": 229,
    "gettimeofday": 96, "time": 201, "timer_create": 222, "timer_settime": 223, "timer_gettime": 224,
    "timer_getoverrun": 225, "timer_delete": 226, "timerfd_create": 283, "timerfd_settime": 286,
    "timerfd_gettime": 287, "getitimer": 36, "setitimer": 38, "signalfd": 282, "signalfd4": 289, "eventfd": 284,
    "eventfd2": 290, "epoll_create": 213, "epoll_create1": 291, "epoll_ctl": 233, "epoll_wait": 232,
    "epoll_pwait": 281, "epoll_pwait2": 441, "poll": 7, "ppoll": 271, "select": 23, "pselect6": 270, "getrandom": 318,
    "restart_syscall": 219,
    # System V IPC, in the sandbox's own IPC namespace
    "shmget": 29, "shmat": 30, "shmctl": 31, "shmdt": 67, "semget": 64, "semop": 65, "semctl": 66, "semtimedop": 220,
    "msgget": 68, "msgsnd": 69, "msgrcv": 70, "msgctl": 71,
    # sockets (socket and socketpair: see `program`)
    "bind": 49, "listen": 50, "accept": 43, "accept4": 288, "connect": 42, "getsockname": 51, "getpeername": 52,
    "setsockopt": 54, "getsockopt": 55, "sendto": 44, "recvfrom": 45, "sendmsg": 46, "recvmsg": 47, "sendmmsg": 307,
    "recvmmsg": 299, "shutdown": 48,
}
"""The system calls a sandboxed bot may make whatever their arguments, by name, with their x86_64 numbers."""


def _instruction(code: int, k: int, jump_true: int = 0, jump_false: int = 0) -> bytes:
    return struct.pack("<HBBI", code, jump_true, jump_false, k)


def _ranges(numbers: set[int]) -> list[tuple[int, int]]:
    """Runs of consecutive numbers, lowest first: [(0, 3), (5, 5)] for {0, 1, 2, 3, 5}."""
    runs: list[tuple[int, int]] = []
    for number in sorted(numbers):
        if runs and number == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], number)
        else:
            runs.append((number, number))
    return runs


def program(allowed: dict[str, int]) -> bytes:
    """The x86_64 filter program allowing `allowed` (see the module docstring for the rest)."""
    families = list(SOCKET_FAMILIES.values())
    head = [
        _instruction(_LOAD_WORD, _ARCH),
        _instruction(_JUMP_EQUAL, _AUDIT_ARCH_X86_64, 1, 0),
        _instruction(_RETURN, _KILL_PROCESS),  # another ABI's numbers would mean other calls
        _instruction(_LOAD_WORD, _NUMBER),
        _instruction(_JUMP_AT_LEAST, _X32_BIT, 0, 1),
        _instruction(_RETURN, _KILL_PROCESS),
        _instruction(_JUMP_EQUAL, _CLONE3, 0, 1),
        _instruction(_RETURN, _ERRNO | errno.ENOSYS),  # its flags are behind a pointer: fall back to clone
        _instruction(_JUMP_EQUAL, _CLONE, 0, 4),
        _instruction(_LOAD_WORD, _FIRST_ARGUMENT),  # clone's flags (their low 32 bits)
        _instruction(_JUMP_ANY_BIT, _NAMESPACE_FLAGS, 0, 1),
        _instruction(_RETURN, _ERRNO | errno.EPERM),
        _instruction(_RETURN, _ALLOW),
        _instruction(_JUMP_EQUAL, _PREADV2, 1, 0),
        _instruction(_JUMP_EQUAL, _PWRITEV2, 0, 4),
        _instruction(_LOAD_WORD, _SIXTH_ARGUMENT),
        _instruction(_JUMP_ANY_BIT, _RWF_NOWAIT, 0, 1),
        _instruction(_RETURN, _ERRNO | errno.EPERM),  # would say whether pages are in the page cache
        _instruction(_RETURN, _ALLOW),
        _instruction(_JUMP_EQUAL, _SOCKET, 1, 0),
        _instruction(_JUMP_EQUAL, _SOCKETPAIR, 0, len(families) + 3),
        _instruction(_LOAD_WORD, _FIRST_ARGUMENT),  # the family (an int)
        # Each family found jumps over the ones after it and the refusal, to ALLOW.
        *[_instruction(_JUMP_EQUAL, family, len(families) - index, 0) for index, family in enumerate(families)],
        _instruction(_RETURN, _ERRNO | errno.EAFNOSUPPORT),
        _instruction(_RETURN, _ALLOW),
    ]
    # The allowed numbers as runs, lowest first: below a run (and above the ones before it) is
    # refused, within it allowed, above it the next run decides. DENY and ALLOW close the program.
    runs = _ranges(set(allowed.values()))
    body = []
    for index, (low, high) in enumerate(runs):
        left = 2 * (len(runs) - index)  # instructions from this run's first one to DENY
        body.append(_instruction(_JUMP_AT_LEAST, low, 0, left - 1))
        body.append(_instruction(_JUMP_GREATER, high, 0, left - 1))
    tail = [_instruction(_RETURN, _ERRNO | errno.EPERM), _instruction(_RETURN, _ALLOW)]
    return b"".join(head + body + tail)


@cache
def bot_filter() -> bytes | None:
    """The filter for this machine, or None where the arena has no system-call table for it."""
    if platform.machine() != "x86_64":
        return None
    return program(ALLOWED_X86_64)


def filter_fd() -> int | None:
    """A file descriptor holding the filter, for bubblewrap's `--seccomp FD` (the caller closes it)."""
    code = bot_filter()
    if code is None:
        return None
    fd = os.memfd_create("seka-seccomp")  # handed to bubblewrap with Popen's pass_fds
    os.write(fd, code)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd
