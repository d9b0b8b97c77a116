"""The error classes of the engine; every error the arena raises derives from `ArenaError`."""

from __future__ import annotations


class ArenaError(Exception):
    """Base class of every error raised by seka-arena."""


class IllegalActionError(ArenaError, ValueError):
    """An action the rules do not allow in the current state; the state is left unchanged."""


class RulesError(ArenaError, ValueError):
    """A profile or table setting that cannot describe a playable game."""
