"""000 section 06, the worked carried pot, reproduced event by event.

Seats A=0, B=1, C=2, D=3 and B deals, so C, D, A, B act in that order. "Four ante 1: pot 4. A
pays 2, B pays 2, C and D fold: pot 8. A pays 2 to show: pot 10. Both hold two aces, each 22,
and tie. C re-enters for 10/2=5; D declines: carried pot 15. In the replay, A pays 1, B pays 1,
C folds; A then pays 1 to show: pot 18. A has 10♦-8♦-6♦=24; B has A♥-A♠-7♦=22. A wins 18.
... net +11; B contributed 4, C 6, D 1."

In the replay the deal moves from B to C, the next replay player clockwise (table clarification
6), so A, on C's left, opens the replay betting, as the text has it.
"""

from __future__ import annotations

import random
from typing import Any

from arena.engine import GEORGIAN, Phase, PotWon, SessionState, seeded_shuffler, stacked_shuffler

from ._support import Referee, antes_first, hands_of, jsons, play_out, pot_nets

A, B, C, D = 0, 1, 2, 3

DEALS = {
    (1, 0): {A: "Ac Ad 6h", B: "Ah As 7c", C: "Kc Qd 9s", D: "Jh 8s 7h"},
    (1, 1): {A: "Td 8d 6d", B: "Ah As 7d", C: "9h 7s 6c"},
}


def _session(pots: int) -> SessionState:
    rules = GEORGIAN.with_table(pots_per_session=pots)
    shuffler = stacked_shuffler({key: hands_of(spec) for key, spec in DEALS.items()},
                                seeded_shuffler("worked-example", rules.deck))
    return SessionState(rules, bots=["A", "B", "C", "D"], seed="worked-example", session="section-06",
                        first_dealer=B, shuffler=shuffler)


def _assert_state(state: SessionState, **expected: Any) -> None:
    actual = {name: getattr(state, name) for name in expected}
    assert actual == expected
    assert sum(state.balances) + state.pot == 0


EXPECTED_EVENTS: list[dict[str, Any]] = [
    {"event": "session_start", "format": 3, "session": "section-06", "profile": "georgian", "seed": "worked-example",
     "seats": [{"seat": 0, "bot": "A"}, {"seat": 1, "bot": "B"}, {"seat": 2, "bot": "C"}, {"seat": 3, "bot": "D"}],
     "ante": "1", "opening_stake": "1", "max_bet": "10", "pots": 1, "max_actions": 200, "first_dealer": 1,
     "dealing": "stacked"},
    # Four ante 1: pot 4.
    {"event": "ante", "seat": 0, "amount": "1"},
    {"event": "ante", "seat": 1, "amount": "1"},
    {"event": "ante", "seat": 2, "amount": "1"},
    {"event": "ante", "seat": 3, "amount": "1"},
    {"event": "deal", "pot": 1, "replay": 0, "dealer": 1,
     "hands": {"0": ["Ac", "Ad", "6h"], "1": ["Ah", "As", "7c"], "2": ["Kc", "Qd", "9s"], "3": ["Jh", "8s", "7h"]}},
    # C and D fold; A pays 2, B pays 2: pot 8.
    {"event": "action", "seat": 2, "kind": "fold", "amount": "0"},
    {"event": "action", "seat": 3, "kind": "fold", "amount": "0"},
    {"event": "action", "seat": 0, "kind": "bet", "amount": "2"},
    {"event": "action", "seat": 1, "kind": "bet", "amount": "2"},
    # A pays 2 to show: pot 10. Both hold two aces, each 22, and tie.
    {"event": "action", "seat": 0, "kind": "show", "amount": "2"},
    {"event": "showdown", "pot": 1, "replay": 0, "seats": [0, 1],
     "hands": {"0": ["Ac", "Ad", "6h"], "1": ["Ah", "As", "7c"]},
     "values": {"0": "22", "1": "22"}, "winner": None},
    {"event": "svara", "frozen_pot": "10", "tied": [0, 1], "price": "5", "eligible": [2, 3]},
    # C re-enters for 10/2=5; D declines: carried pot 15.
    {"event": "entry", "seat": 2, "accepted": True, "amount": "5"},
    {"event": "entry", "seat": 3, "accepted": False, "amount": "0"},
    {"event": "deal", "pot": 1, "replay": 1, "dealer": 2,
     "hands": {"0": ["Td", "8d", "6d"], "1": ["Ah", "As", "7d"], "2": ["9h", "7s", "6c"]}},
    # In the replay, A pays 1, B pays 1, C folds; A then pays 1 to show: pot 18.
    {"event": "action", "seat": 0, "kind": "bet", "amount": "1"},
    {"event": "action", "seat": 1, "kind": "bet", "amount": "1"},
    {"event": "action", "seat": 2, "kind": "fold", "amount": "0"},
    {"event": "action", "seat": 0, "kind": "show", "amount": "1"},
    {"event": "showdown", "pot": 1, "replay": 1, "seats": [0, 1],
     "hands": {"0": ["Td", "8d", "6d"], "1": ["Ah", "As", "7d"]},
     "values": {"0": "24", "1": "22"}, "winner": 0},
    # A wins 18.
    {"event": "pot_won", "pot": 1, "seat": 0, "amount": "18", "shown": True,
     "balances": {"0": "11", "1": "-4", "2": "-6", "3": "-1"}},
    {"event": "session_end", "balances": {"0": "11", "1": "-4", "2": "-6", "3": "-1"}, "winners": [0]},
]


