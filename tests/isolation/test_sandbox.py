"""The isolation levels' building blocks, without launching anything: limits, launch chains,
the sandbox's view of the file system, and the errors that say what a machine lacks."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import trio

from arena.isolation import (
    DEFAULT_LIMITS,
    BotProcess,
    Isolation,
    ProcessLimits,
    SandboxError,
    _sandbox,
    isolation_problem,
    remove_stale_folders,
    session_folder,
    verify_bot_folders,
)
from arena.isolation._process import describe_exit, launch_prefix
from arena.isolation._sandbox import (
    DEFAULT_UIDS,
    UIDS_ENV,
    Cgroup,
    UidLease,
    bot_paths,
    sandbox_argv,
    sandbox_env,
    sandbox_uids,
)

from ..match._support import wait_until

ROOT = Path(__file__).resolve().parents[2]
ARENA = ROOT / "arena"
CALL_BOT = ROOT / "sample_bots" / "call_bot.py"
needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None,
                                 reason="needs bubblewrap (make test installs it as root)")


def test_none_applies_only_what_is_configured_and_the_others_fill_in_defaults() -> None:
    configured = ProcessLimits(memory_mb=256, log_bytes=10)
    assert configured.effective(Isolation.NONE) == configured
    for level in (Isolation.LIMITS, Isolation.SANDBOX):
        assert configured.effective(level) == ProcessLimits(cpu_seconds=300, memory_mb=256, processes=64,
                                                            open_files=256, file_size_mb=64, cpus=1.0, log_bytes=10)
    assert DEFAULT_LIMITS.effective(Isolation.LIMITS) == DEFAULT_LIMITS


def test_without_a_control_group_memory_is_address_space_and_with_one_it_is_not() -> None:
    limits = ProcessLimits(cpu_seconds=5, memory_mb=2, open_files=64, file_size_mb=1)
    assert launch_prefix(limits) == ["setpriv", "--pdeathsig", "KILL", "--", "prlimit", "--cpu=5:6",
                                     "--as=2097152:2097152", "--nofile=64:64", "--fsize=1048576:1048576", "--"]
    cgroup = Cgroup("seka-arena-1-1-bot", [(1, frozenset({"memory"}), Path("/cg/memory/x")),
                                           (1, frozenset({"pids"}), Path("/cg/pids/x y"))], limits)
    prefix = launch_prefix(limits, cgroup=cgroup)
    # The parent-death signal first, then the group is joined before anything else runs.
    assert prefix[:8] == ["setpriv", "--pdeathsig", "KILL", "--", "/bin/sh", "-c",
                          "echo $$ > /cg/memory/x/cgroup.procs && echo $$ > '/cg/pids/x y/cgroup.procs' && exec \"$@\"",
                          "sh"]
    assert prefix[8:] == ["prlimit", "--cpu=5:6", "--nofile=64:64", "--fsize=1048576:1048576", "--"]


def test_the_sandbox_reports_a_signal_as_128_plus_its_number() -> None:
    assert describe_exit(128 + 24, sandboxed=True) == "killed by SIGXCPU (exit status 152 from the sandbox)"
    assert describe_exit(3, sandboxed=True) == "exit status 3"
    assert describe_exit(152) == "exit status 152"


def test_the_sandbox_environment_is_small() -> None:
    env = sandbox_env({"DEPTH": "3", "HOME": "/elsewhere", "SEKA_BOT_ADDRESS": "mine"}, address_env="SEKA_BOT_ADDRESS",
                      address="unix:/s/bot.sock")
    assert set(env) == {"PATH", "HOME", "LANG", "DEPTH", "SEKA_BOT_ADDRESS"}
    assert env["HOME"] == "/elsewhere" and env["SEKA_BOT_ADDRESS"] == "unix:/s/bot.sock"


def test_a_bot_sees_the_folders_of_the_files_its_command_names(tmp_path: Path) -> None:
    (tmp_path / "bot").mkdir()
    (tmp_path / "bot" / "main.py").write_text("")
    (tmp_path / "data").mkdir()
    argv = [sys.executable, "bot/main.py", "--book", "data", "--depth", "3", "missing.txt"]
    found = bot_paths(argv, cwd=tmp_path, env={})
    assert tmp_path / "bot" in found and tmp_path / "data" in found
    assert Path(sys.executable).parent in found and tmp_path not in found


def _binds(command: list[str], kind: str) -> list[str]:
    return [command[index + 1] for index, word in enumerate(command) if word == kind]


@needs_bwrap
def test_the_sandbox_command_binds_only_what_the_bot_needs(tmp_path: Path) -> None:
    sockets = tmp_path / "sockets" / "call-1"
    sockets.mkdir(parents=True)
    sandboxed = sandbox_argv([sys.executable, str(CALL_BOT)], uid=2_000_000_123, cwd=ROOT, env={}, writable=sockets)
    command = sandboxed.argv
    assert command[0].endswith("bwrap") and sandboxed.copies == []
    for flag in ("--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--die-with-parent"):
        assert flag in command
    readonly = _binds(command, "--ro-bind")
    assert set(readonly) >= {sys.base_prefix, sys.prefix, str(ARENA), str(ROOT / "sample_bots")}
    assert str(ROOT) not in readonly and str(ROOT / "tests") not in readonly  # not the whole repository
    assert _binds(command, "--bind") == [str(sockets)]
    # Every folder on the way to a mount point is crossable by the bot's uid.
    made = _binds(command, "--dir")
    assert str(tmp_path) in made and str(tmp_path / "sockets") in made
    user = command.index("setpriv")
    assert command[user:user + 3] == ["setpriv", "--reuid=2000000123", "--regid=2000000123"]
    assert command[-2:] == [sys.executable, str(CALL_BOT)]
    assert command[command.index("--chdir") + 1] == str(ROOT)
    # Machine-wide counters a bot does not need are empty folders.
    assert _binds(command, "--tmpfs") == ["/tmp", "/proc/sys", "/dev/pts"]


@needs_bwrap
def test_the_sandbox_shows_a_bot_copies_of_its_own_folders_and_the_shared_ones_in_place(tmp_path: Path) -> None:
    sockets = tmp_path / "sockets" / "call-1"
    sockets.mkdir(parents=True)
    copies = tmp_path / "sockets" / "call-1.copies"
    sandboxed = sandbox_argv([sys.executable, str(CALL_BOT)], uid=2_000_000_123, cwd=ROOT, env={}, writable=sockets,
                             copies=copies)
    assert sandboxed.copies == [(ROOT / "sample_bots", copies / "0")]
    words = sandboxed.argv
    binds = [(words[index + 1], words[index + 2]) for index, word in enumerate(words) if word == "--ro-bind"]
    assert (str(copies / "0"), str(ROOT / "sample_bots")) in binds
    assert (str(ARENA), str(ARENA)) in binds and (sys.prefix, sys.prefix) in binds  # shared: in place


@needs_bwrap
def test_the_sandbox_refuses_a_bot_folder_that_would_show_other_bots_sockets(tmp_path: Path) -> None:
    (tmp_path / "bot.py").write_text("")
    sockets = tmp_path / "sockets" / "bot-1"
    sockets.mkdir(parents=True)
    with pytest.raises(SandboxError, match="would show .*sockets.* keep each bot in a folder of its own"):
        sandbox_argv([sys.executable, "bot.py"], uid=2_000_000_123, cwd=tmp_path, env={}, writable=sockets)


def test_a_machine_without_cgroup_controllers_is_told_what_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_sandbox, "_hierarchies", lambda: [])
    monkeypatch.setattr(_sandbox.os, "geteuid", lambda: 0)
    _sandbox._placement.cache_clear()
    try:
        problem = isolation_problem(Isolation.LIMITS)
        assert problem is not None and "need the cgroup controllers memory and pids" in problem
        assert "missing: memory, pids" in problem
        assert isolation_problem(Isolation.NONE) is None
    finally:
        _sandbox._placement.cache_clear()


def test_the_sandbox_needs_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_sandbox.os, "geteuid", lambda: 1000)
    _sandbox._placement.cache_clear()
    try:
        assert "need the arena to run as root" in (isolation_problem(Isolation.SANDBOX) or "")
    finally:
        _sandbox._placement.cache_clear()


def test_a_tournaments_isolation_and_limits_reach_each_bots_spec() -> None:
    from arena.tournament import Isolation as TournamentIsolation
    from arena.tournament import parse_config
    from arena.tournament._runner import bot_spec

    assert TournamentIsolation is Isolation  # one definition
    config = parse_config("name: x\nparticipants:\n  - {name: a, address: 'h:1'}\n"
                          "  - {name: b, address: 'h:2', limits: {processes: 8, file_size_mb: null}}\n"
                          "limits: {memory_mb: 256, processes: 32, file_size_mb: 5}\nisolation: sandbox\n")
    a, b = (bot_spec(participant, config.isolation) for participant in config.participants)
    assert a.isolation is b.isolation is Isolation.SANDBOX
    assert a.process == ProcessLimits(memory_mb=256, processes=32, file_size_mb=5)
    assert b.process == ProcessLimits(memory_mb=256, processes=8, file_size_mb=None)


def test_the_uids_of_sandboxed_bots_come_from_a_configurable_range_above_every_user(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(UIDS_ENV, raising=False)
    assert sandbox_uids() == DEFAULT_UIDS and DEFAULT_UIDS.start > 1 << 30 and DEFAULT_UIDS.stop <= 1 << 31
    monkeypatch.setenv(UIDS_ENV, "3000000000-3000000009")
    with pytest.raises(SandboxError, match="above 65534 and below 2\\^31"):
        sandbox_uids()
    for text, problem in (("100-200", "above 65534"), ("2000000000", "FIRST-LAST"), ("a-b", "FIRST-LAST")):
        monkeypatch.setenv(UIDS_ENV, text)
        with pytest.raises(SandboxError, match=problem):
            sandbox_uids()
    monkeypatch.setenv(UIDS_ENV, "2000100000-2000100009")
    assert sandbox_uids() == range(2_000_100_000, 2_000_100_010)


@pytest.mark.skipif(os.geteuid() != 0, reason="switching a process to another uid needs root")
def test_each_lease_is_a_uid_no_process_runs_as_and_no_other_lease_holds(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(UIDS_ENV, "2000100000-2000100002")
    monkeypatch.setattr(_sandbox, "_UID_LOCKS", tmp_path / "uids")
    monkeypatch.setattr(UidLease, "_cursor", 0)
    squatter = subprocess.Popen(["setpriv", "--reuid=2000100000", "--regid=2000100000", "--clear-groups",
                                 "sleep", "30"])
    try:
        assert wait_until(lambda: 2_000_100_000 in _sandbox._uids_running(), within=5.0)
        first, second = UidLease.take(), UidLease.take()
        assert (first.uid, second.uid) == (2_000_100_001, 2_000_100_002)  # the squatter's uid is skipped
        with pytest.raises(SandboxError, match="no free uid left .* widen SEKA_ARENA_UIDS"):
            UidLease.take()
        first.release()
        again = UidLease.take()
        assert again.uid == 2_000_100_001
        again.release()
        second.release()
        assert list((tmp_path / "uids").iterdir()) == []
    finally:
        squatter.kill()
        squatter.wait()


def test_a_bot_command_may_name_nothing_of_the_arenas_in_any_spelling(tmp_path: Path) -> None:
    bot = tmp_path / "bots" / "peeker"
    bot.mkdir(parents=True)
    (bot / "bot.py").write_text("")
    results = tmp_path / "out" / "results" / "t"
    tournament = tmp_path / "t.yaml"
    tournament.write_text("seed: secret\n")
    hidden = [results, tournament]
    python = [sys.executable, "bot.py"]
    assert bot in verify_bot_folders(python, cwd=bot, env={}, hidden=hidden)
    refused = {
        "a folder of the results not made yet": [*python, str(results / "histories")],
        "a file of the results, relative": [*python, "../../out/results/t/tournament.sqlite"],
        "a folder that holds the results": [*python, str(tmp_path / "out")],
        "the folder of the tournament file": [*python, str(tmp_path)],
        "an arena temporary folder": [*python, str(Path(tempfile.gettempdir()) / "seka-abc" / "x")],
        "the uid locks": [*python, "/run/seka-arena"],
    }
    (bot / "data").symlink_to(results.parent)
    refused["a link to the results' parent"] = [*python, "data"]
    for what, argv in refused.items():
        with pytest.raises(SandboxError, match="would show .* to it in the sandbox"):
            verify_bot_folders(argv, cwd=bot, env={}, hidden=hidden)
            pytest.fail(f"{what} is not refused")
    with pytest.raises(SandboxError, match="whole file system"):
        verify_bot_folders([*python, "/"], cwd=bot, env={})


_HOLD_A_FOLDER = """
import sys, time
from pathlib import Path
from arena.isolation import session_folder
from arena.isolation._sandbox import mount_socket_folder
with session_folder() as folder:
    (folder / "bot-1").mkdir()
    mount_socket_folder(folder / "bot-1", 2_000_100_005)
    (folder / "bot-1" / "held.bin").write_bytes(b"x" * 1000)
    print(folder, flush=True)
    time.sleep(60)
