"""What kept a bot from the CPU, measured on real processes: the kernel's run-queue waits of its
threads (its own CPU quota taken off), and the event loop's own lateness."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import trio

from arena.isolation import BotProcess, Isolation, ProcessLimits, Stopping, isolation_problem
from arena.isolation._fairness import ArenaLag, CpuWatch, arena_lag
from arena.isolation._process import launch_prefix
from arena.isolation._sandbox import Cgroup

CPU = min(os.sched_getaffinity(0))
"""The one CPU the spinners and their victims share."""
_PIN = f"import os, time\nos.sched_setaffinity(0, {{{CPU}}})\n"
_BURN = "end = time.thread_time() + {seconds}\nwhile time.thread_time() < end: pass\n"
SPINNER = _PIN + _BURN.format(seconds=30)
"""Spins on CPU for 30 s at most (killed sooner by the test)."""
BURN_THEN_SLEEP = _PIN + _BURN.format(seconds=0.4) + "time.sleep(60)\n"
"""Uses 0.4 s of CPU on the shared CPU, then sleeps (so that it can still be read)."""
needs_cgroups = pytest.mark.skipif(isolation_problem(Isolation.LIMITS) is not None and not os.environ.get("CI"),
                                   reason=f"needs control groups: {isolation_problem(Isolation.LIMITS)}")


@contextmanager
def python(code: str, *, prefix: list[str] | None = None) -> Iterator[subprocess.Popen[bytes]]:
    process = subprocess.Popen([*(prefix or []), sys.executable, "-c", code], stdout=subprocess.PIPE)
    try:
        yield process
    finally:
        process.kill()
        process.wait()


@contextmanager
def watching(pid: int, **options: Any) -> Iterator[CpuWatch]:
    watch = CpuWatch(pid, **options)
    try:
        yield watch
    finally:
        watch.close()



def wait_for_cpu(pid: int, seconds: float) -> None:
    """Until the process tree of `pid` has used `seconds` of CPU (at most a minute)."""
    with watching(pid) as watch:
        end = time.monotonic() + 60
        while time.monotonic() < end:
            if watch.cpu_seconds() >= seconds:
                return
            time.sleep(0.02)
    raise AssertionError(f"pid {pid} did not use {seconds} s of CPU within a minute")


def test_a_bot_sharing_its_cpu_with_a_spinner_was_kept_from_it() -> None:
    with python(SPINNER), python(BURN_THEN_SLEEP) as bot, watching(bot.pid) as watch:
        mark = watch.mark()
        wait_for_cpu(bot.pid, 0.4)
        kept = watch.kept_since(mark)
    # Its 0.4 s of CPU took turns with the spinner's: it waited about as long again.
    assert kept >= 0.1, kept


def test_a_process_the_bot_started_counts_and_a_sleeping_bot_was_kept_from_nothing() -> None:
    parent = (f"import subprocess, sys, time\nsubprocess.Popen([sys.executable, '-c', {BURN_THEN_SLEEP!r}])\n"
              "time.sleep(60)\n")
    with python(SPINNER), python(parent) as bot, watching(bot.pid) as watch:
        mark = watch.mark()  # before its child exists: the child counts from its start
        wait_for_cpu(bot.pid, 0.4)
        kept = watch.kept_since(mark)
    assert kept >= 0.1, kept

    with python("import time\nprint('ready', flush=True)\ntime.sleep(60)\n") as sleeper, \
            watching(sleeper.pid) as watch:
        assert sleeper.stdout is not None and sleeper.stdout.readline() == b"ready\n"
        mark = watch.mark()
        time.sleep(0.3)
        assert watch.kept_since(mark) < 0.1


def test_the_cpu_a_bot_ran_counts_a_thread_that_started_and_ended_since_the_mark() -> None:
    # A gRPC server may decide on a thread started for the call, which may end before the next listing.
    code = ("import threading, time\nprint('ready', flush=True)\ninput()\n"
            "thread = threading.Thread(target=lambda: exec(" + repr(_BURN.format(seconds=0.3)) + "))\n"
            "thread.start(); thread.join()\nprint('done', flush=True)\ntime.sleep(60)\n")
    process = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert process.stdin is not None and process.stdout is not None
        assert process.stdout.readline() == b"ready\n"
        with watching(process.pid) as watch:
            mark = watch.mark()
            process.stdin.write(b"go\n")
            process.stdin.flush()
            assert process.stdout.readline() == b"done\n"
            ran = watch.ran_since(mark)
    finally:
        process.kill()
        process.wait()
    assert 0.29 <= ran < 1.0, ran


@needs_cgroups
def test_time_held_back_by_the_bots_own_cpu_quota_is_not_counted() -> None:
    # Under a quota of a tenth of a core, a spinner spends its quota and waits the rest of the time.
    limits = ProcessLimits(cpus=0.1)
    cgroup = Cgroup.create("quota-test", limits)
    try:
        if cgroup.cpu_quota is None:
            pytest.skip("no cpu controller")
        with python("while True: pass", prefix=launch_prefix(limits, cgroup=cgroup)) as bot, \
                watching(bot.pid, threads_file=cgroup.threads_file, cpus=cgroup.cpu_quota) as watch:
            wait_for_cpu(bot.pid, 0.05)  # in the group and spinning
            mark = watch.mark()
            time.sleep(1.0)
            kept = watch.kept_since(mark)
            waited = sum(wait - mark.threads[tid][1] for tid, (_, wait) in watch.mark().threads.items()) / 1e9
    finally:
        cgroup.kill_all()
        trio.run(cgroup.close)
    assert waited >= 0.5, waited  # the run queue's view: it waited most of the second
    # but it had its tenth of a core (less whatever the machine's load took from it): at most that
    # tenth of the second is counted.
    assert kept <= 0.1 * 1.0 + 0.02, (kept, waited)


@needs_cgroups
def test_a_waiting_bots_group_gets_a_small_cpu_weight_and_a_deciding_one_the_default() -> None:
    cgroup = Cgroup.create("weight-test", ProcessLimits(cpus=1.0))
    try:
        files = [directory / ("cpu.shares" if version == 1 else "cpu.weight")
                 for version, controllers, directory in cgroup.directories if "cpu" in controllers]
        if not files:
            pytest.skip("no cpu controller")
        default = files[0].read_text()
        cgroup.set_waiting(True)
        assert int(default) // int(files[0].read_text()) == 16
        cgroup.set_waiting(False)
        assert files[0].read_text() == default
    finally:
        cgroup.discard()


async def test_the_event_loop_s_lateness_is_measured() -> None:
    lag = arena_lag()
    assert arena_lag() is lag  # one per run
    await trio.sleep(0.05)
    lag.take_worst()
    before = lag.loop_total()
    time.sleep(0.3)  # the loop is held up: nothing else can run
    assert lag.loop_total() - before >= 0.25  # counted even before the monitor has woken up
    await trio.sleep(0.05)
    assert lag.take_worst() >= 0.25


def test_grpcio_s_threads_waiting_for_a_cpu_make_the_arena_late_and_other_threads_do_not() -> None:
    burned, measured = threading.Event(), threading.Event()
    waited: list[float] = []

    def hash_on_the_shared_cpu(name: str) -> None:  # grpcio's threads work without the GIL; so does hashing
        tid = threading.get_native_id()
        Path(f"/proc/self/task/{tid}/comm").write_text(name)
        os.sched_setaffinity(tid, {CPU})
        data = bytes(1 << 20)
        end = time.thread_time() + 0.4
        while time.thread_time() < end:
            hashlib.sha256(data)
        waited.append(int(Path(f"/proc/self/task/{tid}/schedstat").read_text().split()[1]) / 1e9)
        burned.set()
        measured.wait(timeout=60)  # alive until read: the waits of a thread that is gone are lost

    for name, late in (("event_engine", True), ("sqlite-writer", False)):
        burned.clear()
        measured.clear()
        waited.clear()
        with python(SPINNER):
            worker = threading.Thread(target=hash_on_the_shared_cpu, args=(name,))
            worker.start()
            try:
                time.sleep(0.05)  # named
                lag = ArenaLag()  # read directly (no event loop needed), listing the threads now
                before = lag.engine_total(fresh=True)
                assert burned.wait(timeout=60)
                after = lag.engine_total(fresh=True)
            finally:
                measured.set()
                worker.join(timeout=60)
        # 0.4 s of CPU, taking turns with the spinner: it waited about as long. Counted only for
        # grpcio's threads (the test's process may hold some of its own from other tests).
        assert waited[0] >= 0.2, waited
        assert (after - before >= waited[0] - 0.1) if late else (after - before < waited[0] / 2), (
            name, after - before, waited)


STOPS_SLOWLY = _PIN + f"""import signal, sys
def stop(*_):
    {_BURN.format(seconds=0.3).replace(chr(10), chr(10) + '    ')}sys.exit(0)
