"""The system-call filter's program, run by a small interpreter of the classic BPF it is made of:
every call of the allowlist passes, every other number is refused, and the three calls checked by
their arguments are decided by them. (tests/hostile runs the same program in the kernel.)"""

from __future__ import annotations

import errno
import struct

from arena.isolation._seccomp import ALLOWED_X86_64, SOCKET_FAMILIES, bot_filter, program

_X86_64 = 0xC000003E
_ALLOW, _KILL = 0x7FFF0000, 0x80000000


def _errno(code: int) -> int:
    return 0x00050000 | code


def run(code: bytes, number: int, *args: int, arch: int = _X86_64) -> int:
    """What the program returns for a call: the seccomp action (and errno)."""
    data = struct.pack("<iIQ6Q", number, arch, 0, *(list(args) + [0] * (6 - len(args))))
    instructions = [struct.unpack_from("<HBBI", code, offset) for offset in range(0, len(code), 8)]
    accumulator, counter = 0, 0
    while True:
        op, jump_true, jump_false, k = instructions[counter]
        counter += 1
        if op == 0x20:  # load a word of seccomp_data
            accumulator = struct.unpack_from("<I", data, k)[0]
        elif op == 0x06:
            return k
        else:
            taken = {0x15: accumulator == k, 0x25: accumulator > k, 0x35: accumulator >= k,
                     0x45: bool(accumulator & k)}[op]
            counter += jump_true if taken else jump_false


def test_every_call_of_the_allowlist_passes_and_every_other_is_refused() -> None:
    code = program(ALLOWED_X86_64)
    assert len(code) // 8 < 200  # runs of numbers, not one comparison per call
    checked = {41, 53, 56, 435, 327, 328}  # socket, socketpair, clone, clone3, preadv2, pwritev2
    allowed = set(ALLOWED_X86_64.values())
    for number in range(600):
        expected = _ALLOW if number in allowed else _errno(errno.EPERM)
        if number not in checked:
            assert run(code, number) == expected, number
    refused = {"ptrace": 101, "unshare": 272, "setns": 308, "mount": 165, "keyctl": 250, "bpf": 321,
               "perf_event_open": 298, "io_uring_setup": 425, "userfaultfd": 323, "memfd_secret": 447,
               "listmount": 458, "open_tree_attr": 467, "process_vm_readv": 310, "kexec_load": 246,
               # what tells or moves what the page cache holds
               "mincore": 27, "readahead": 187, "fadvise64": 221, "cachestat": 451}
    assert not allowed & set(refused.values())
    for number in refused.values():
        assert run(code, number) == _errno(errno.EPERM)


def test_calls_checked_by_their_arguments_and_other_abis() -> None:
    code = bot_filter()
    assert code is not None
    for family in SOCKET_FAMILIES.values():
        assert run(code, 41, family, 1) == run(code, 53, family, 1) == _ALLOW
    for family in (40, 16, 17, 31, 0, 1 << 20):  # vsock, netlink, packet, bluetooth, unspecified, junk
        assert run(code, 41, family, 1) == run(code, 53, family, 1) == _errno(errno.EAFNOSUPPORT)
    assert run(code, 56, 0x11) == _ALLOW  # a fork by clone (SIGCHLD)
    assert run(code, 56, 0x3D0F00) == _ALLOW  # a thread
    assert run(code, 56, 0x10000000 | 0x11) == _errno(errno.EPERM)  # CLONE_NEWUSER
    assert run(code, 435) == _errno(errno.ENOSYS)
    rwf_hipri, rwf_nowait = 0x1, 0x8
    for number in (327, 328):  # preadv2, pwritev2: RWF_NOWAIT would tell whether pages are cached
        assert run(code, number, 3, 0, 1, 0, 0, 0) == run(code, number, 3, 0, 1, 0, 0, rwf_hipri) == _ALLOW
        assert run(code, number, 3, 0, 1, 0, 0, rwf_nowait) == _errno(errno.EPERM)
        assert run(code, number, 3, 0, 1, 0, 0, rwf_nowait | rwf_hipri) == _errno(errno.EPERM)
    assert run(code, 0x40000000 | 39) == _KILL  # x32's getpid
    assert run(code, 20, arch=0x40000003) == _KILL  # i386
