"""The Node.js sample bot values hands (sample_bots/js_bot/hands.js, written from the rules) as the
arena's lookups do: every hand of every profile and hand option, in one batch per option set."""

from __future__ import annotations

import json
import shutil
import subprocess
from itertools import combinations

import pytest

from arena.engine import hand_evaluator

from ._launch import JS_BOT

OPTION_SETS = [
    ("georgian", {}), ("georgian", {"deck": 32}),
    ("classic", {}), ("classic", {"wild": "black7"}), ("classic", {"wild": "none"}), ("classic", {"cards": 2}),
    ("classic", {"deck": 24}), ("classic", {"wild": "black7", "cards": 2, "deck": 24}),
    ("seka36", {}), ("svara32", {}), ("seka21", {}),
]
_VALUES = """
const { handValue } = require('./hands');
const { profile, options, hands } = JSON.parse(require('fs').readFileSync(0, 'utf8'));
process.stdout.write(JSON.stringify(hands.map((hand) => handValue(hand, profile, options))));
"""


@pytest.mark.parametrize("profile, options", OPTION_SETS, ids=[f"{p}-{o}" for p, o in OPTION_SETS])
def test_the_js_bot_ranks_every_hand_as_the_arena_does(profile: str, options: dict[str, str | int]) -> None:
    if shutil.which("node") is None:
        pytest.fail("node is needed: the JS sample bot is part of the suite")
    evaluator = hand_evaluator(profile, **options)  # type: ignore[arg-type]
    hands = list(combinations(evaluator.deck, evaluator.hand_size))
    wire_options = {name: str(value) for name, value in options.items()}  # as HelloRequest.options spells them
    given = json.dumps({"profile": profile, "options": wire_options, "hands": [[str(c) for c in h] for h in hands]})
    out = subprocess.run(["node", "-e", _VALUES], input=given, capture_output=True, text=True, cwd=JS_BOT,
                         check=True, timeout=120).stdout
    js_values = json.loads(out)
    arena = [evaluator.value(hand).strength for hand in hands]
    # The same order: equal where the arena ties, greater where it is greater.
    by_arena: dict[int, set[int]] = {}
    for strength, js in zip(arena, js_values, strict=True):
        by_arena.setdefault(strength, set()).add(js)
    wrong = {strength: sorted(values) for strength, values in by_arena.items() if len(values) != 1}
    assert not wrong, f"{profile} {options}: hands the arena values alike, the JS bot does not: {wrong}"
    ordered = [by_arena[strength].pop() for strength in sorted(by_arena)]
    assert ordered == sorted(set(ordered)) and len(ordered) == len(set(ordered)), f"{profile} {options}: order differs"
