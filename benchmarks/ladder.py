"""The ladder's adaptive choice of tables against uniform random tables: sessions to order 8 bots.

Run: .venv/bin/python -m benchmarks.ladder [--quick] [--runs N] [--json FILE]

Eight simulated bots of known strength (true Elo 1290 to 1710, 60 apart) play heads-up duplicate
blocks of two sessions, simulated as `benchmarks.coverage` does (a quarter of the blocks decided by
the cards, split 1-1; otherwise each session won with exactly the Bradley-Terry probability of the
true ratings). Two ways of choosing the next table, each from the same seeds:

- **uniform**: a pair drawn uniformly at random;
- **adaptive**: `arena.service.choose_table`, as the service's ladder uses it (two placement blocks
  per bot, then the pair of most information p(1-p)(Var i + Var j), a fifth of the tables random).

A run stops once the ratings order the eight bots at 95% confidence: the fitted order is the true
one and every two neighbours are apart by more than 1.645 standard errors (one-sided 95%, the
variances those of the fit's information, as the ladder computes them), checked every 4 blocks (8
sessions: the figures' resolution; a check refits the ratings, and checking after every block
would double the benchmark's time). The figure is the median number of sessions each way, and their ratio.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import time
from collections import Counter
from typing import Any

from arena.ratings import SessionOutcome, pair_results
from arena.service import choose_table, information

from .coverage import win_probability

TRUE_ELO = {f"bot{index}": 1290.0 + 60.0 * index for index in range(8)}
"""Eight bots, 60 Elo apart: neighbours win 58.5% of their sessions against each other."""
_CARD_SHARE = 0.25
_Z = 1.645
_MAX_BLOCKS = 4000
_CHECK_EVERY = 4


def play_block(rng: random.Random, a: str, b: str, block: int) -> list[SessionOutcome]:
    """A duplicate block of two sessions between `a` and `b` (see the module's docstring)."""
    p = win_probability(TRUE_ELO[a], TRUE_ELO[b])
    decided = min(_CARD_SHARE, 2 * (1 - p), 2 * p)
    if rng.random() < decided:
        first = rng.random() < 0.5
        a_wins = (first, not first)
    else:
        q = (p - decided / 2) / (1 - decided)
        a_wins = (rng.random() < q, rng.random() < q)
    return [SessionOutcome((a, b), (1, -1) if a_wins[0] else (-1, 1), f"b{block}"),
            SessionOutcome((b, a), (-1, 1) if a_wins[1] else (1, -1), f"b{block}")]


def ordered(outcomes: list[SessionOutcome]) -> bool:
    """Whether the fit orders every bot as the truth does, each neighbour apart at 95% confidence."""
    names = sorted(TRUE_ELO, key=TRUE_ELO.__getitem__)
    theta, variance = information(pair_results(outcomes), names)
    for weaker, stronger in zip(names, names[1:], strict=False):
        if (theta[stronger] - theta[weaker]) / math.sqrt(variance[stronger] + variance[weaker]) <= _Z:
            return False
    return True


def sessions_to_order(strategy: str, seed: int) -> int:
    """Sessions played until `ordered` holds (or the cap), choosing tables by `strategy`."""
    rng = random.Random(seed)
    chooser = random.Random(seed + 1)
    names = sorted(TRUE_ELO)
    outcomes: list[SessionOutcome] = []
    played: Counter[str] = Counter()
    for block in range(1, _MAX_BLOCKS + 1):
        if strategy == "uniform":
            a, b = chooser.sample(names, 2)
        else:
            (a, b), _ = choose_table(names, pair_results(outcomes), table_size=2, blocks_played=played,
                                     placement_blocks=2, random_share=0.2, rng=chooser)
        played.update((a, b))
        outcomes += play_block(rng, a, b, block)
        if block % _CHECK_EVERY == 0 and ordered(outcomes):
            break
    return len(outcomes)


def measure(runs: int) -> dict[str, Any]:
    started = time.monotonic()
    counts: dict[str, list[int]] = {"uniform": [], "adaptive": []}
    for seed in range(runs):
        for strategy in counts:
            counts[strategy].append(sessions_to_order(strategy, 1000 + seed))
    uniform, adaptive = (statistics.median(counts[key]) for key in ("uniform", "adaptive"))
    return {"runs": runs, "sessions_uniform": counts["uniform"], "sessions_adaptive": counts["adaptive"],
            "median_uniform": uniform, "median_adaptive": adaptive, "adaptive_saving": uniform / adaptive,
            "seconds": round(time.monotonic() - started, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 runs of each (default 10)")
    parser.add_argument("--runs", type=int, help="runs of each strategy")
    parser.add_argument("--json", help="write the figures to this file")
    args = parser.parse_args()
    result = measure(args.runs or (3 if args.quick else 10))
    print(f"sessions to order 8 bots at 95% confidence, median of {result['runs']} runs: uniform "
          f"{result['median_uniform']:.0f}, adaptive {result['median_adaptive']:.0f}; "
          f"saving {result['adaptive_saving']:.2f}x ({result['seconds']} s)")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump(result, out, indent=2)


if __name__ == "__main__":
    main()