"""


@pytest.mark.skipif(os.geteuid() != 0, reason="mounting a socket folder needs root")
def test_the_session_folder_of_an_arena_killed_with_sigkill_is_removed_by_the_next_and_a_live_ones_is_not() -> None:
    arena = subprocess.Popen([sys.executable, "-c", _HOLD_A_FOLDER], stdout=subprocess.PIPE, text=True)
    try:
        assert arena.stdout is not None
        folder = Path(arena.stdout.readline().strip())
        assert folder.name.startswith("seka-") and (folder / "bot-1" / "held.bin").exists()
        assert folder not in remove_stale_folders() and folder.exists()  # its arena is alive
        arena.kill()
        arena.wait()
        remove_stale_folders()  # (another arena running meanwhile may have been first to remove it)
        assert not folder.exists()
        assert not any(str(folder) in line for line in Path("/proc/self/mountinfo").read_text().splitlines())
    finally:
        arena.kill()
        arena.wait()


def test_a_session_folder_is_removed_with_its_session(tmp_path: Path) -> None:
    with session_folder() as folder:
        (folder / "bot-1").mkdir()
        assert folder.is_dir() and folder.parent == Path(tempfile.gettempdir())
    assert not folder.exists()


_READS_ITS_FILE = """\
import os, sys, time
info = os.stat(sys.argv[1])
print(info.st_dev, info.st_ino, len(open(sys.argv[1], "rb").read()), flush=True)
time.sleep(30)
"""


async def test_a_sandboxed_bot_runs_from_a_copy_of_its_folder_charged_to_it_and_removed_after(tmp_path: Path) -> None:
    # No page cache of the bot's own files is shared with its copy in another session: each
    # launch copies its folder into memory its control group pays for.
    if (problem := isolation_problem(Isolation.SANDBOX)) is not None:
        pytest.skip(problem)
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "bot.py").write_text(_READS_ITS_FILE)
    data = folder / "data.bin"
    data.write_bytes(os.urandom(16 << 20))
    with session_folder() as sockets:
        writable = sockets / "bot-1"
        writable.mkdir()
        process = BotProcess.launch([sys.executable, str(folder / "bot.py"), str(data)], name="bot",
                                    log_dir=tmp_path / "logs", cwd=str(folder), isolation=Isolation.SANDBOX,
                                    writable=writable, limits=ProcessLimits(memory_mb=256),
                                    env=sandbox_env({}, address_env="SEKA_BOT_ADDRESS", address="unix:none"))
        copies = writable.with_name("bot-1.copies")
        async with trio.open_nursery() as nursery:
            nursery.start_soon(process.drain_output)
            try:
                log = tmp_path / "logs" / "bot.stdout.log"
                with trio.fail_after(20):
                    while not log.exists() or not log.read_text().endswith("\n"):
                        await trio.sleep(0.05)
                device, inode, size = map(int, log.read_text().split())
                assert size == 16 << 20  # the same file, as the bot sees it
                assert (device, inode) != (os.stat(data).st_dev, os.stat(data).st_ino)  # but a copy
                assert copies.is_dir() and os.stat(copies).st_dev != os.stat(data).st_dev
                assert process.cgroup is not None
                charged = []
                for version, controllers, directory in process.cgroup.directories:
                    if "memory" in controllers:
                        charged.append(int((directory / ("memory.current" if version == 2
                                                         else "memory.usage_in_bytes")).read_text()))
                assert charged and charged[0] >= 16 << 20, charged  # its memory pays for the copy
            finally:
                await process.stop()
        assert not copies.exists()  # taken away once the bot is stopped
