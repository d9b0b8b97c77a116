"""seka-arena: a tournament arena for bots that play Seka, the Georgian three-card betting game."""

from __future__ import annotations

from .engine import ArenaError as ArenaError
from .engine import IllegalActionError as IllegalActionError

__all__ = ["ArenaError", "IllegalActionError"]