signal.signal(signal.SIGTERM, stop)
print("ready", flush=True)
time.sleep(60)
"""
"""On SIGTERM, uses 0.3 s of CPU on the shared CPU (tidying up), then exits."""


async def test_a_bot_kept_from_the_cpu_while_it_stops_gets_that_time_back_before_sigkill(tmp_path: Path) -> None:
    # Three spinners share the bot's CPU: it gets about a quarter, so its 0.3 s of CPU take about 1.2 s,
    # beyond the 0.5 s grace; the time it was kept waiting is given back, so it ends on SIGTERM as a bot on
    # a quiet machine would (before, it was SIGKILLed and check-bot warned its author).
    process = BotProcess.launch([sys.executable, "-c", STOPS_SLOWLY], name="bot", log_dir=tmp_path / "logs")
    async with trio.open_nursery() as nursery:
        nursery.start_soon(process.drain_output)
        log = tmp_path / "logs" / "bot.stdout.log"
        with trio.fail_after(30):
            while not log.exists() or "ready" not in log.read_text():
                await trio.sleep(0.05)
        with python(SPINNER), python(SPINNER), python(SPINNER):
            await trio.sleep(0.2)
            await process.stop(grace=0.5)
    assert process.stopped is not None
    assert process.stopped.how is Stopping.ON_SIGTERM, process.stopped
    assert process.returncode == 0
