"""Each hostile bot, in a session with a well-behaved one: its attack fails or is stopped, its
fault (if any) is recorded with its type, the other bot plays the session out without a fault,
and (checked by conftest) nothing of it survives and the machine gets its resources back.

Resource attacks run under `limits` and `sandbox`; the others under `sandbox`, with `limits` as
the control where the attack does succeed there (the network).
"""

from __future__ import annotations

import platform
import signal
import socket
from pathlib import Path

import pytest

from arena.engine import GEORGIAN, Rules
from arena.isolation import DEFAULT_LIMITS, BotProcess, Isolation, ProcessLimits
from arena.isolation._sandbox import SOCKET_FOLDER_BYTES
from arena.match import SessionResult, run_session
from arena.transport import MAX_REPLY_BYTES, BotSpec, TimeLimit

from ._support import LIMITS, RELAXED, SANDBOX, TWO_POTS, caller, hostile, reports

BOTH = pytest.mark.parametrize("isolation", [LIMITS, SANDBOX], ids=["limits", "sandbox"])


async def play(tmp_path: Path, bot: BotSpec, *, isolation: Isolation, rules: Rules = TWO_POTS) -> SessionResult:
    """One session: the call bot in seat 0, `bot` in seat 1."""
    return await run_session(rules, [caller(isolation=isolation), bot], seed="hostile", session_id="hostile",
                             log_dir=tmp_path / "logs")


def assert_caller_unharmed(result: SessionResult) -> None:
    call = result.seats[0]
    assert call.telemetry["faults"] == {} and call.dead is None, call
    assert call.telemetry["decisions"] > 0


@BOTH
async def test_a_fork_bomb_stops_at_the_process_limit(tmp_path: Path, isolation: Isolation) -> None:
    bomb = hostile("bomb", "fork_bomb.py", isolation=isolation, limit=RELAXED)  # the default limit: 64
    result = await play(tmp_path, bomb, isolation=isolation)
    assert_caller_unharmed(result)
    [report] = reports(tmp_path / "logs", "bomb", "fork-bomb")
    # The bot's own threads count against the limit too.
    assert 0 < report["children"] < DEFAULT_LIMITS.processes == 64, report
    assert "Resource temporarily unavailable" in report["stopped"], report


@BOTH
async def test_a_memory_hog_is_killed_at_the_memory_limit(tmp_path: Path, isolation: Isolation) -> None:
    hog = hostile("hog", "memory_hog.py", isolation=isolation, limit=RELAXED, process=ProcessLimits(memory_mb=192))
    result = await play(tmp_path, hog, isolation=isolation)
    assert_caller_unharmed(result)
    seat = result.seats[1]
    assert seat.telemetry["faults"].get("crash", 0) >= 1 and set(seat.telemetry["faults"]) == {"crash"}, seat
    assert seat.dead is not None and "killed by SIGKILL" in seat.dead, seat.dead
    assert "out of memory at the 192 MiB limit" in seat.dead, seat.dead
    steps = reports(tmp_path / "logs", "hog", "memory-hog")
    assert steps and max(step.get("mib", 0) for step in steps) < 192 and not any("reached" in step for step in steps)


@BOTH
async def test_a_cpu_spinner_times_out_then_is_killed_at_its_cpu_time_limit(
        tmp_path: Path, isolation: Isolation) -> None:
    # Two seconds of CPU: its start-up (Python and gRPC) takes a fraction of one even on a slow core.
    spinner = hostile("spinner", "cpu_spinner.py", isolation=isolation,
                      limit=TimeLimit(decision_ms=200, start_ms=10_000),
                      process=ProcessLimits(cpu_seconds=2))
    # Enough pots for the limit to strike in play (it folds each at 0.2 s, and at once when dead).
    result = await play(tmp_path, spinner, isolation=isolation,
                        rules=GEORGIAN.with_table(pots_per_session=30, max_actions=12))
    assert_caller_unharmed(result)
    seat = result.seats[1]
    faults = seat.telemetry["faults"]
    assert faults.get("timeout", 0) >= 1 and faults.get("crash", 0) >= 1 and set(faults) == {"timeout", "crash"}
    assert seat.dead is not None and "CPU time limit of 2 s" in seat.dead, seat.dead
    assert "SIGXCPU" in seat.dead or "SIGKILL" in seat.dead, seat.dead
    assert reports(tmp_path / "logs", "spinner", "cpu-spinner")


