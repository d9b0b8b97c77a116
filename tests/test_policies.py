"""In-process policies that answer with distributions (`RandomPolicy(mixed=True)`): on every profile the engine
draws from them, the history records each distribution and draw, and `replay` re-derives every one."""

from __future__ import annotations

import random

import pytest

from arena.engine import HISTORY_FORMAT, profile
from arena.history import history_text
from arena.policies import RandomPolicy, ThresholdPolicy, play_in_process
from arena.replay import replay_records

CASES = [("georgian", {}, 3), ("georgian", {"dark": "true"}, 2), ("classic", {"open": "multiway"}, 6),
         ("classic", {}, 8), ("seka36", {"dark": "true"}, 2), ("svara32", {}, 2), ("seka21", {}, 2)]


@pytest.mark.parametrize("name, options, seats", CASES, ids=[f"{n}-{s}" for n, _, s in CASES])
def test_a_mixed_random_policy_is_drawn_from_recorded_and_replayed(name: str, options: dict[str, str],
                                                                   seats: int) -> None:
    rules = profile(name, options)
    mixed = 0
    for number in range(4):
        policies = [RandomPolicy(random.Random(number * 10 + seat), name=f"r{seat}", mixed=True)
                    for seat in range(seats - 1)] + [ThresholdPolicy(name="t", evaluator=rules.evaluator)]
        state = play_in_process(rules, policies, seed=f"policies-{name}-{number}", session=f"p{number}")
        records = [event.to_json() for event in state.events]
        assert records[0]["format"] == HISTORY_FORMAT == 3
        for record in records:
            if "mix" in record:
                mixed += 1
                ps = [entry["p"] for entry in record["mix"]]
                assert len(set(ps)) == 1 and abs(sum(ps) - 1) < 1e-9
        again = replay_records(records).state  # every draw re-derived, every drawn action the recorded one
        assert history_text(again.events) == history_text(state.events)
    assert mixed >= 4
