"""arena/engine/_errors.py: one base class, and illegal actions are ValueErrors."""

from __future__ import annotations

import arena
from arena.engine import ArenaError, IllegalActionError, RulesError


def test_every_engine_error_is_an_arena_error_and_a_value_error() -> None:
    assert issubclass(IllegalActionError, ArenaError) and issubclass(IllegalActionError, ValueError)
    assert issubclass(RulesError, ArenaError) and issubclass(RulesError, ValueError)
    assert issubclass(ArenaError, Exception)


def test_the_package_reexports_the_error_base_classes() -> None:
    assert arena.ArenaError is ArenaError
    assert arena.IllegalActionError is IllegalActionError
