"""The arena's action cap (table clarification 4): at `max_actions` actions in one deal everyone
still in reveals; the strongest takes the pot, and a tie for the strongest goes to svara.
"""

from __future__ import annotations

from arena.engine import GEORGIAN, Acted, Phase, PotWon, Revealed, ShowdownHeld, SvaraDeclared

from ._support import Referee, table


def _kinds(events: list) -> list[str]:  # type: ignore[type-arg]
    return [event.KIND for event in events]


def test_at_the_cap_everyone_still_in_reveals_and_the_strongest_wins() -> None:
    rules = GEORGIAN.with_table(max_actions=4)
    state = table(3, first_dealer=2, rules=rules, deals={(1, 0): {0: "Ah Kh 7c", 1: "Td 8d 6d", 2: "Kc 9d 7s"}})
    state.bet(1)  # 0
    state.bet(1)  # 1
    state.bet(1)  # 2
    assert state.actions_in_deal == 3 and state.phase is Phase.BETTING
    events = state.bet(2)  # 0: the fourth action
    assert _kinds(events)[:3] == ["action", "reveal", "pot_won"]
    reveal = events[1]
    assert isinstance(reveal, Revealed)
    assert reveal.to_json() == {
        "event": "reveal", "pot": 1, "replay": 0, "seats": [0, 1, 2],
        "hands": {"0": ["Ah", "Kh", "7c"], "1": ["Td", "8d", "6d"], "2": ["Kc", "9d", "7s"]},
        "values": {"0": "21", "1": "24", "2": "10"}, "winner": 1,
    }
    won = events[2]
    assert isinstance(won, PotWon) and (won.seat, won.amount, won.shown) == (1, 3 + 5, True)
    assert not any(isinstance(event, ShowdownHeld) for event in state.events)


def test_reveal_order_is_clockwise_from_the_dealers_left_among_those_still_in() -> None:
    rules = GEORGIAN.with_table(max_actions=5)
    state = table(5, first_dealer=1, rules=rules)  # order 2, 3, 4, 0, 1
    state.bet(1)  # 2
    state.fold()  # 3
    state.bet(1)  # 4
    state.bet(1)  # 0
    state.fold()  # 1: fifth action, three still in
    reveal = next(event for event in state.events if isinstance(event, Revealed))
    assert reveal.seats == (2, 4, 0)


def test_a_tie_for_the_strongest_at_the_reveal_goes_to_svara() -> None:
    rules = GEORGIAN.with_table(max_actions=5)
    state = table(4, first_dealer=3, rules=rules,
                  deals={(1, 0): {0: "Kc Kd Kh", 1: "As Ks 7c", 2: "Td 8d 6s", 3: "Ah Qh 9d"}})
    state.fold()  # 0 holds three kings and folds
    state.bet(1)  # 1: 21
    state.bet(1)  # 2: 18
    state.bet(1)  # 3: 21
    state.bet(1)  # 1: the fifth action
    reveal = next(event for event in state.events if isinstance(event, Revealed))
    assert reveal.seats == (1, 2, 3) and reveal.winner is None
    svara = next(event for event in state.events if isinstance(event, SvaraDeclared))
    # the tied pair only; the third player still in at the reveal and the earlier folder may re-enter
    assert (svara.tied, svara.eligible, svara.frozen_pot, svara.price) == ((1, 3), (0, 2), 8, 4)
    assert state.phase is Phase.SVARA_OFFER and state.to_act == 0
    state.answer_svara(False)
    state.answer_svara(True)
    # the replay has a fresh action count and the same cap
    assert (state.replay, state.dealer, state.actions_in_deal, state.in_deal) == (1, 1, 0, [1, 2, 3])
    for _ in range(4):
        state.bet(1)
    assert state.phase is Phase.BETTING and state.actions_in_deal == 4
    state.bet(1)
    assert sum(isinstance(event, Revealed) for event in state.events) == 2
    Referee(rules).agree_with(state)


def test_a_three_way_tie_at_the_reveal_puts_all_three_in_the_svara() -> None:
    rules = GEORGIAN.with_table(max_actions=3)
    state = table(3, first_dealer=0, rules=rules, deals={(1, 0): {0: "Ah Kh 7c", 1: "As Qs 6d", 2: "Ad Jd 8c"}})
    state.bet(1)
    state.bet(1)
    state.bet(1)
    svara = next(event for event in state.events if isinstance(event, SvaraDeclared))
    assert (svara.tied, svara.eligible, svara.frozen_pot) == ((1, 2, 0), (), 6)
    assert (state.phase, state.replay, state.dealer, state.to_act) == (Phase.BETTING, 1, 1, 2)


def test_the_default_cap_is_200_actions() -> None:
    state = table(3, first_dealer=0)
    for _ in range(199):
        state.bet(1)
    assert state.actions_in_deal == 199 and state.phase is Phase.BETTING and state.pot_number == 1
    events = state.bet(1)
    assert _kinds(events)[1] == "reveal"


def test_a_fold_at_the_cap_leaving_one_player_is_a_lone_survivor_win() -> None:
    rules = GEORGIAN.with_table(max_actions=2)
    state = table(3, first_dealer=0, rules=rules)
    state.fold()  # 1
    events = state.fold()  # 2: the second action leaves seat 0 alone
    assert _kinds(events)[:2] == ["action", "pot_won"]
    assert events[1].shown is False and events[1].seat == 0


def test_a_fold_at_the_cap_leaving_two_players_reveals_them() -> None:
    rules = GEORGIAN.with_table(max_actions=2)
    state = table(3, first_dealer=0, rules=rules)
    state.bet(1)  # 1
    events = state.fold()  # 2
    assert _kinds(events)[1] == "reveal" and events[1].seats == (1, 0)  # clockwise from dealer 0's left


def test_a_show_as_the_capped_action_is_an_ordinary_showdown() -> None:
    rules = GEORGIAN.with_table(max_actions=2)
    state = table(2, first_dealer=0, rules=rules, deals={(1, 0): {0: "Td 8d 6d", 1: "Ah As 7d"}})
    state.bet(1)
    events = state.show()
    assert _kinds(events)[:3] == ["action", "showdown", "pot_won"]
    assert events[0] == Acted(0, "show", 1)


def test_heads_up_the_cap_reveals_both() -> None:
    rules = GEORGIAN.with_table(max_actions=3)
    state = table(2, first_dealer=0, rules=rules, deals={(1, 0): {0: "Td 8d 6d", 1: "Ah As 7d"}})
    state.bet(1)
    state.bet(1)
    events = state.bet(10)
    assert _kinds(events)[:3] == ["action", "reveal", "pot_won"]
    assert events[1].seats == (1, 0) and events[1].winner == 0 and events[2].amount == 2 + 12
