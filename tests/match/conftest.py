"""Every test here launches real bot processes; none may be left behind when a test ends."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from arena.isolation import BotProcess

from ._support import assert_nothing_left, spy_on_launches

collect_ignore = ["bots"]


@pytest.fixture(autouse=True)
def launched(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[BotProcess]]:
    """Every bot process the arena launches during the test (a spy: launching is unchanged).

    After the test, each bot must have been reaped by the arena, and nothing may still run in its
    process group (the group id is the bot's pid): whatever it forked was stopped with it.
    Orphaned descendants may linger for a moment as zombies until init reaps them.
    """
    processes = spy_on_launches(monkeypatch)
    yield processes
    assert_nothing_left(processes, within=2.0)
