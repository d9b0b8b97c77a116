"""The `seka-arena` command: thin wrappers that call one library function each."""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Sequence
from pathlib import Path

from .engine import GEORGIAN, ArenaError
from .history import write_history
from .policies import RandomPolicy, ThresholdPolicy, play_in_process
from .replay import replay_file


def _demo(args: argparse.Namespace) -> int:
    """Play one session among built-in in-process policies, write its history, then re-check it.

    Example: seka-arena demo --seed 7 --out demo-out
    """
    rng = random.Random(args.seed)
    policies = [ThresholdPolicy(), RandomPolicy(random.Random(rng.random())),
                ThresholdPolicy(call_from=15, name="loose-threshold")]
    state = play_in_process(GEORGIAN, policies, seed=str(args.seed), session="demo")
    path = write_history(Path(args.out) / "demo-session.jsonl", state.events)
    result = replay_file(path)
    print("\n".join(result.account))
    print(f"\nHistory: {path} ({len(state.events)} events), re-checked against the rules: OK")
    return 0


def _replay(args: argparse.Namespace) -> int:
    """Re-check a hand history against the rules and print it pot by pot (exit 1 at the first break).

    Example: seka-arena replay results/demo/histories/s0001.jsonl
    """
    result = replay_file(args.history)
    if not args.quiet:
        print("\n".join(result.account))
    print(f"{args.history}: {len(result.state.events)} events, every rule holds")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="seka-arena", description="A tournament arena for Seka bots.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    demo = commands.add_parser("demo", help="play a demo session of built-in policies", description=_demo.__doc__)
    demo.add_argument("--seed", default="1", help="the session seed (default 1)")
    demo.add_argument("--out", default=".", help="folder for the history (default: current)")
    demo.set_defaults(run=_demo)

    replay = commands.add_parser("replay", help="re-check a hand history against the rules", description=_replay.__doc__)
    replay.add_argument("history", help="a .jsonl hand history")
    replay.add_argument("--quiet", action="store_true", help="print only the verdict")
    replay.set_defaults(run=_replay)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.run(args))
    except ArenaError as error:
        print(f"seka-arena {args.command}: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"seka-arena {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
