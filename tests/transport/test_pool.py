"""The bot pool: leases of launched or warm processes, and the processes it must not lease again."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest
import trio

from arena.engine import GEORGIAN
from arena.transport import open_bot_pool

from ..match._support import RELAXED, sample_spec


async def test_a_warm_process_is_leased_again_but_never_for_a_key_it_served_nor_after_it_died(tmp_path: Path) -> None:
    spec = sample_spec("call", "call_bot.py", limit=RELAXED)
    async with open_bot_pool(max_sessions=100, keep_idle=lambda: 4) as pool:
        async with pool.lease(spec, key="block-0", log_dir=tmp_path / "s0", final=True) as first:
            assert first.dead is None and first.telemetry.process_session == 1
            assert first.telemetry.ready_seconds is not None  # launched for this session
            await first.hello(GEORGIAN, seats=2, seat=0, session_id="zero")
            pid = first.process.pid if first.process is not None else None
        async with pool.lease(spec, key="block-1", log_dir=tmp_path / "s1", final=True) as other:
            assert other.process is not None and other.process.pid == pid  # warm
        async with pool.lease(spec, key="block-1", log_dir=tmp_path / "s2", final=True) as mirror:
            assert mirror.process is not None and mirror.process.pid != pid  # the same key: another process
        async with pool.lease(spec, key="block-2", log_dir=tmp_path / "s3", final=True) as warm:
            assert warm.process is not None and warm.process.pid == mirror.process.pid  # the other served block-1
            assert warm.telemetry.process_session == 2 and warm.telemetry.ready_seconds is None
            assert warm.telemetry.calls == {}  # its first session's calls are not this one's
            assert (tmp_path / "s3" / "call.stderr.log").exists()
            await warm.hello(GEORGIAN, seats=2, seat=1, session_id="three")
            served_twice = warm.process
        assert pool.launched == 2
        # The first process was stopped for the key it served, before block-1's second lease; the
        # other one, warm, dies while it waits.
        os.kill(served_twice.pid, signal.SIGKILL)
        while served_twice.returncode is None:
            await trio.sleep(0.01)
        async with pool.lease(spec, key="block-4", log_dir=tmp_path / "s5", final=True) as replaced:
            assert replaced.process is not None and replaced.process.pid not in (pid, served_twice.pid)
            assert replaced.dead is None and replaced.telemetry.process_session == 1
            await replaced.hello(GEORGIAN, seats=2, seat=1, session_id="five")
            assert replaced.telemetry.faults == {}
        assert pool.launched == 3


async def test_no_process_that_served_a_block_is_alive_while_another_session_of_the_block_plays(
        tmp_path: Path) -> None:
    # With warm processes, a copy of a bot kept from one mirror could tell its twin in the next the
    # cards through whatever the machine shares at one moment (tests/hostile/test_channels.py).
    call, random = sample_spec("call", "call_bot.py", limit=RELAXED), sample_spec("random", "random_bot.py",
                                                                                      limit=RELAXED)
    async with open_bot_pool(max_sessions=100, keep_idle=lambda: 8) as pool:
        async with pool.lease(call, key="other", log_dir=tmp_path / "s0", final=True) as warm:
            kept = warm.process
        async with pool.lease(call, key="block", log_dir=tmp_path / "s1") as first, \
                pool.lease(random, key="block", log_dir=tmp_path / "s1") as opponent:  # the first mirror
            assert first.process is kept  # warm from a finished block
            mirror_one = [first.process, opponent.process]
        async with pool.lease(random, key="block", log_dir=tmp_path / "s2", final=True) as second:
            # Both processes of the first mirror, not only this bot's, are stopped and reaped first.
            assert all(process is not None and process.returncode is not None for process in mirror_one)
            assert second.process not in mirror_one
            kept = second.process
        async with pool.lease(random, key="next", log_dir=tmp_path / "s3", final=True) as after:
            assert after.process is kept  # the block is over: warm again
        async with pool.lease(call, key="later", log_dir=tmp_path / "s4", final=True), \
                pool.lease(random, key="later", log_dir=tmp_path / "s4", final=True):
            pass
        async with pool.lease(call, key="again", log_dir=tmp_path / "s5"):
            with pytest.raises(RuntimeError, match="a process that served 'later' is serving another session"):
                async with pool.lease(random, key="later", log_dir=tmp_path / "s6"):
                    pass


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
