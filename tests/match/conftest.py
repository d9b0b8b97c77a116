"""Every test here launches real bot processes; none may be left behind when a test ends."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from arena.transport import BotProcess

from ._support import describe, is_reaped, live_group_members, wait_until

collect_ignore = ["bots"]


@pytest.fixture(autouse=True)
def launched(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[BotProcess]]:
    """Every bot process the arena launches during the test (a spy: launching is unchanged).

    After the test, each bot must have been reaped by the arena, and nothing may still run in its
    process group (the group id is the bot's pid): whatever it forked was stopped with it.
    Orphaned descendants may linger for a moment as zombies until init reaps them.
    """
    processes: list[BotProcess] = []
    launch = BotProcess.launch.__func__  # type: ignore[attr-defined]

    def spy(cls: type[BotProcess], *args: object, **kwargs: object) -> BotProcess:
        process = launch(cls, *args, **kwargs)
        processes.append(process)
        return process

    monkeypatch.setattr(BotProcess, "launch", classmethod(spy))
    yield processes
    unreaped = [process.pid for process in processes if not is_reaped(process.pid)]
    assert not unreaped, f"bots not reaped after the test:\n{describe(unreaped)}"

    def running() -> list[int]:
        return [pid for process in processes for pid in live_group_members(process.pid)]
    wait_until(lambda: not running(), within=2.0)
    assert not running(), f"processes still running in bots' process groups:\n{describe(running())}"