async def test_a_stdout_flood_is_capped_and_play_goes_on(tmp_path: Path, launched: list[BotProcess]) -> None:
    cap = 100_000
    flood = hostile("flood", "stdout_flood.py", limit=RELAXED, process=ProcessLimits(log_bytes=cap))
    result = await play(tmp_path, flood, isolation=SANDBOX)
    assert_caller_unharmed(result)
    assert result.seats[1].telemetry["faults"] == {} and result.seats[1].dead is None
    log = (tmp_path / "logs" / "flood.stdout.log").read_bytes()
    process = next(process for process in launched if process.name == "flood")
    assert process.dropped_bytes > 10 * cap, process.dropped_bytes  # it did flood
    assert log[:cap] == b"x" * cap
    assert log[cap:] == f"\n[seka-arena: {process.dropped_bytes} bytes past the {cap}-byte cap dropped]\n".encode()


X86_64 = pytest.mark.skipif(platform.machine() != "x86_64",
                            reason="the system-call filter, and the prober's call numbers, are x86_64's")


@X86_64
@pytest.mark.parametrize("isolation", [LIMITS, SANDBOX], ids=["limits-lets-it", "sandbox-does-not"])
async def test_kernel_interfaces_a_bot_has_no_use_for_are_refused_in_the_sandbox(tmp_path: Path,
                                                                                isolation: Isolation) -> None:
    args = ("--ptrace",) if isolation is SANDBOX else ()  # outside, its parent would become its tracer
    prober = hostile("prober", "syscall_prober.py", *args, isolation=isolation, limit=RELAXED)
    result = await play(tmp_path, prober, isolation=isolation)
    assert_caller_unharmed(result)
    assert result.seats[1].telemetry["faults"] == {} and result.seats[1].dead is None
    (found,) = reports(tmp_path / "logs", "prober", "syscalls")
    if isolation is SANDBOX:
        assert found == {"unshare": "EPERM", "keyctl": "EPERM", "io_uring_setup": "EPERM", "clone3": "ENOSYS",
                         "clone_newuser": "EPERM", "ptrace": "EPERM", "memfd_secret": "EPERM",
                         "listmount": "EPERM", "open_tree_attr": "EPERM"}, found
    else:  # the control: the same calls work (clone3 and the newer ones refuse their invalid arguments)
        assert found == {"unshare": "ok", "keyctl": "ok", "io_uring_setup": "ok", "clone3": "EINVAL",
                         "clone_newuser": "ok", "memfd_secret": "EINVAL", "listmount": "EINVAL",
                         "open_tree_attr": "EINVAL"}, found


@X86_64
async def test_a_system_call_of_another_abi_kills_a_sandboxed_bot(tmp_path: Path) -> None:
    prober = hostile("prober", "syscall_prober.py", "--x32", limit=RELAXED)
    result = await play(tmp_path, prober, isolation=SANDBOX)
    assert_caller_unharmed(result)
    assert result.seats[1].telemetry["faults"].get("crash", 0) >= 1, result.seats[1]
    assert "SIGSYS" in str(result.seats[1].dead), result.seats[1].dead
    assert reports(tmp_path / "logs", "prober", "x32") == []  # it did not live to report


@pytest.mark.parametrize("isolation", [LIMITS, SANDBOX], ids=["limits-lets-it", "sandbox-does-not"])
async def test_a_bot_can_create_nothing_in_its_socket_folder_once_it_listens(tmp_path: Path,
                                                                            isolation: Isolation) -> None:
    filler = hostile("filler", "disk_filler.py", isolation=isolation, limit=RELAXED)
    result = await play(tmp_path, filler, isolation=isolation)
    assert_caller_unharmed(result)
    assert result.seats[1].telemetry["faults"] == {} and result.seats[1].dead is None
    turns = reports(tmp_path / "logs", "filler", "disk-filler")
    assert turns
    for turn in turns:
        assert turn["appended"] == 100  # the file it held open stays its own, capped by file_size_mb
        if isolation is SANDBOX:  # what it made before it listened is gone too
            assert turn["created"] == [] and turn["listing"] == ["bot.sock"], turn
        else:  # the control: the same bot, under limits, fills the folder
            assert turn["created"] == ["socket folder", "its folder"] and "stash" in turn["listing"], turn


