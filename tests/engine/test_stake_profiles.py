"""PROFILES.md section 3: the heads-up stake profiles of seed 004 (`seka36`, `svara32`, `seka21`):
stacks, a current stake, support and raise, open or call, short of chips with returned chips, the
session cut when an ante cannot be paid, ties, and dark play with LOOK. Each test breaks with its rule."""

from __future__ import annotations

from fractions import Fraction

import pytest

from arena.engine import (
    Call,
    ChipsReturned,
    Dealt,
    IllegalActionError,
    Looked,
    Open,
    Phase,
    PotSplit,
    RulesError,
    SessionCut,
    SessionEnded,
    SessionState,
    ShortOfChips,
    ShowdownHeld,
    Support,
    SvaraDeclared,
    profile,
    redact_for,
    turn_view,
)
from arena.history import HistoryError
from arena.replay import replay_records

from ._profiles import replayed, stacked

# Seat 1 deals the first pot, so seat 0 (the non-dealer) acts first.
_STRONG, _WEAK = "As Ks 9s", "Kh Qd 8c"  # 30 and 10 in seka36 and svara32


def _table(name: str, options: dict[str, object] | None = None, pots: int = 1, **deals: str) -> SessionState:
    rules = profile(name, options).with_table(pots_per_session=pots)
    hands = {0: deals.get("zero", _STRONG), 1: deals.get("one", _WEAK)}
    return stacked(rules, 2, first_dealer=1, deals={(1, 0): hands})


@pytest.mark.parametrize("name", ["seka36", "svara32", "seka21"])
def test_stake_profiles_are_heads_up_with_stacks_of_50_ante_and_stake_1(name: str) -> None:
    rules = profile(name)
    assert (rules.min_seats, rules.max_seats, rules.stack, rules.ante, rules.opening_stake) == (2, 2, 50, 1, 1)
    state = SessionState(rules, bots=["a", "b"], seed="s")
    start = state.events[0].to_json()
    assert start["stacks"] == {"0": "50", "1": "50"} and start["options"]["stack"] == "50"
    assert state.stacks() == (49, 49) and turn_view(state).stacks == (49, 49) and turn_view(state).stake == 1
    with pytest.raises(IllegalActionError, match="seats 2 to 2 players, not 3"):
        SessionState(rules, bots=["a", "b", "c"], seed="s")
    with pytest.raises(RulesError, match="stack"):
        profile(name, {"stack": "1"})  # cannot cover the ante and one stake
    with pytest.raises(RulesError, match="no option 'wild'"):
        profile(name, {"wild": "none"})


def test_support_pays_the_current_stake_and_a_raise_lifts_it_by_at_least_one_table_stake() -> None:
    state = _table("seka36")
    legal = state.legal_actions()
    assert (legal.can_bet, legal.support_amount, legal.raise_min, legal.raise_max) == (False, 1, 2, 49)
    assert legal.open_amount is None and legal.call_amount is None
    state.support()
    state.raise_stake(Fraction(7, 2))
    assert state.events[-1].to_json() == {"event": "action", "seat": 1, "kind": "raise", "amount": "7/2",
                                          "stake": "7/2"}
    legal = state.legal_actions()
    assert (legal.support_amount, legal.raise_min) == (Fraction(7, 2), Fraction(9, 2))
    assert legal.raise_max == Fraction(91, 2)  # both can still answer: seat 0 holds 48, seat 1 49 - 7/2
    assert not state.can_raise_stake(4) and not state.can_raise_stake(Fraction(97, 2))


def test_seka36_open_needs_both_players_to_have_acted_in_the_deal() -> None:
    state = _table("seka36")
    assert not state.can_open()  # nobody has acted
    state.support()
    assert not state.can_open()  # the dealer has not acted yet
    state.support()
    assert state.legal_actions().open_amount == 1
    state.apply(Open())
    showdown = [event for event in state.events if isinstance(event, ShowdownHeld)]
    assert showdown and showdown[0].winner == 0
    assert state.balances == [2, -2] and replayed(state).state.balances == [2, -2]  # a pot of 5, seat 0 paid 3


def test_svara32_call_ends_the_betting_after_the_first_payment_and_has_no_open() -> None:
    state = _table("svara32")
    assert not state.can_call()
    state.raise_stake(3)
    legal = state.legal_actions()
    assert legal.call_amount == 3 and legal.open_amount is None
    state.apply(Call())
    assert state.is_finished and state.balances == [4, -4]
    replayed(state)


def test_seka21_ends_with_an_open_and_values_pairs_across_suits() -> None:
    state = _table("seka21", zero="Kh Kd Qs", one="Ah Qh Ts")  # 20 against 21
    state.support()
    state.support()
    state.open()
    assert state.balances == [-3, 3]  # a pot of 5, seat 1 paid 2


