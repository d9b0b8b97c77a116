"""The bot pool: leases of launched or warm processes, and the processes it must not lease again."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import trio

from arena.engine import GEORGIAN
from arena.transport import open_bot_pool

from ..match._support import RELAXED, sample_spec


async def test_a_warm_process_is_leased_again_but_never_for_a_key_it_served_nor_after_it_died(tmp_path: Path) -> None:
    spec = sample_spec("call", "call_bot.py", limit=RELAXED)
    async with open_bot_pool(max_sessions=100, keep_idle=lambda: 4) as pool:
        async with pool.lease(spec, key="block-1", log_dir=tmp_path / "s1") as first:
            assert first.dead is None and first.telemetry.process_session == 1
            assert first.telemetry.ready_seconds is not None  # launched for this session
            await first.hello(GEORGIAN, seats=2, seat=0, session_id="one")
            pid = first.process.pid if first.process is not None else None
        async with pool.lease(spec, key="block-1", log_dir=tmp_path / "s2") as mirror:
            assert mirror.process is not None and mirror.process.pid != pid  # the same key: another process
        async with pool.lease(spec, key="block-2", log_dir=tmp_path / "s3") as warm:
            assert warm.process is not None and warm.process.pid in (pid, mirror.process.pid)
            assert warm.telemetry.process_session == 2 and warm.telemetry.ready_seconds is None
            assert warm.telemetry.calls == {}  # its first session's calls are not this one's
            assert (tmp_path / "s3" / "call.stderr.log").exists()
            await warm.hello(GEORGIAN, seats=2, seat=1, session_id="three")
            served_twice = warm.process
        assert pool.launched == 2
        # Both processes now wait; the one that served twice dies while it waits.
        os.kill(served_twice.pid, signal.SIGKILL)
        while served_twice.returncode is None:
            await trio.sleep(0.01)
        async with pool.lease(spec, key="block-3", log_dir=tmp_path / "s4") as next_one:
            assert next_one.process is not None and next_one.process.pid == pid  # the other one, alive
            await next_one.hello(GEORGIAN, seats=2, seat=0, session_id="four")
            survivor = next_one.process
        os.kill(survivor.pid, signal.SIGKILL)  # now no warm process is left alive
        while survivor.returncode is None:
            await trio.sleep(0.01)
        async with pool.lease(spec, key="block-4", log_dir=tmp_path / "s5") as replaced:
            assert replaced.process is not None and replaced.process.pid not in (pid, served_twice.pid)
            assert replaced.dead is None and replaced.telemetry.process_session == 1
            await replaced.hello(GEORGIAN, seats=2, seat=1, session_id="five")
            assert replaced.telemetry.faults == {}
        assert pool.launched == 3


async def test_with_one_session_per_process_every_lease_launches_and_its_process_is_stopped(tmp_path: Path) -> None:
    spec = sample_spec("call", "call_bot.py", limit=RELAXED)
    async with open_bot_pool(max_sessions=1, keep_idle=lambda: 4) as pool:
        processes = []
        for key in ("a", "b"):
            async with pool.lease(spec, key=key, log_dir=tmp_path / key) as connection:
                assert connection.dead is None
                processes.append(connection.process)
        assert pool.launched == 2
    assert all(process is not None and process.returncode is not None for process in processes)