@pytest.mark.parametrize("isolation", [LIMITS, SANDBOX], ids=["limits-lets-it", "sandbox-does-not"])
async def test_a_file_opened_in_the_socket_folder_before_listening_cannot_fill_the_host_disk(
        tmp_path: Path, isolation: Isolation) -> None:
    filler = hostile("filler", "disk_filler.py", "--fill", isolation=isolation, limit=RELAXED)
    result = await play(tmp_path, filler, isolation=isolation)
    assert_caller_unharmed(result)
    assert result.seats[1].telemetry["faults"] == {} and result.seats[1].dead is None
    [report] = reports(tmp_path / "logs", "filler", "disk-fill")
    if isolation is SANDBOX:  # the socket folder is a small file system in memory, charged to the bot
        assert report == {"bytes": SOCKET_FOLDER_BYTES, "error": "OSError: [Errno 28] No space left on device"}
    else:  # the control: under limits the same bot writes 32 MiB to the host's disk
        assert report == {"bytes": 32 << 20, "error": None}, report


@pytest.mark.parametrize("isolation", [LIMITS, SANDBOX], ids=["limits-reaches-it", "sandbox-does-not"])
async def test_a_network_prober_cannot_reach_the_host_from_the_sandbox(tmp_path: Path, isolation: Isolation) -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(256)  # room for every probe: the test accepts them only after the session
        listener.setblocking(False)
        port = listener.getsockname()[1]
        prober = hostile("prober", "net_prober.py", str(port), isolation=isolation, limit=RELAXED)
        result = await play(tmp_path, prober, isolation=isolation)
        accepted = 0
        while True:
            try:
                connection, _ = listener.accept()
            except BlockingIOError:
                break
            connection.close()
            accepted += 1
    assert_caller_unharmed(result)
    probes = reports(tmp_path / "logs", "prober", "net-prober")
    assert len(probes) >= 2  # at start and at its turns
    if isolation is SANDBOX:
        assert accepted == 0 and not any(probe["connected"] for probe in probes), probes
        assert all(probe["interfaces"] == ["lo"] for probe in probes), probes  # only a loopback of its own
    else:  # the control: without a network namespace the same bot gets through
        assert accepted == len(probes) and all(probe["connected"] for probe in probes), probes


@BOTH
async def test_a_bot_ignoring_every_signal_is_killed_with_its_escaped_child(
        tmp_path: Path, isolation: Isolation, launched: list[BotProcess]) -> None:
    immune = hostile("immune", "signal_immune.py", isolation=isolation, limit=RELAXED)
    result = await play(tmp_path, immune, isolation=isolation)
    assert_caller_unharmed(result)
    assert result.seats[1].telemetry["faults"] == {}
    [report] = reports(tmp_path / "logs", "immune", "signal-immune")
    assert report["ignored"] > 20
    process = next(process for process in launched if process.name == "immune")
    # The bot outlasts SIGTERM and the grace period at every level (in the sandbox SIGTERM spares
    # bubblewrap, which waits for the bot); SIGKILL ends it, and the kernel its pid namespace.
    assert process.returncode == -signal.SIGKILL


async def test_a_reply_over_the_size_limit_is_malformed(tmp_path: Path) -> None:
    huge = hostile("huge", "huge_reply.py", limit=RELAXED)
    result = await play(tmp_path, huge, isolation=SANDBOX)
    assert_caller_unharmed(result)
    seat = result.seats[1]
    assert set(seat.telemetry["faults"]) == {"malformed"} and seat.dead is None, seat
    assert reports(tmp_path / "logs", "huge", "huge-reply")[0]["bytes"] > 8 * MAX_REPLY_BYTES


async def test_a_reply_after_the_deadline_is_a_timeout_and_later_replies_count(tmp_path: Path) -> None:
    # Its late answer comes 0.2 s past the deadline, so its next call waits for it (the SDK answers
    # one call at a time) at most that long, well within the limit.
    late = hostile("late", "late_replier.py", "0.7", limit=TimeLimit(decision_ms=500, start_ms=10_000))
    result = await play(tmp_path, late, isolation=SANDBOX)
    assert_caller_unharmed(result)
    seat = result.seats[1]
    assert seat.telemetry["faults"] == {"timeout": 1} and seat.dead is None, seat
    assert seat.telemetry["decisions"] >= 1  # answered in time after the late one
    assert reports(tmp_path / "logs", "late", "late-replier") == [{"late": True}]