def test_short_of_chips_pays_what_is_left_compares_at_once_and_the_session_is_cut() -> None:
    state = _table("seka36", {"stack": 2}, pots=8, zero=_WEAK, one=_STRONG)
    state.support()  # seat 0: 1 left after the ante, now 0
    assert state.legal_actions().raise_min is None  # seat 0 could not answer a raise
    state.support()  # seat 1: now 0
    legal = state.legal_actions()
    assert legal.short and legal.support_amount == 0 and legal.raise_min is None
    state.apply(Support())  # seat 0 cannot cover the stake of 1
    kinds = [event.KIND for event in state.events[-6:]]
    assert kinds == ["action", "short", "showdown", "pot_won", "session_cut", "session_end"]  # a support is kept
    short = state.events[-5]
    assert isinstance(short, ShortOfChips) and (short.seat, short.paid, short.needed) == (0, 0, 1)
    assert state.balances == [-2, 2]  # seat 1 takes the whole pot of 4
    cut, end = state.events[-2], state.events[-1]
    assert isinstance(cut, SessionCut) and cut.seats == (0,) and cut.pots_played == 1 and cut.stacks == (0, 4)
    assert isinstance(end, SessionEnded) and end.winners == (1,)
    assert state.pot_number == 1 and state.is_finished
    assert replayed(state).state.events == state.events


def test_a_short_answer_to_a_support_gives_nothing_back_so_the_short_winner_takes_the_whole_pot() -> None:
    """Seed 004 gives back only "any unmatched part of a raise": the support stays in the pot (edition 1
    gave it back, and a short winner took 3 where it takes 4)."""
    state = _table("seka36", {"stack": 2}, pots=8)  # seat 0 holds the stronger hand
    state.support()
    state.support()
    state.support()  # seat 0 short, 0 of 1
    assert not any(isinstance(event, ChipsReturned) for event in state.events)
    assert state.balances == [2, -2]
    assert replayed(state).state.events == state.events


@pytest.mark.parametrize(("name", "ending"), [("seka36", Open()), ("seka21", Open()), ("svara32", Call())])
def test_a_supported_all_in_raise_is_not_given_back_to_the_supporter(name: str, ending: Open | Call) -> None:
    """docs/rules.md's worked example: B raises to 48 with 49 left, A supports 48 with all it has, B ends
    the betting short for its last chip. The whole pot of 100 goes to the winner (edition 1 gave A's 47
    back to A, and B won 53)."""
    strong = "Ts Js As" if name == "seka21" else _STRONG
    weak = "Th Qd Kc" if name == "seka21" else _WEAK
    state = _table(name, zero=weak, one=strong)
    state.support()  # A (seat 0): 48 left
    state.raise_stake(48)  # B (seat 1): 1 left
    assert not state.can_raise_stake(49)  # A could not answer more
    state.support()  # A: 0 left
    legal = state.legal_actions()
    assert legal.short and (legal.open_amount if isinstance(ending, Open) else legal.call_amount) == 1
    events = state.apply(ending)
    assert [event.KIND for event in events[:4]] == ["action", "short", "showdown", "pot_won"]
    assert events[3].to_json()["amount"] == "100" and state.balances == [-50, 50]
    assert replayed(state).state.events == state.events


def _shift(state: SessionState, chips: Fraction, to: int) -> None:
    """Move chips between the two stacks (the stacks a later pot of the session could have left), and
    work out the awaited turn again, as the engine does once per turn."""
    state.balances[1 - to] -= chips
    state.balances[to] += chips
    state._done(len(state.events))


def test_a_short_answer_to_a_dark_bet_gives_nothing_back() -> None:
    state = _table("seka36", {"dark": True, "stack": 3})
    _shift(state, Fraction(3, 2), to=0)  # the dealer (seat 1) holds 1/2 after its ante
    state.dark_bet(1)  # seat 0, unread: the dealer pays twice, 2
    legal = state.legal_actions()
    assert legal.short and legal.pay_factor == 2 and legal.support_amount == Fraction(1, 2)
    short = state.support()[1]
    assert isinstance(short, ShortOfChips) and (short.paid, short.needed) == (Fraction(1, 2), 2)
    assert not any(isinstance(event, ChipsReturned) for event in state.events)  # edition 1 gave back 1/2
    assert state.pot == 0 and sum(state.balances) == 0


