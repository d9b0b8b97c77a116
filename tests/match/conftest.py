"""Every test here launches real bot processes; none may be left behind when a test ends."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from arena.transport import BotProcess

from ._support import describe, group_members, wait_until_gone

collect_ignore = ["bots"]


@pytest.fixture(autouse=True)
def launched(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[BotProcess]]:
    """Every bot process the arena launches during the test (a spy: launching is unchanged).

    After the test, each bot's process group (its group id is its pid) must be empty: the bot
    and everything it forked were stopped and reaped.
    """
    processes: list[BotProcess] = []
    launch = BotProcess.launch.__func__  # type: ignore[attr-defined]

    def spy(cls: type[BotProcess], *args: object, **kwargs: object) -> BotProcess:
        process = launch(cls, *args, **kwargs)
        processes.append(process)
        return process

    monkeypatch.setattr(BotProcess, "launch", classmethod(spy))
    yield processes
    left = wait_until_gone([process.pid for process in processes], groups=True, within=2.0)
    members = [pid for group in left for pid in group_members(group)]
    assert not left, f"bot process groups still alive after the test: {left}\n{describe(members)}"
