"""A bot that tries kernel interfaces a bot has no use for, once, before it serves.

Each probe is a raw system call through the C library (x86_64 numbers), harmless where it
succeeds: a new user namespace for itself, and for a child it forks with `clone`, a session
keyring of its own, a small io_uring, a `clone3` with no arguments (refused as invalid where it
is allowed), `memfd_secret`, `listmount` and `open_tree_attr` with invalid flags, and
`ptrace(PTRACE_TRACEME)`
(only in the sandbox, where its parent is the sandbox's own init). The report gives each probe's
errno name, or "ok". It then plays like the call bot; with `--x32`, its first turn makes a
call by the x32 ABI's numbering, which the sandbox answers by killing it.
"""

from __future__ import annotations

import ctypes
import errno
import os
import signal
import sys

from _hostile import CallingBot, report

from arena.sdk import Action, Turn, run

_LIBC = ctypes.CDLL(None, use_errno=True)
_LIBC.syscall.restype = ctypes.c_long
_CLONE_NEWUSER = 0x10000000
_KEYCTL_JOIN_SESSION_KEYRING = 1
_X32_GETPID = 0x40000000 | 39


def _probe(number: int, *args: object) -> str:
    result = _LIBC.syscall(ctypes.c_long(number), *args)
    if result < 0:
        return errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno()))
    if number == 425:  # io_uring_setup returned a file descriptor
        os.close(result)
    return "ok"


def _clone_into_new_user_namespace() -> str:
    """A fork (no new stack, no shared memory) whose child starts in a new user namespace."""
    pid = _LIBC.syscall(ctypes.c_long(56), ctypes.c_ulong(_CLONE_NEWUSER | signal.SIGCHLD), ctypes.c_void_p(None),
                        ctypes.c_void_p(None), ctypes.c_void_p(None), ctypes.c_ulong(0))
    if pid == 0:  # the child
        os._exit(0)
    if pid < 0:
        return errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno()))
    os.waitpid(pid, 0)
    return "ok"


def probes(with_ptrace: bool) -> dict[str, str]:
    params = ctypes.create_string_buffer(120)  # struct io_uring_params, zeroed
    found = {  # the clone first: after the unshare, its unmapped user could make no new namespace
        "clone_newuser": _clone_into_new_user_namespace(),
        "unshare": _probe(272, ctypes.c_ulong(_CLONE_NEWUSER)),
        "keyctl": _probe(250, ctypes.c_int(_KEYCTL_JOIN_SESSION_KEYRING), ctypes.c_void_p(None)),
        "io_uring_setup": _probe(425, ctypes.c_uint(1), params),
        "clone3": _probe(435, ctypes.c_void_p(None), ctypes.c_size_t(0)),
        # Newer interfaces: memory hidden even from the kernel, the mount table of the machine, a
        # mount tree of its own with new attributes (all refused as invalid where they are allowed).
        "memfd_secret": _probe(447, ctypes.c_uint(0xFFFF)),
        "listmount": _probe(458, ctypes.c_void_p(None), ctypes.c_void_p(None), ctypes.c_size_t(0),
                            ctypes.c_uint(0xFFFF)),
        "open_tree_attr": _probe(467, ctypes.c_int(-1), ctypes.c_void_p(None), ctypes.c_uint(0xFFFF),
                                 ctypes.c_void_p(None), ctypes.c_size_t(0)),
    }
    if with_ptrace:
        found["ptrace"] = _probe(101, ctypes.c_long(0), ctypes.c_long(0), ctypes.c_void_p(None), ctypes.c_void_p(None))
    return found


class X32Caller(CallingBot):
    """With `--x32`: at its first turn, a system call by the x32 ABI's numbering (getpid)."""

    called = False

    def act(self, turn: Turn) -> Action:
        if not self.called:
            self.called = True
            report("x32", outcome=_probe(_X32_GETPID))  # written only if the bot survives the call
        return super().act(turn)


if __name__ == "__main__":
    report("syscalls", **probes(with_ptrace="--ptrace" in sys.argv))
    run(X32Caller() if "--x32" in sys.argv else CallingBot(), argv=[])
