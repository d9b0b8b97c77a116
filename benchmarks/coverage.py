"""How often the 95 % rating intervals hold the true rating: simulated tournaments of known strengths.

Run: .venv/bin/python -m benchmarks.coverage [--quick] [--json FILE] [--tournaments N] [--blocks 4,33]

Each simulated tournament is shaped like the demo: four bots of true Elo 1300, 1450, 1550 and 1700
(mean 1500, the ratings' scale), heads-up round robin with duplicate blocks of two sessions (the
same cards, seats swapped). `--blocks 4` is the demo (24 sessions per bot), 33 gives 198. In a
block the cards decide both sessions with probability `--card-share` (0.25): the seat slot with
the better cards wins twice, so each bot wins once; otherwise the two sessions are independent,
with the win probability set so that a session is won with exactly the Bradley–Terry probability
p of the true ratings (for that, a pair decided by its cards at most 2(1 - p) of the time: the
1300-1700 pair, p = 0.91, at most 18 %). Every tournament is rated by `arena.ratings.bootstrap` with its defaults
(1,000 resamples), so the figures are those of the intervals the standings show. docs/ratings.md
has the results and what they mean.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.ratings import SessionOutcome, bootstrap, chip_rate

TRUE_ELO = {"weakest": 1300.0, "weak": 1450.0, "strong": 1550.0, "strongest": 1700.0}
"""The bots' true ratings; their mean is 1500, where the ratings put their average."""


def win_probability(rating: float, other: float) -> float:
    """The Bradley–Terry (Elo) probability that a bot rated `rating` finishes above one rated `other`."""
    return 1.0 / (1.0 + math.pow(10.0, (other - rating) / 400.0))


def simulated_tournament(rng: random.Random, elo: dict[str, float], blocks_per_pair: int,
                         card_share: float) -> list[SessionOutcome]:
    """Heads-up duplicate blocks between every pair of bots, `blocks_per_pair` blocks each."""
    names = sorted(elo)
    outcomes = []
    block = 0
    for _ in range(blocks_per_pair):
        for a_index, a in enumerate(names):
            for b in names[a_index + 1:]:
                block += 1
                p = win_probability(elo[a], elo[b])
                # Blocks the cards decide are split 1-1, so they can be at most 2(1 - p) of a pair's
                # blocks (and 2p) if a session is still to be won with probability p.
                decided = min(card_share, 2 * (1 - p), 2 * p)
                if rng.random() < decided:
                    first_won = rng.random() < 0.5  # whoever holds the better slot wins both sessions
                    a_wins = (first_won, not first_won)
                else:
                    q = (p - decided / 2) / (1 - decided)
                    a_wins = (rng.random() < q, rng.random() < q)
                outcomes.append(SessionOutcome((a, b), (1, -1) if a_wins[0] else (-1, 1), f"b{block:05d}"))
                outcomes.append(SessionOutcome((b, a), (-1, 1) if a_wins[1] else (1, -1), f"b{block:05d}"))
    return outcomes


@dataclass
class Coverage:
    """The tally of one tournament size."""

    blocks_per_pair: int
    tournaments: int = 0
    held: dict[str, int] = field(default_factory=dict)
    """Intervals that held the bot's true rating."""
    below: dict[str, int] = field(default_factory=dict)
    """Intervals entirely below the true rating (the interval missed low)."""
    widths: list[float] = field(default_factory=list)

    def add(self, intervals: dict[str, tuple[float, float]], truth: dict[str, float]) -> None:
        self.tournaments += 1
        for bot, (low, high) in intervals.items():
            self.held[bot] = self.held.get(bot, 0) + (low <= truth[bot] <= high)
            self.below[bot] = self.below.get(bot, 0) + (high < truth[bot])
            self.widths.append(high - low)

    def figures(self, bots: Sequence[str]) -> dict[str, Any]:
        intervals = self.tournaments * len(bots)
        overall = sum(self.held.values()) / intervals
        return {
            "blocks_per_pair": self.blocks_per_pair,
            "sessions_per_bot": 2 * self.blocks_per_pair * (len(bots) - 1),
            "tournaments": self.tournaments,
            "coverage": round(overall, 4),
            # Binomial, as if the bots' intervals were independent (they are not quite: it is a guide).
            "coverage_se": round(math.sqrt(overall * (1 - overall) / intervals), 4),
            "coverage_per_bot": {bot: round(self.held[bot] / self.tournaments, 4) for bot in bots},
            "missed_low": round(sum(self.below.values()) / intervals, 4),
            "missed_high": round(1 - overall - sum(self.below.values()) / intervals, 4),
            "mean_width": round(math.fsum(self.widths) / len(self.widths), 3),
        }


