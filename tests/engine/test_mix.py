"""Mixed replies in the engine: the draw's derivation, the entry it picks, what makes a mix malformed, and the
`action` event that records the distribution and the draw (history format 3)."""

from __future__ import annotations

import hashlib
import hmac
import json
import math

import pytest

from arena.engine import (
    GEORGIAN,
    Bet,
    Fold,
    IllegalActionError,
    Look,
    Mix,
    Raise,
    SessionState,
    Show,
    Support,
    choose,
    mix_draw,
    profile,
)


def test_the_draw_is_53_bits_of_hmac_sha256_of_the_seed_session_and_index() -> None:
    digest = hmac.new(b"seed-x", b"seka-mix|s7|12", hashlib.sha256).digest()
    assert mix_draw("seed-x", "s7", 12) == (int.from_bytes(digest[:8], "big") >> 11) / 2**53
    draws = {mix_draw("seed-x", "s7", index) for index in range(2000)}
    assert len(draws) == 2000 and all(0 <= draw < 1 for draw in draws)
    assert 0.45 < sum(draws) / len(draws) < 0.55
    assert mix_draw("seed-y", "s7", 12) != mix_draw("seed-x", "s7", 12) != mix_draw("seed-x", "s8", 12)


def test_choose_takes_the_first_entry_whose_running_sum_exceeds_the_draw() -> None:
    mix = Mix.of({Fold(): 0.2, Bet(3): 0.0, Show(): 0.3, Bet(5): 0.5})
    assert [choose(mix, draw) for draw in (0.0, 0.1999, 0.2, 0.4999, 0.5, 0.99999)] == [
        Fold(), Fold(), Show(), Show(), Bet(5), Bet(5)]
    # A zero entry is never picked, even at the end where rounding could leave no entry above the draw.
    assert choose(Mix.of({Fold(): 1.0, Show(): 0.0}), math.nextafter(1.0, 0.0)) == Fold()
    counts = {kind: 0 for kind in ("fold", "show")}
    for index in range(4000):
        counts["fold" if choose(Mix.of({Fold(): 0.25, Show(): 0.75}), mix_draw("f", "s", index)) == Fold()
               else "show"] += 1
    assert 850 < counts["fold"] < 1150


@pytest.mark.parametrize("mix, problem", [
    (Mix(()), "a mix without entries"),
    (Mix.of([(Fold(), 1 / 65)] * 65), "a mix of 65 entries; at most 64 are allowed"),
    (Mix.of({Fold(): -0.25, Show(): 1.25}), "entry 1 has a negative probability -0.25"),
    (Mix.of({Fold(): math.nan, Show(): 1.0}), "entry 1 has probability nan: not a finite number"),
    (Mix.of({Fold(): 0.5, Show(): math.inf}), "entry 2 has probability inf: not a finite number"),
    (Mix.of([(Bet(2), 0.5), (Bet(2), 0.5)]), "entry 2 repeats Bet(amount=2): each action may appear once"),
    (Mix.of({Look(): 0.5, Fold(): 0.5}), "entry 1 is Look(): a mix holds betting actions only (answer a look plainly)"),
    (Mix.of({Fold(): 0.5, Show(): 0.500000002}), "the probabilities sum to 1.000000002, not 1 (within 1e-09)"),
])
def test_a_malformed_mix_says_what_is_wrong(mix: Mix, problem: str) -> None:
    assert mix.problem() == problem


def test_a_sum_within_the_tolerance_is_well_formed() -> None:
    assert Mix.of({Fold(): 0.1, Show(): 0.2, Bet(1): 0.7}).problem() is None  # 0.1 + 0.2 is not 0.3 in doubles
    assert Mix.of({Fold(): 0.5, Show(): 0.5 + 5e-10}).problem() is None


def test_apply_mix_records_the_distribution_and_the_draw_and_plays_the_drawn_action() -> None:
    state = SessionState(GEORGIAN, bots=["a", "b"], seed="mixed", session="m1")
    before = [event.to_json() for event in state.events]
    mix = Mix.of({Fold(): 0.5, Bet(2): 0.5})
    events = state.apply_mix(mix)
    record = events[0].to_json()
    draw = mix_draw("mixed", "m1", 0)
    assert record["mix"] == [{"kind": "fold", "p": 0.5}, {"kind": "bet", "amount": "2", "p": 0.5}]
    assert record["draw"] == draw and record["kind"] == ("fold" if draw < 0.5 else "bet")
    assert list(record)[-2:] == ["mix", "draw"]
    assert json.loads(json.dumps(record)) == record  # the double survives JSON exactly
    assert before[0]["format"] == 3
    # The next action event's draw has the next index, a plain action keeps its old form.
    if not state.is_finished and state.to_act is not None:
        (plain, *_) = state.apply(Fold())
        assert "mix" not in plain.to_json() and state.actions_taken == 2


def test_a_raise_entry_names_its_stake_and_round_trips() -> None:
    mix = Mix.of({Support(): 0.5, Raise(3): 0.5, Fold(): 0.0})
    assert mix.to_json() == [{"kind": "support", "p": 0.5}, {"kind": "raise", "stake": "3", "p": 0.5},
                             {"kind": "fold", "p": 0.0}]
    assert Mix.from_json(mix.to_json()) == mix


def test_an_illegal_entry_is_refused_and_the_state_is_untouched() -> None:
    state = SessionState(GEORGIAN, bots=["a", "b"], seed="mixed", session="m1")
    events = list(state.events)
    with pytest.raises(IllegalActionError, match="entry 2 of the mix: "):
        state.apply_mix(Mix.of({Fold(): 0.5, Bet(11): 0.0, Bet(2): 0.5}))
    with pytest.raises(IllegalActionError, match="negative probability"):
        state.apply_mix(Mix.of({Fold(): -0.5, Bet(2): 1.5}))
    assert state.events == events and state.actions_taken == 0


def test_a_format_2_session_has_no_mixed_replies() -> None:
    state = SessionState(profile("seka36"), bots=["a", "b"], seed="old", history_format=2)
    assert state.events[0].to_json()["format"] == 2
    with pytest.raises(IllegalActionError, match="history format 2 has no mixed replies"):
        state.apply_mix(Mix.of({Fold(): 1.0}))
