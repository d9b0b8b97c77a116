"""What the packages of arena share: public names that show the package as their home."""

from __future__ import annotations

import inspect
from collections.abc import Mapping


def fixup_module_metadata(package: str, namespace: Mapping[str, object]) -> None:
    """Set `__module__` of the classes and functions a package re-exports to the package itself.

    So `repr`, tracebacks and docs say `arena.engine.IllegalActionError`, where a user finds it,
    not `arena.engine._errors.IllegalActionError` (trio's `fixup_module_metadata` does the same).
    Only what is defined in the package's own private modules moves: a name it re-exports from
    another package keeps that package as its home. The methods and nested classes of a class
    move with it. Pickling still works: pickle finds a class or function by `__module__` and
    `__qualname__`, and the package holds each name it re-exports under its `__qualname__`.

    Args:
        package: the package's `__name__`.
        namespace: the package's `globals()`, once its public names are imported.
    """
    inside = package + "."
    seen: set[int] = set()

    def fix(value: object, owner: str = "") -> None:
        if isinstance(value, classmethod | staticmethod):
            value = value.__func__
        if id(value) in seen or not (inspect.isclass(value) or inspect.isfunction(value)):
            return
        # In a class, only what is defined in its body: a class attribute naming a class or function
        # of elsewhere keeps its home, which still holds it.
        if owner and not value.__qualname__.startswith(owner + "."):
            return
        seen.add(id(value))
        # A method made for the class by a factory (a named tuple's `_replace`) moves with it too.
        if value.__module__.startswith(inside) or owner:
            value.__module__ = package
            if inspect.isclass(value):
                for attribute in vars(value).values():
                    fix(attribute, value.__qualname__)

    for name, value in namespace.items():
        if not name.startswith("_"):
            fix(value)