def _play_section_06(state: SessionState) -> None:
    """Every step of section 06, asserting the whole public state after each one."""
    _assert_state(state, phase=Phase.BETTING, pot_number=1, replay=0, pot=4, balances=[-1, -1, -1, -1],
                  dealer=B, pot_dealer=B, to_act=C, in_deal=[A, B, C, D], participants=(A, B, C, D),
                  previous_bet=None, actions_in_deal=0, svara=None)
    state.fold()
    _assert_state(state, to_act=D, in_deal=[A, B, D], pot=4, previous_bet=None, actions_in_deal=1)
    state.fold()
    _assert_state(state, to_act=A, in_deal=[A, B], pot=4, previous_bet=None, actions_in_deal=2)
    assert not state.can_show()  # heads-up, but nobody has bet yet: the antes are not bets
    state.bet(2)
    _assert_state(state, to_act=B, pot=6, previous_bet=2, balances=[-3, -1, -1, -1])
    state.bet(2)
    _assert_state(state, to_act=A, pot=8, previous_bet=2, balances=[-3, -3, -1, -1])
    assert state.legal_actions().show_amount == 2
    state.show()
    _assert_state(state, phase=Phase.SVARA_OFFER, to_act=C, pot=10, balances=[-5, -3, -1, -1], replay=0,
                  offers_left=[C, D])
    assert state.svara is not None and (state.svara.frozen_pot, state.svara.price) == (10, 5)
    state.answer_svara(True)
    _assert_state(state, phase=Phase.SVARA_OFFER, to_act=D, pot=15, balances=[-5, -3, -6, -1], offers_left=[D])
    state.answer_svara(False)
    _assert_state(state, phase=Phase.BETTING, pot_number=1, replay=1, pot=15, balances=[-5, -3, -6, -1],
                  dealer=C, pot_dealer=B, to_act=A, in_deal=[A, B, C], previous_bet=None, actions_in_deal=0)
    state.bet(1)
    _assert_state(state, to_act=B, pot=16, previous_bet=1)
    state.bet(1)
    _assert_state(state, to_act=C, pot=17, previous_bet=1)
    state.fold()
    _assert_state(state, to_act=A, pot=17, in_deal=[A, B], balances=[-6, -4, -6, -1])
    state.show()


def test_section_06_event_by_event() -> None:
    state = _session(pots=1)
    _play_section_06(state)
    _assert_state(state, phase=Phase.FINISHED, to_act=None, pot=0, balances=[11, -4, -6, -1])
    assert antes_first(jsons(state.events)) == EXPECTED_EVENTS
    referee = Referee(state.rules)
    referee.agree_with(state)


def test_section_06_contributions_across_both_deals() -> None:
    state = _session(pots=1)
    _play_section_06(state)
    paid = [0, 0, 0, 0]
    for record in jsons(state.events):
        if record["event"] in ("ante", "action", "entry"):
            paid[record["seat"]] += int(record["amount"])
    # A contributed 7, B 4, C 6, D 1; A wins 18: 11 - 4 - 6 - 1 = 0.
    assert paid == [7, 4, 6, 1]
    assert state.events[-1].balances == (11, -4, -6, -1)
    assert state.events[-1].winners == (A,)


def test_section_06_in_a_full_eight_pot_session_has_the_same_net_effect() -> None:
    state = _session(pots=8)
    _play_section_06(state)
    won = [event for event in state.events if isinstance(event, PotWon)]
    assert [(event.pot, event.seat, event.amount, event.balances) for event in won] == [(1, A, 18, (11, -4, -6, -1))]
    # the svara replay used no pot slot: pot 2 is next, dealt by C, one seat clockwise of B
    _assert_state(state, phase=Phase.BETTING, pot_number=2, replay=0, dealer=C, pot_dealer=C, pot=4,
                  balances=[10, -5, -7, -2])
    referee = Referee(state.rules)
    referee.agree_with(state)
    play_out(state, random.Random(6), referee=referee)
    nets = pot_nets(state.events, 4)
    assert sorted(nets) == list(range(1, 9))
    assert nets[1] == [11, -4, -6, -1]
    assert [sum(net[seat] for net in nets.values()) for seat in range(4)] == state.balances
    assert sum(state.balances) == 0
    # the prefix of the history up to the first pot's award is the same as in the one-pot session
    single = _session(pots=1)
    _play_section_06(single)
    cut = next(i for i, event in enumerate(state.events) if isinstance(event, PotWon)) + 1
    assert jsons(state.events[1:cut]) == jsons(single.events[1:cut])