@pytest.mark.parametrize(("dark_raiser", "paid_factor", "needed"), [
    (False, 2, 3),  # the raiser pays twice against the unread hand: 6 for a stake of 3, the other owes 3
    (True, 1, 6),  # the unread raiser pays the plain 3, the other (who looked) owes twice, 6
])
def test_a_raise_answered_short_gives_back_the_part_the_short_payment_does_not_match(
        dark_raiser: bool, paid_factor: int, needed: int) -> None:
    """The raise bound keeps every raise answerable, so play never reaches this: the answerer's stack is
    cut after the raise to exercise the rule's arithmetic, raise payment x (1 - paid / needed)."""
    state = _table("seka36", {"dark": True})
    if dark_raiser:
        state.dark_bet(1)  # seat 0 bets dark; seat 1 (who looked) answers
        state.support()  # seat 1 pays twice, 2
        state.raise_stake(3)  # seat 0, still unread, pays 3
        raiser, answerer = 0, 1
    else:
        state.dark_bet(1)
        state.raise_stake(3)  # seat 1 pays 6 against the unread hand
        raiser, answerer = 1, 0
    raise_paid = 3 * paid_factor
    assert state.events[-1].to_json()["amount"] == str(raise_paid)
    _shift(state, state.stack_of(answerer) - 1, to=raiser)  # the answerer now holds 1 of the `needed`
    legal = state.legal_actions()
    assert legal.short and legal.support_amount == 1 and legal.pay_factor * 3 == needed
    short, returned = state.support()[1:3]
    assert isinstance(short, ShortOfChips) and (short.paid, short.needed) == (1, needed)
    assert isinstance(returned, ChipsReturned) and returned.seat == raiser
    assert returned.amount == raise_paid * (1 - Fraction(1, needed)) and returned.raise_paid == raise_paid
    assert returned.to_json() == {"event": "returned", "seat": raiser, "amount": str(returned.amount),
                                  "raise": str(raise_paid)}


def test_edition_1_histories_replay_under_the_rule_they_were_played_with() -> None:
    """Histories written before the correction name no format: they give the other's last payment back,
    and `replay` still re-checks them; a format-2 history with such a return is refused."""
    old_rules = profile("seka36", {"stack": 2}).with_table(pots_per_session=1, edition=1)
    old = stacked(old_rules, 2, first_dealer=1, deals={(1, 0): {0: _STRONG, 1: _WEAK}})
    for _ in range(3):
        old.support()
    assert "format" not in old.events[0].to_json()
    returned = next(event for event in old.events if isinstance(event, ChipsReturned))
    assert returned.amount == 1 and "raise" not in returned.to_json() and old.balances == [1, -1]
    assert replayed(old).state.events == old.events
    records = [event.to_json() for event in old.events]
    records[0] = {**records[0], "format": 2}
    with pytest.raises(HistoryError, match="recorded .*returned.* but the rules give .*showdown"):
        replay_records(records)
    new = _table("seka36", {"stack": 2}, pots=8)
    assert new.events[0].to_json()["format"] == 3


def test_a_stake_profile_ties_the_ante_to_the_table_stake() -> None:
    with pytest.raises(RulesError, match="ante is the table stake"):
        profile("seka36").with_table(ante=3)
    assert profile("svara32").with_table(ante=2, opening_stake=2).ante == 2
    assert profile("seka36").with_table(ante=3, edition=1).ante == 3  # an old history may have played so


def test_a_tie_replays_the_pot_between_the_two_and_seka36_may_split_it() -> None:
    tie = {"zero": "Ah Kh 7d", "one": "Ad Kd 6s"}  # 21 and 21
    state = _table("seka36", **tie)
    state.support()
    state.support()
    state.open()
    svara = [event for event in state.events if isinstance(event, SvaraDeclared)]
    assert svara and svara[0].eligible == () and state.replay == 1 and state.phase is Phase.BETTING
    split = _table("seka36", {"tie": "split"}, **tie)
    split.support()
    split.support()
    split.open()
    assert isinstance(split.events[-2], PotSplit)
    assert split.balances == [Fraction(-1, 2), Fraction(1, 2)]  # a pot of 5 shared; seat 0 paid 3, seat 1 2
    with pytest.raises(RulesError, match="no option 'tie'"):
        profile("svara32", {"tie": "split"})


def test_dark_the_non_dealer_bets_one_stake_unseen_and_the_looked_player_pays_twice() -> None:
    state = _table("seka36", {"dark": True})
    deal = state.events[1]
    assert isinstance(deal, Dealt) and deal.unseen == (0,) and redact_for(deal, 0).hands == {}
    legal = state.legal_actions()
    assert (legal.seen, legal.can_look, legal.dark_min, legal.dark_max) == (False, True, 1, 1)
    assert legal.support_amount is None and turn_view(state).cards == ()
    state.dark_bet(1)
    legal = state.legal_actions()  # the dealer has looked; seat 0's hand stays unread
    assert (legal.pay_factor, legal.support_amount, legal.raise_min) == (2, 2, 2)
    assert legal.raise_max == Fraction(49, 2)  # it pays twice: 49 chips answer a stake of 49/2
    state.raise_stake(3)
    assert state.events[-1].to_json()["amount"] == "6"
    legal = state.legal_actions()  # the dark player may play on unread, at the plain stake
    assert (legal.seen, legal.can_look, legal.support_amount, legal.open_amount) == (False, True, 3, 3)
    events = state.look()
    assert isinstance(events[0], Looked) and state.to_act == 0  # LOOK keeps the turn
    assert redact_for(events[0], 1).cards == ()
    state.support()  # seat 0 pays the plain stake, 3
    assert state.legal_actions().pay_factor == 1  # the hand is read: no more doubling
    assert state.legal_actions().open_amount == 3
    state.open()
    assert state.balances == [10, -10]  # seat 0 paid 1 + 1 + 3, seat 1 paid 1 + 6 + 3
    assert replayed(state).state.balances == state.balances
