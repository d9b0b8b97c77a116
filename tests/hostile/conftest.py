"""Hostile bots must leave nothing behind: checked after every test here, on top of its own asserts.

Each bot the arena launched must be reaped, nothing may run in its process group nor in its
control group, which must be gone; no process anywhere may carry a hostile bot's command line;
and the machine's process count and available memory must come back to about where they were.
Tests are skipped, with the reason, where the isolation levels cannot be provided (not root, no
cgroups, no bubblewrap); `make test` installs bubblewrap when it runs as root. Under CI (CI set)
nothing is skipped: a CI machine that cannot sandbox fails loudly instead of passing quietly.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.isolation import BotProcess, Isolation, isolation_problem

from ..match._support import assert_nothing_left, spy_on_launches, wait_until
from ._support import marked_processes, mem_available, process_count

collect_ignore = ["bots"]

# The machine may be busy with other work meanwhile: "about where they were".
_PROCESS_SLACK = 40
_MEMORY_SLACK = 384 << 20

_PROBLEM = isolation_problem(Isolation.SANDBOX)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # This hook sees every test of the run, not only this folder's.
    if _PROBLEM is not None and not os.environ.get("CI"):
        here = Path(__file__).parent
        for item in items:
            if here in item.path.parents:
                item.add_marker(pytest.mark.skip(reason=f"isolation `sandbox` is not available here: {_PROBLEM}"))


@pytest.fixture(autouse=True)
def launched(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[BotProcess]]:
    """Every bot process the arena launches during the test (a spy: launching is unchanged)."""
    before_processes, before_memory = process_count(), mem_available()
    processes = spy_on_launches(monkeypatch)
    yield processes

    assert_nothing_left(processes, within=3.0, stragglers=marked_processes)
    cgroups = [directory for process in processes if process.cgroup is not None
               for _, _, directory in process.cgroup.directories if directory.exists()]
    assert not cgroups, f"control groups left behind: {cgroups}"
    assert wait_until(lambda: process_count() <= before_processes + _PROCESS_SLACK, within=5.0), (
        f"{process_count()} processes, {before_processes} before the test")
    assert wait_until(lambda: mem_available() >= before_memory - _MEMORY_SLACK, within=5.0), (
        f"MemAvailable {mem_available() >> 20} MiB, {before_memory >> 20} MiB before the test")
