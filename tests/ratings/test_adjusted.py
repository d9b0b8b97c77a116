"""The adjusted result: its terms on hand-checked decisions and deals, replay checks, cross-fitting, Q's digest."""

from __future__ import annotations

from fractions import Fraction

import pytest

from arena.engine import GEORGIAN, Acted, Bet, Fold, Mix, SessionState, SvaraDeclared, profile
from arena.policies import SoftThresholdPolicy, ThresholdPolicy, play_in_process
from arena.ratings import (
    VALUE_FUNCTION,
    RatingError,
    SessionOutcome,
    SessionTerms,
    adjust,
    block_half,
    session_terms,
    value_function_digest,
)


def _pot_share(state: SessionState, seat: int) -> Fraction:
    """The seat's share of the pot were the hands still in compared now (the test's own arithmetic)."""
    values = {s: state.hand_value(s) for s in state.in_deal}
    best = max(values.values())
    leaders = [s for s in state.in_deal if values[s] == best]
    return Fraction(1, len(leaders)) if seat in leaders else Fraction(0)


def test_a_known_decision_subtracts_its_value_less_the_mix_average() -> None:
    for number in range(8):  # both draws of the mix, on hands that win and hands that lose
        state = SessionState(GEORGIAN, bots=["a", "b"], seed=f"adjusted-{number}")
        seat = state.to_act
        assert seat is not None
        share = _pot_share(state, seat)
        [acted] = [event for event in state.apply_mix(Mix.of({Fold(): 0.25, Bet(3): 0.75}))
                   if isinstance(event, Acted)]
        while not state.is_finished:  # the rest played plainly: nothing known about it
            state.fold()
        terms = session_terms(GEORGIAN, state.events)
        # After the bet: -1 - 3 + 5 x share for the bettor; after a fold: -1; the other seat mirrors it.
        after_bet, after_fold = -4 + 5 * share, Fraction(-1)
        expected = Fraction(1, 4) * after_fold + Fraction(3, 4) * after_bet
        after = after_bet if acted.kind == "bet" else after_fold
        assert terms.decisions[seat] == after - expected
        assert terms.decisions[1 - seat] == -(after - expected)
        assert terms.raw == tuple(state.balances)


def test_without_mixes_only_deals_give_terms_and_every_term_sums_to_zero_over_the_seats() -> None:
    rules = profile("classic")
    policies = [ThresholdPolicy(name=f"t{seat}", evaluator=rules.evaluator, call_from=14 + seat) for seat in range(4)]
    for number in range(30):
        state = play_in_process(rules, policies, seed=f"plain-{number}")
        assert not any(isinstance(event, Acted) and event.mix for event in state.events)
        terms = session_terms(rules, state.events)
        assert terms.decisions == (0, 0, 0, 0)
        assert sum(terms.redeals) == 0 and sum(terms.luck) == 0
        assert terms.known == terms.raw or any(terms.redeals)


def test_an_ordinary_deals_luck_is_the_pot_times_share_less_one_over_players() -> None:
    state = SessionState(GEORGIAN, bots=["a", "b", "c"], seed="luck")
    expected = [Fraction(0)] * 3
    pot = 0
    while not state.is_finished:
        if state.pot_number != pot:  # a new ordinary deal: 3 antes, shared by the best hands dealt
            pot = state.pot_number
            expected = [luck + 3 * (_pot_share(state, seat) - Fraction(1, 3)) for seat, luck in enumerate(expected)]
        state.fold()
    terms = session_terms(GEORGIAN, state.events)
    assert list(terms.luck) == expected and any(expected)
    assert terms.decisions == terms.redeals == (0, 0, 0)


def test_a_svara_replays_deal_gives_the_pot_times_share_less_one_over_players() -> None:
    state = SessionState(GEORGIAN, bots=["a", "b"], seed="svara-12")  # the first show ties: a svara
    state.bet(1)
    events = state.show()
    assert any(isinstance(event, SvaraDeclared) for event in events) and state.replay == 1
    # Heads-up nobody else may enter: the replay is dealt at once, for the whole pot of 2 antes + 1 + 1.
    expected = [4 * (_pot_share(state, seat) - Fraction(1, 2)) for seat in range(2)]
    assert any(expected)
    while not state.is_finished:
        state.fold()
    terms = session_terms(GEORGIAN, state.events)
    assert list(terms.redeals) == expected
    assert terms.known == tuple(raw - redeal for raw, redeal in zip(terms.raw, expected, strict=True))


def test_a_history_that_does_not_replay_is_refused() -> None:
    state = play_in_process(GEORGIAN, [SoftThresholdPolicy(name="a"), ThresholdPolicy(name="b")], seed="tampered")
    events = list(state.events)
    with pytest.raises(RatingError, match="stops before"):
        session_terms(GEORGIAN, events[:-3])
    with pytest.raises(RatingError, match="seeded"):
        session_terms(GEORGIAN, events[1:])
    swapped = SessionState(GEORGIAN, bots=["a", "b"], seed="another")
    with pytest.raises(RatingError, match="replay"):
        session_terms(GEORGIAN, [swapped.events[0], *events[1:]])


def test_cross_fitting_corrects_each_half_with_the_other_halfs_coefficient() -> None:
    def session(block: str, luck: int, result: int) -> tuple[SessionOutcome, SessionTerms]:
        return (SessionOutcome(("a", "b"), (result, -result), block),
                SessionTerms((result, -result), (0, 0), (0, 0), (luck, -luck)))

    first = [name for name in (f"b{n}" for n in range(40)) if block_half(name) == 0][:4]
    second = [name for name in (f"b{n}" for n in range(40)) if block_half(name) == 1][:4]
    # Half 0: results are twice the luck; half 1: three times. Each half is corrected by the other's slope.
    sessions = [session(block, luck, 2 * luck) for block, luck in zip(first, (1, -1, 2, -2), strict=True)]
    sessions += [session(block, luck, 3 * luck) for block, luck in zip(second, (1, -1, 2, -2), strict=True)]
    adjusted = adjust(sessions)
    for (outcome, terms), fixed in zip(sessions, adjusted, strict=True):
        slope = 3 if block_half(outcome.block) == 0 else 2
        luck = terms.luck[0]
        assert fixed.balances == (outcome.balances[0] - slope * luck, -(outcome.balances[0] - slope * luck))
        assert fixed.bots == outcome.bots and fixed.block == outcome.block


def test_adjusted_balances_sum_to_zero_when_coefficients_differ_by_bot() -> None:
    rules = GEORGIAN
    policies = [SoftThresholdPolicy(name="soft"), ThresholdPolicy(name="tight", call_from=24),
                ThresholdPolicy(name="loose", call_from=14)]
    sessions = []
    for number in range(40):
        state = play_in_process(rules, policies, seed=f"sum-{number}")
        terms = session_terms(rules, state.events)
        sessions.append((SessionOutcome(state.bots, tuple(state.balances), f"blk{number}"), terms))
    adjusted = adjust(sessions)
    assert all(sum(outcome.balances) == 0 for outcome in adjusted)
    assert all(isinstance(balance, int | Fraction) for outcome in adjusted for balance in outcome.balances)
    assert any(fixed.balances != terms.raw for fixed, (_, terms) in zip(adjusted, sessions, strict=True))


def test_the_value_function_is_named_and_its_digest_pinned() -> None:
    # A changed Q changes this digest: change VALUE_FUNCTION's version with it (docs/ratings.md).
    assert VALUE_FUNCTION == "hindsight/1"
    assert value_function_digest() == "b3f60be4bc15cde9d37d77f188cf1125d8f75c93fd4ab7ae1efa17fc35c23ecf"
