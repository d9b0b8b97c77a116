"""Helpers shared by the ratings tests: seeded simulated sessions and hand-made heads-up results."""

from __future__ import annotations

import random
from collections.abc import Mapping

from arena.ratings import SessionOutcome


def heads_up(winner: str, loser: str, session: str, *, swap: bool = False, tie: bool = False) -> SessionOutcome:
    """A heads-up session `winner` won (or drew, with `tie`), with `winner` in seat 0 unless `swap`."""
    bots, balances = ((winner, loser), (0, 0) if tie else (3, -3))
    if swap:
        bots, balances = (bots[1], bots[0]), (balances[1], balances[0])
    return SessionOutcome(bots, balances, session)


def simulate(elo: Mapping[str, float], sessions: int, *, seats: int, rng: random.Random,
             sessions_per_block: int = 1) -> list[SessionOutcome]:
    """Sessions whose finishing orders follow Plackett–Luce with strengths 10 ** (elo / 400).

    Heads-up this is exactly the Bradley–Terry model; the place p (0 = best) gets balance
    n - 1 - 2p, so balances are distinct and sum to zero.
    """
    names = sorted(elo)
    outcomes = []
    for s in range(sessions):
        table = rng.sample(names, seats)
        pool = list(table)
        order = []
        while pool:
            pick = rng.choices(pool, weights=[10 ** (elo[bot] / 400) for bot in pool])[0]
            order.append(pick)
            pool.remove(pick)
        balances = tuple(seats - 1 - 2 * order.index(bot) for bot in table)
        outcomes.append(SessionOutcome(tuple(table), balances, f"block{s // sessions_per_block:05d}"))
    return outcomes
