"""The duplicate-dealing saving for several pairs of sample bots, side by side.

Run: .venv/bin/python -m benchmarks.duplicate_pairs [--pairs 200]

Same method as the suite's `duplicate` section (docs/benchmarks.md): per pair of bots, `--pairs`
duplicate pairs and twice as many independent sessions on long-lived bot processes. It shows how
much the saving depends on how alike the two bots play.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import trio

from .common import open_bots, python_bot
from .duplicate import duplicate_figures, duplicate_samples

# (name, script, arguments) of each side.
PAIRS: list[tuple[tuple[str, ...], tuple[str, ...]]] = [
    (("threshold", "threshold_bot.py"), ("minimal", "minimal_bot.py")),
    (("threshold", "threshold_bot.py"), ("threshold-m23", "threshold_bot.py", "--medium", "23")),
    (("threshold", "threshold_bot.py"), ("threshold-m18", "threshold_bot.py", "--medium", "18")),
    (("threshold", "threshold_bot.py"), ("threshold-s31", "threshold_bot.py", "--strong", "31")),
    (("strong", "strong_bot.py"), ("threshold", "threshold_bot.py")),
    (("threshold", "threshold_bot.py"), ("call", "call_bot.py")),
    (("minimal", "minimal_bot.py"), ("call", "call_bot.py")),
]


async def survey(pairs: int) -> None:
    print(f"{'pair':32} {'mean diff':>9} {'± se':>6} {'sd single':>9} {'sd pair':>8} {'indep.':>7} {'dup.':>6} "
          f"{'saving':>7}  95% CI")
    with tempfile.TemporaryDirectory(prefix="seka-dup-") as directory:
        for first, second in PAIRS:
            specs = [python_bot(first[0], *first[1:]), python_bot(second[0], *second[1:])]
            async with open_bots(specs, workdir=Path(directory)) as (a, b):
                independent, duplicate = await duplicate_samples(a, b, pairs, inflight=4)
            f = duplicate_figures(independent, duplicate)
            low, high = f["duplicate_saving_ratio_ci"]
            print(f"{first[0] + ' vs ' + second[0]:32} {f['duplicate_mean_difference']:9.3f} "
                  f"{f['duplicate_mean_difference_se']:6.3f} {f['duplicate_sd_session_independent']:9.2f} "
                  f"{f['duplicate_sd_pair_duplicate']:8.2f} {f['sessions_needed_independent']:7d} "
                  f"{f['sessions_needed_duplicate']:6d} {f['duplicate_saving_ratio']:7.2f}  {low}–{high}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=200, help="duplicate pairs per bot pair (and 2x independent)")
    trio.run(survey, parser.parse_args().pairs)


if __name__ == "__main__":
    main()
