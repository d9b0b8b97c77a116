"""The Go sample bot values hands (sample_bots/go_bot/hands.go, written from the rules) as the
arena's lookups do: every hand of every profile and hand option, in one batch per option set."""

from __future__ import annotations

import json
import subprocess
from itertools import combinations

import pytest

from arena.engine import hand_evaluator

from ._launch import GO_BOT, needs_go_bot
from .test_js_hands import OPTION_SETS


@pytest.mark.parametrize("profile, options", OPTION_SETS, ids=[f"{p}-{o}" for p, o in OPTION_SETS])
def test_the_go_bot_ranks_every_hand_as_the_arena_does(profile: str, options: dict[str, str | int]) -> None:
    needs_go_bot()
    evaluator = hand_evaluator(profile, **options)  # type: ignore[arg-type]
    hands = list(combinations(evaluator.deck, evaluator.hand_size))
    wire_options = {name: str(value) for name, value in options.items()}  # as HelloRequest.options spells them
    given = json.dumps({"profile": profile, "options": wire_options, "hands": [[str(c) for c in h] for h in hands]})
    out = subprocess.run([str(GO_BOT), "--values"], input=given, capture_output=True, text=True, check=True,
                         timeout=120).stdout
    go_values = json.loads(out)
    arena = [evaluator.value(hand).strength for hand in hands]
    # The same order: equal where the arena ties, greater where it is greater.
    by_arena: dict[int, set[int]] = {}
    for strength, value in zip(arena, go_values, strict=True):
        by_arena.setdefault(strength, set()).add(value)
    wrong = {strength: sorted(values) for strength, values in by_arena.items() if len(values) != 1}
    assert not wrong, f"{profile} {options}: hands the arena values alike, the Go bot does not: {wrong}"
    ordered = [by_arena[strength].pop() for strength in sorted(by_arena)]
    assert ordered == sorted(set(ordered)) and len(ordered) == len(set(ordered)), f"{profile} {options}: order differs"
