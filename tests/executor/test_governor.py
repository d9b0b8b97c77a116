"""arena/executor/_governor.py: as many sessions in flight as the cores can serve, given what they cost."""

from __future__ import annotations

from arena.executor._governor import TARGET, Governor


def test_it_starts_at_a_session_per_core_and_a_fixed_concurrency_stays_fixed() -> None:
    assert Governor(cores=2).limit == 2
    fixed = Governor(16, cores=2)
    for _ in range(5):
        fixed.ended(seconds=1.0, bots_cpu=4.0, arena_cores=0.5)  # sessions far too dear for 2 cores
    assert fixed.limit == 16 and fixed.per_session is not None  # measured all the same


def test_dear_sessions_lower_the_limit_and_cheap_ones_raise_it_within_bounds() -> None:
    governor = Governor(cores=4)
    governor.ended(seconds=2.0, bots_cpu=4.0, arena_cores=0.0)  # two cores per session
    assert governor.limit == int(4 * TARGET / 2) == 1
    for _ in range(30):
        governor.ended(seconds=10.0, bots_cpu=1.0, arena_cores=0.0)  # a tenth of a core per session
    assert governor.per_session is not None and abs(governor.per_session - 0.1) < 0.01  # learnt, smoothly
    assert governor.limit == int(4 * TARGET / governor.per_session) in (29, 30, 31)
    for _ in range(30):
        governor.ended(seconds=10.0, bots_cpu=0.0, arena_cores=0.0)  # free sessions
    assert governor.limit == 16 * 4  # at most 16 a core
    for _ in range(30):
        governor.ended(seconds=0.5, bots_cpu=30.0, arena_cores=1.0)
    assert governor.limit == 1  # at least one
