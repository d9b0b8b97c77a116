"""The system-call filter of sandboxed bots: a seccomp BPF program that bubblewrap installs.

A bot needs ordinary system calls only. The namespaces already keep it from the host's files,
network and processes; this filter takes away the kernel interfaces that a bot has no use for
and that widen the kernel's attack surface most: new namespaces (`unshare`, `setns`, `clone` with
namespace flags; `clone3` reports ENOSYS so that the C library falls back to `clone`), tracing
and reading other processes (`ptrace`, `process_vm_*`, `kcmp`), kernel keyrings, BPF, perf
events, io_uring, userfaultfd, the mount API, modules, kexec, swap, accounting, the clock, raw
I/O ports and the kernel log. They fail with EPERM. A system call of another ABI than the
arena's own (32-bit or x32 calls from a 64-bit process) kills the bot.

The program is built by hand (no libseccomp binding is needed) for x86_64, the machines the
arena runs on; elsewhere `deny_filter` returns None and the sandbox goes without it.
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
_CLONE, _CLONE3 = 56, 435
_NAMESPACE_FLAGS = 0x7E020080  # CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET, NEWTIME

DENIED_X86_64 = {
    "ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311, "kcmp": 312,
    "unshare": 272, "setns": 308,
    "mount": 165, "umount2": 166, "pivot_root": 155, "chroot": 161, "open_tree": 428, "move_mount": 429,
    "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433, "mount_setattr": 442,
    "keyctl": 250, "add_key": 248, "request_key": 249,
    "bpf": 321, "perf_event_open": 298, "userfaultfd": 323,
    "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
    "kexec_load": 246, "kexec_file_load": 320, "init_module": 175, "finit_module": 313, "delete_module": 176,
    "reboot": 169, "swapon": 167, "swapoff": 168, "acct": 163, "quotactl": 179, "quotactl_fd": 443,
    "open_by_handle_at": 304, "name_to_handle_at": 303, "lookup_dcookie": 212, "syslog": 103,
    "iopl": 172, "ioperm": 173, "modify_ldt": 154, "vhangup": 153, "uselib": 134, "_sysctl": 156,
    "settimeofday": 164, "clock_settime": 227, "clock_adjtime": 305, "adjtimex": 159, "fanotify_init": 300,
}
"""The system calls a sandboxed bot is refused (EPERM), by name, with their x86_64 numbers."""


def _instruction(code: int, k: int, jump_true: int = 0, jump_false: int = 0) -> bytes:
    return struct.pack("<HBBI", code, jump_true, jump_false, k)


def program(denied: dict[str, int]) -> bytes:
    """The x86_64 filter program refusing `denied` (see the module docstring for the rest)."""
    count = len(denied)
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
    ]
    # Each comparison jumps over the ones after it and the ALLOW to the final EPERM.
    body = [_instruction(_JUMP_EQUAL, number, count - index, 0) for index, number in enumerate(denied.values())]
    tail = [_instruction(_RETURN, _ALLOW), _instruction(_RETURN, _ERRNO | errno.EPERM)]
    return b"".join(head + body + tail)


@cache
def deny_filter() -> bytes | None:
    """The filter for this machine, or None where the arena has no system-call table for it."""
    if platform.machine() != "x86_64":
        return None
    return program(DENIED_X86_64)


def filter_fd() -> int | None:
    """A file descriptor holding the filter, for bubblewrap's `--seccomp FD` (the caller closes it)."""
    code = deny_filter()
    if code is None:
        return None
    fd = os.memfd_create("seka-seccomp")  # handed to bubblewrap with Popen's pass_fds
    os.write(fd, code)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd
