"""Fixtures shared by the tournament tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from ._support import run_small


@pytest.fixture(scope="session")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished 6-session tournament's `--out` folder, played once per test run: copy it
    (`copy_finished`) before changing anything in it."""
    return run_small(tmp_path_factory)
