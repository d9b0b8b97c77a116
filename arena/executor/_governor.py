"""How many sessions to play at once: as many as the machine's cores can serve, given what they cost.

Theory of operation: a session in flight keeps some share of a core busy: its bots' CPU (from
launch to stop, start-up included) and its part of the arena's own. The governor learns that
share from the sessions that end (smoothed: one slow session does not swing it) and allows as
many sessions as fill `TARGET` of the cores, leaving the rest for the moments when several bots
decide at once. It starts at one session per core, before anything is measured. A session that
is already running is never stopped: a lower limit takes effect as sessions end.

A machine busy with other work still slows bots down; that is not measured here. The deadlines
make up for it (time a bot could not use is not charged to it, see `arena.isolation`), and the
runner warns when the arena's own event loop runs late.
"""

from __future__ import annotations

import os

TARGET = 0.75
"""The share of the cores that sessions in flight may keep busy together."""
_SMOOTHING = 0.3
_MOST_PER_CORE = 16


class Governor:
    """The number of sessions in flight allowed now (`limit`), automatic or fixed."""

    def __init__(self, fixed: int | None = None, *, cores: int | None = None) -> None:
        self.cores = cores if cores is not None else len(os.sched_getaffinity(0))
        """CPUs this process may run on."""
        self.fixed = fixed
        """The `concurrency` the tournament file set, or None (automatic)."""
        self.limit = fixed if fixed is not None else self.cores
        """Sessions that may be in flight now."""
        self.per_session: float | None = None
        """Cores one session in flight keeps busy, as measured so far (None before the first ends)."""

    def ended(self, *, seconds: float, bots_cpu: float, arena_cores: float) -> None:
        """A session ended after `seconds`: its bots used `bots_cpu` seconds of CPU, and the arena
        `arena_cores` cores on behalf of each session in flight meanwhile.

        >>> governor = Governor(cores=2)
        >>> governor.ended(seconds=2.0, bots_cpu=0.6, arena_cores=0.1)
        >>> governor.per_session, governor.limit
        (0.4, 3)
        """
        if seconds <= 0:
            return
        used = bots_cpu / seconds + arena_cores
        self.per_session = used if self.per_session is None else (
            _SMOOTHING * used + (1 - _SMOOTHING) * self.per_session)
        if self.fixed is None:
            fits = int(self.cores * TARGET / max(self.per_session, 1e-3))
            self.limit = max(1, min(fits, _MOST_PER_CORE * self.cores))