def measure(blocks_per_pair: int, tournaments: int, *, card_share: float, seed: int) -> dict[str, Any]:
    """Simulate and rate `tournaments` tournaments of one size; coverage overall and per bot."""
    mean = math.fsum(TRUE_ELO.values()) / len(TRUE_ELO)
    truth = {bot: rating - mean + 1500.0 for bot, rating in TRUE_ELO.items()}
    # A session's balance is +1 or -1, so a bot's true chip rate is the mean of 2p - 1 over its
    # opponents, each met equally often.
    chip_truth = {bot: math.fsum(2 * win_probability(rating, TRUE_ELO[other]) - 1 for other in TRUE_ELO
                                 if other != bot) / (len(TRUE_ELO) - 1) for bot, rating in TRUE_ELO.items()}
    tally, chips = Coverage(blocks_per_pair), Coverage(blocks_per_pair)
    cpu = 0.0
    for number in range(tournaments):
        rng = random.Random(f"{seed}-{blocks_per_pair}-{number}")
        outcomes = simulated_tournament(rng, TRUE_ELO, blocks_per_pair, card_share)
        started = time.process_time()
        result = bootstrap(outcomes, rng_seed=number)
        cpu += time.process_time() - started
        tally.add(dict(result.intervals), truth)
        chips.add({bot: (stats.ci_low, stats.ci_high) for bot, stats in chip_rate(outcomes, rng_seed=number).items()},
                  chip_truth)
    figures = tally.figures(list(TRUE_ELO))
    figures["cpu_seconds_per_tournament"] = round(cpu / tournaments, 3)
    chip_figures = chips.figures(list(TRUE_ELO))
    figures["chip_rate"] = {key: chip_figures[key] for key in ("coverage", "coverage_se", "coverage_per_bot",
                                                                "missed_low", "missed_high", "mean_width")}
    return figures


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.coverage", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer tournaments: a rough figure in about a minute")
    parser.add_argument("--tournaments", type=int, help="tournaments per size (default 1000 at demo size, 300 "
                        "above; --quick 200 and 60)")
    parser.add_argument("--blocks", default="4,33", help="blocks per pair, one size per comma-separated value "
                        "(default 4,33: 24 and 198 sessions per bot)")
    parser.add_argument("--card-share", type=float, default=0.25,
                        help="share of blocks the cards decide (default 0.25)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the simulated tournaments")
    parser.add_argument("--json", metavar="FILE", help="also write every figure to FILE")
    args = parser.parse_args(argv)
    sizes = [int(value) for value in args.blocks.split(",")]
    results: dict[str, Any] = {"true_elo": TRUE_ELO, "card_share": args.card_share, "confidence": 0.95,
                               "resamples": 1000, "seed": args.seed, "sizes": {}}
    print(f"95% rating intervals of arena.ratings.bootstrap; true Elo {TRUE_ELO}; cards decide "
          f"{args.card_share:.0%} of blocks")
    for blocks in sizes:
        default = (200 if blocks <= 8 else 60) if args.quick else (1000 if blocks <= 8 else 300)
        figures = measure(blocks, args.tournaments or default, card_share=args.card_share, seed=args.seed)
        results["sizes"][f"{figures['sessions_per_bot']}_sessions_per_bot"] = figures
        per_bot = "  ".join(f"{bot} {value:.1%}" for bot, value in figures["coverage_per_bot"].items())
        print(f"{figures['sessions_per_bot']:4d} sessions per bot, {figures['tournaments']} tournaments: coverage "
              f"{figures['coverage']:.1%} ± {figures['coverage_se']:.1%} (missed low {figures['missed_low']:.1%}, "
              f"high {figures['missed_high']:.1%}); {per_bot}; mean width {figures['mean_width']:.0f} Elo; "
              f"{figures['cpu_seconds_per_tournament']:.2f} s CPU per tournament", flush=True)
        chips = figures["chip_rate"]
        print(f"     chip-rate intervals: coverage {chips['coverage']:.1%} ± {chips['coverage_se']:.1%}; " + "  ".join(
            f"{bot} {value:.1%}" for bot, value in chips["coverage_per_bot"].items()), flush=True)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump(results, out, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
