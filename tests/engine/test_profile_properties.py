"""Random legal play of every profile and option set, checked after every decision.

For each profile (PROFILES.md): balances and the pot always sum to zero, and so do the balances at
the end (stack changes in a stake profile); the pot equals what was paid into it since it started;
a raise is always answerable, so a short payment never answers one and no chips go back; every
payment is within the bounds the turn offered (and never above a stack); a stack never goes
negative; the same seed and decisions give the same events, which `replay` re-checks.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.engine import (
    PROFILE_SPECS,
    Acted,
    Action,
    Amount,
    AntePaid,
    Bet,
    Call,
    ChipsReturned,
    DarkBet,
    Entered,
    Event,
    Fold,
    LegalActions,
    Look,
    MultiwayOpen,
    Open,
    Phase,
    PotSplit,
    PotWon,
    Raise,
    Rules,
    SessionState,
    ShortOfChips,
    Show,
    Support,
    SvaraAnswer,
    profile,
)

from ._profiles import NAMES, replayed


def _option_sets(name: str) -> list[dict[str, str]]:
    """A profile's defaults, each other value of each option alone, and a few combinations."""
    spec = PROFILE_SPECS[name]
    sets: list[dict[str, str]] = [{}]
    sets += [{option.name: value}
             for option in spec.options if option.values is not None for value in option.values[1:]]
    return sets + _COMBINED.get(name, [])


_COMBINED: dict[str, list[dict[str, str]]] = {
    "georgian": [{"deck": "32", "tie": "split", "dark": "true"}],
    "classic": [{"open": "multiway", "dark": "true", "tie": "split", "wild": "black7"},
                {"cards": "2", "deck": "24", "open": "multiway"}],
    # Small stacks: short of chips and the session cut come up often.
    "seka36": [{"stack": "2", "tie": "split"}, {"stack": "3", "dark": "true"}],
    "svara32": [{"stack": "3", "dark": "true"}],
    "seka21": [{"stack": "5/2", "dark": "true"}],
}
_SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _amount(rng: random.Random, low: Amount, high: Amount) -> Amount:
    """An amount in [low, high]: either bound, a whole number or a half between them."""
    choices: list[Amount] = [low, high]
    if math.ceil(low) <= math.floor(high):
        choices.append(rng.randint(math.ceil(low), math.floor(high)))
    middle = (Fraction(low) + Fraction(high)) / 2
    choices.append(middle.numerator if middle.denominator == 1 else middle)
    return rng.choice(choices)



def _choices(legal: LegalActions, rng: random.Random) -> list[Action]:
    choices: list[Action] = [Fold()]
    if legal.can_bet:
        choices.append(Bet(_amount(rng, legal.min_bet, legal.max_bet)))
    if legal.can_show:
        choices.append(Show())
    if legal.can_look:
        choices.append(Look())
    if legal.dark_min is not None and legal.dark_max is not None:
        choices.append(DarkBet(_amount(rng, legal.dark_min, legal.dark_max)))
    if legal.support_amount is not None:
        choices += [Support(), Support()]
    if legal.raise_min is not None and legal.raise_max is not None:
        choices.append(Raise(_amount(rng, legal.raise_min, legal.raise_max)))
    if legal.open_amount is not None:
        choices.append(Open())
    if legal.call_amount is not None:
        choices.append(Call())
    if legal.can_multiway_open:
        choices.append(MultiwayOpen())
    return choices


def _expected_payment(action: Action, legal: LegalActions) -> Amount | None:
    """What `action` must pay under `legal` (None: no payment)."""
    match action:
        case Bet(amount) | DarkBet(amount):
            return amount
        case Show():
            return legal.show_amount
        case Support():
            return legal.support_amount
        case Raise(stake):
            return stake * legal.pay_factor
        case Open():
            return legal.open_amount
        case Call():
            return legal.call_amount
        case MultiwayOpen():
            return legal.multiway_amount
    return None


def _in_pot(events: Sequence[Event]) -> Amount:
    paid: Amount = 0
    for event in events:
        if isinstance(event, (AntePaid, Acted, Entered)):
            paid += event.amount
        elif isinstance(event, ChipsReturned):
            paid -= event.amount
    return paid


def _play(rules: Rules, seats: int, seed: str, rng: random.Random) -> SessionState:
    state = SessionState(rules, bots=list(NAMES[:seats]), seed=seed)
    while not state.is_finished:
        assert state.to_act is not None
        if state.phase is Phase.SVARA_OFFER:
            state.apply(SvaraAnswer(rng.random() < 0.5))
            continue
        legal = state.legal_actions()
        seat = legal.seat
        stack_before = state.stack_of(seat) if rules.stack is not None else None
        action = rng.choice(_choices(legal, rng))
        mark = len(state.events)
        answering = state.deal_actions[-1].kind if state.deal_actions else None
        state.apply(action)
        new = state.events[mark:]
        expected = _expected_payment(action, legal)
        if expected is not None:
            acted = new[0]
            assert isinstance(acted, Acted) and acted.seat == seat and acted.amount == expected
            assert stack_before is None or expected <= stack_before
        if isinstance(action, Bet):
            assert legal.min_bet <= action.amount <= legal.max_bet
        for event in new:
            # The raise bound keeps a raise answerable in full, so only a raise's part could go back, never.
            assert not isinstance(event, ChipsReturned)
            if isinstance(event, ShortOfChips):
                assert answering != "raise"
        # Zero-sum at every step; the pot is what was paid into it since it started.
        assert sum(state.balances) + state.pot == 0
        if not state.is_finished and not any(isinstance(e, (PotWon, PotSplit)) for e in new):
            assert state.pot == _in_pot(state.events[state.pot_start :])
        stacks = state.stacks()
        assert stacks is None or min(stacks) >= 0
    assert sum(state.balances) == 0
    return state


@pytest.mark.parametrize("name", list(PROFILE_SPECS))
@_SETTINGS
@given(data=st.data(), seats=st.integers(2, 8), seed=st.text(max_size=8), decisions=st.integers(0, 2**32),
       cap=st.sampled_from([3, 8, 200]))
def test_each_profile_plays_zero_sum_within_bounds_and_deterministically(
        name: str, data: st.DataObject, seats: int, seed: str, decisions: int, cap: int) -> None:
    options = data.draw(st.sampled_from(_option_sets(name)), label="options")
    rules = profile(name, options).with_table(max_actions=cap)
    seats = min(max(seats, rules.min_seats), rules.max_seats)
    state = _play(rules, seats, seed, random.Random(decisions))
    again = _play(rules, seats, seed, random.Random(decisions))
    assert again.events == state.events  # determinism
    assert replayed(state).state.events == state.events


def test_small_stacks_reach_short_of_chips_and_the_session_cut() -> None:
    # The random play above must reach the stake profiles' rarer events, or its checks prove little.
    seen: set[str] = set()
    for number in range(40):
        state = _play(profile("seka36", {"stack": "2"}), 2, f"small-{number}", random.Random(number))
        seen.update(event.KIND for event in state.events)
    assert {"short", "session_cut"} <= seen
