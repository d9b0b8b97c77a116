"""Public names show the package that exports them as their home, and still pickle."""

from __future__ import annotations

import importlib
import inspect
import pickle
import traceback
from types import ModuleType

import pytest

import arena.engine
import arena.executor
import arena.isolation
import arena.match
import arena.ratings
import arena.report
import arena.sdk
import arena.service
import arena.storage
import arena.tournament
import arena.transport

PACKAGES = [arena.engine, arena.executor, arena.isolation, arena.match, arena.ratings, arena.report, arena.sdk,
            arena.service, arena.storage, arena.tournament, arena.transport]


def _at(module: str, qualname: str) -> object:
    # How pickle finds a class or function again: the module, then the dotted path inside it.
    found: object = importlib.import_module(module)
    for part in qualname.split("."):
        found = getattr(found, part)
    return found


def _homed(package: ModuleType) -> list[tuple[str, object]]:
    return [(name, getattr(package, name)) for name in package.__all__
            if inspect.isclass(getattr(package, name)) or inspect.isfunction(getattr(package, name))]


@pytest.mark.parametrize("package", PACKAGES, ids=lambda package: package.__name__)
def test_every_exported_class_and_function_names_a_public_home_that_holds_it(package: ModuleType) -> None:
    named = _homed(package)
    assert named
    for name, value in named:
        home = value.__module__
        # Its own package, or the public module it was re-exported from (arena.sdk's Bet is the engine's).
        assert not any(part.startswith("_") for part in home.split(".")), (name, home)
        assert home == package.__name__ or not home.startswith(package.__name__ + "."), (name, home)
        assert _at(home, value.__qualname__) is value, (name, home)


@pytest.mark.parametrize("package", PACKAGES, ids=lambda package: package.__name__)
def test_the_methods_of_an_exported_class_move_with_it(package: ModuleType) -> None:
    checked = 0
    for name, value in _homed(package):
        if inspect.isclass(value) and value.__module__ == package.__name__:
            for attribute in vars(value).values():
                if inspect.isfunction(attribute) and attribute.__qualname__.startswith(value.__qualname__ + "."):
                    assert attribute.__module__ == package.__name__, (name, attribute.__qualname__)
                    checked += 1
    assert checked


def test_reprs_and_tracebacks_say_the_public_path() -> None:
    assert repr(arena.engine.IllegalActionError) == "<class 'arena.engine.IllegalActionError'>"
    assert arena.transport.BotSpec.__module__ == "arena.transport"
    assert arena.sdk.Bet.__module__ == "arena.engine"  # re-exported: keeps the engine as its home
    assert arena.tournament.Isolation.__module__ == "arena.isolation"
    try:
        arena.engine.GEORGIAN.with_table(max_seats=1)
    except arena.engine.RulesError as error:
        shown = "".join(traceback.format_exception(error))
    assert "\narena.engine.RulesError: " in shown, shown


@pytest.mark.parametrize(("value", "home"), [
    (arena.transport.TimeLimit(decision_ms=200, start_ms=3000), b"arena.transport"),
    (arena.engine.Bet(2), b"arena.engine"),
    (arena.engine.Fault.CRASH, b"arena.engine"),
], ids=["dataclass", "action", "enum"])
def test_values_pickle_by_their_public_path(value: object, home: bytes) -> None:
    data = pickle.dumps(value)
    assert home in data and b"._" not in data, data
    assert pickle.loads(data) == value


def test_an_exception_pickles_by_its_public_path() -> None:
    data = pickle.dumps(arena.engine.IllegalActionError("not seat 2's turn"))
    assert b"arena.engine" in data and b"._" not in data, data
    again = pickle.loads(data)
    assert type(again) is arena.engine.IllegalActionError and again.args == ("not seat 2's turn",)
