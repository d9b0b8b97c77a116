"""How planning a round robin and computing its standings grow with the number of bots (no bots run)."""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import trio

from arena.ratings import SessionOutcome, standings
from arena.tournament import parse_config, plan

from .common import Sizes


def scaling_config(bots: int) -> Any:
    participants = ", ".join(f'{{name: b{index:02d}, address: "127.0.0.1:{20000 + index}"}}' for index in range(bots))
    return parse_config(f"name: scale\nparticipants: [{participants}]\nseed: 1b32c28cb38c05480eccc1bd60ff9702\n"
                        "sessions_per_table: 1\nduplicate: true\n")


def synthetic_outcomes(planned: Sequence[Any], seed: int = 2026) -> list[SessionOutcome]:
    """Heads-up results drawn from hidden strengths: balances (x, -x) with x an integer."""
    rng = random.Random(seed)
    names = sorted({name for session in planned for name in session.table})
    strength = {name: rng.gauss(0, 1) for name in names}
    outcomes = []
    for session in planned:
        first, second = session.table
        chips = round(rng.gauss(strength[first] - strength[second], 3) * 5)
        outcomes.append(SessionOutcome(session.table, (chips, -chips), session.block))
    return outcomes


def scaling_figures(sizes: Sizes) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    for bots in sizes.scaling_bots:
        config = scaling_config(bots)
        start = time.perf_counter()
        planned = plan(config)
        planning = time.perf_counter() - start
        outcomes = synthetic_outcomes(planned)
        start = time.perf_counter()
        standings(outcomes, resamples=sizes.resamples)
        rating = time.perf_counter() - start
        figures[f"round_robin_sessions_bots_{bots}"] = len(planned)
        figures[f"plan_seconds_bots_{bots}"] = round(planning, 5)
        figures[f"ratings_seconds_bots_{bots}"] = round(rating, 3)
    return figures


async def measure(sizes: Sizes, workdir: Path) -> dict[str, Any]:
    """The suite's `scaling` section, in a worker thread."""
    return await trio.to_thread.run_sync(scaling_figures, sizes)
