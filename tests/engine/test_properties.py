"""Random legal play over many seeds and table sizes, checked step by step by the Referee of
_support.py (an independent reading of the rules) and by direct invariants.

Checked after every decision: balances + pot == 0; the pot equals what was paid in since the
pot started; the seat to act, the previous bet and the legal bounds. Checked on the event stream:
every payment within its bounds, shows only heads-up after a bet and for the previous bet, svara
prices = frozen pot / 2 of the pot at the tie, eligibility and asking order, replay dealers and
turn order, the action cap, dealer rotation, deals = deck_order(seed, pot, replay) with seat s
at positions 3s..3s+2 and disjoint hands, eight resolved pots, balances summing to zero.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from fractions import Fraction
from itertools import combinations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.engine import (
    DECK_36,
    GEORGIAN,
    GEORGIAN_EVALUATOR,
    Acted,
    AntePaid,
    Bet,
    Card,
    Entered,
    Fold,
    PotWon,
    SessionState,
    Show,
    SvaraAnswer,
    deck_order,
)

from ._support import NAMES, Referee, Style, play_out, random_step

_SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])

styles = st.builds(
    Style,
    fold=st.floats(0.05, 0.6),
    show=st.floats(0.0, 1.0),
    raise_=st.floats(0.0, 0.6),
    accept=st.floats(0.0, 1.0),
    fault=st.floats(0.0, 0.1),
    fraction=st.floats(0.0, 0.2),
)
seeds = st.text(min_size=0, max_size=12)
caps = st.sampled_from([2, 3, 4, 6, 10, 200])


@_SETTINGS
@given(seats=st.integers(2, 6), seed=seeds, decisions=st.integers(0, 2**32), cap=caps, style=styles)
def test_random_seeded_sessions_obey_the_rules(seats: int, seed: str, decisions: int, cap: int, style: Style) -> None:
    rules = GEORGIAN.with_table(max_actions=cap)
    state = SessionState(rules, bots=NAMES[:seats], seed=seed)
    referee = Referee(rules, seed=seed)
    referee.agree_with(state)
    rng = random.Random(decisions)
    read, paid_in = 0, 0  # payments since the current pot started, summed from the events alone
    while not state.is_finished:
        random_step(state, rng, style)
        referee.agree_with(state)
        for event in state.events[read:]:
            if isinstance(event, (AntePaid, Acted, Entered)):
                assert 0 <= event.amount <= max(rules.max_bet, rules.ante, Fraction(referee.price))
                paid_in += event.amount
            elif isinstance(event, PotWon):
                assert event.amount == paid_in
                paid_in = 0
        read = len(state.events)
        assert sum(state.balances) + state.pot == 0
        assert state.pot == paid_in
        assert state.actions_in_deal <= cap
    assert sum(state.balances) == 0 and state.pot == 0
    assert [event.pot for event in state.events if isinstance(event, PotWon)] == list(range(1, 9))


_BY_STRENGTH: dict[int, list[tuple[Card, ...]]] = {}
for _hand in combinations(DECK_36, 3):
    _BY_STRENGTH.setdefault(GEORGIAN_EVALUATOR.value(_hand).strength, []).append(_hand)
_TIE_POOLS = [hands for hands in _BY_STRENGTH.values() if len(hands) >= 200]


def _tie_heavy(seed: str, seats: int) -> object:
    """A shuffler that, in most deals, gives every seat a hand of the same value (so every
    showdown and reveal is a svara), and otherwise a seeded order. Orders stay permutations."""
    pools = _TIE_POOLS

    def order(pot: int, replay: int) -> Sequence[Card]:
        rng = random.Random(f"{seed}|{pot}|{replay}")
        if rng.random() < 0.25:
            return deck_order(seed, pot, replay, DECK_36)
        pool = rng.choice(pools)
        chosen: list[Card] = []
        for hand in rng.sample(pool, len(pool)):
            if len(chosen) == 3 * seats:
                break
            if not set(hand) & set(chosen):
                chosen.extend(hand)
        rest = [card for card in deck_order(seed, pot, replay, DECK_36) if card not in chosen]
        return chosen + rest

    return order


@settings(max_examples=200, deadline=None)
@given(seats=st.integers(2, 6), seed=seeds, decisions=st.integers(0, 2**32), cap=caps, style=styles)
def test_svara_chains_obey_the_rules(seats: int, seed: str, decisions: int, cap: int, style: Style) -> None:
    rules = GEORGIAN.with_table(max_actions=cap, pots_per_session=3)
    state = SessionState(rules, bots=NAMES[:seats], seed=seed, shuffler=_tie_heavy(seed, seats))  # type: ignore[arg-type]
    referee = Referee(rules)
    referee.agree_with(state)
    # lean towards folding so that chains of ties end with a lone survivor
    play_out(state, random.Random(decisions), Style(fold=max(style.fold, 0.3), show=style.show, accept=style.accept,
                                                    fault=style.fault, fraction=style.fraction), referee=referee)
    assert sum(state.balances) == 0


def test_tie_heavy_deals_reach_nested_svaras_with_fractional_prices() -> None:
    totals: Counter[str] = Counter()
    for index in range(30):
        seats = 2 + index % 5
        rules = GEORGIAN.with_table(max_actions=(2, 4, 200)[index % 3], pots_per_session=3)
        state = SessionState(rules, bots=NAMES[:seats], seed=str(index), shuffler=_tie_heavy(str(index), seats))  # type: ignore[arg-type]
        referee = Referee(rules)
        referee.agree_with(state)
        play_out(state, random.Random(index), Style(fold=0.3), referee=referee)
        totals.update(referee.stats)
    assert totals["nested"] >= 10 and totals["fraction_prices"] >= 10 and totals["entries"] >= 10, totals


def _replay(seed: str, seats: int, cap: int, decisions: list[tuple]) -> SessionState:  # type: ignore[type-arg]
    state = SessionState(GEORGIAN.with_table(max_actions=cap), bots=NAMES[:seats], seed=seed)
    for decision in decisions:
        if decision[0] == "bet":
            state.apply(Bet(decision[1]))
        elif decision[0] == "show":
            state.apply(Show())
        elif decision[0] == "fold":
            state.apply(Fold(), fault=decision[1])
        else:
            state.apply(SvaraAnswer(decision[1]), fault=decision[2])
    return state


@settings(max_examples=100, deadline=None)
@given(seats=st.integers(2, 6), seed=seeds, decisions=st.integers(0, 2**32), cap=caps, style=styles)
def test_same_seed_and_same_decisions_give_the_same_events(seats: int, seed: str, decisions: int, cap: int,
                                                           style: Style) -> None:
    rules = GEORGIAN.with_table(max_actions=cap)
    first = SessionState(rules, bots=NAMES[:seats], seed=seed)
    made = play_out(first, random.Random(decisions), style)
    second = SessionState(rules, bots=NAMES[:seats], seed=seed)
    assert play_out(second, random.Random(decisions), style) == made
    assert second.events == first.events
    assert [event.to_json() for event in second.events] == [event.to_json() for event in first.events]
    # and the recorded decisions alone, fed through apply(), rebuild the same history
    assert _replay(seed, seats, cap, made).events == first.events


@settings(max_examples=200, deadline=None)
@given(seed=st.text(max_size=20), pot=st.integers(1, 50), replay=st.integers(0, 10))
def test_deck_orders_are_permutations(seed: str, pot: int, replay: int) -> None:
    order = deck_order(seed, pot, replay, DECK_36)
    assert len(order) == 36 and sorted(order) == sorted(DECK_36)
    assert deck_order(seed, pot, replay, DECK_36) == order


def test_thousands_of_seeded_pots_reach_every_rule_path() -> None:
    totals: Counter[str] = Counter()
    pots = 0
    for index in range(240):
        seats = 2 + index % 5
        rules = GEORGIAN.with_table(max_actions=(3, 5, 12, 200)[index % 4])
        seed = f"many-{index}"
        state = SessionState(rules, bots=NAMES[:seats], seed=seed)
        referee = Referee(rules, seed=seed)
        referee.agree_with(state)
        play_out(state, random.Random(index), Style(fold=0.15 + 0.1 * (index % 3), fault=0.03), referee=referee)
        totals.update(referee.stats)
        pots += referee.resolved
    assert pots == 240 * 8
    # the random policy must actually reach the rare paths the referee checks
    for path in ("svaras", "nested", "reveals", "showdowns", "unseen", "entries", "fraction_prices", "faults"):
        assert totals[path] > 0, (path, totals)
