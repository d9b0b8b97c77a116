"""The played example hands of the 002 guide, run through the engine.

The guide speaks of "matching and raising by two more, to five"; under the normative rules (000
section 03) every payment is a fresh amount, so "raises to five" is a payment of 5, and a
"vachvenot" after matching the last stake is a show that pays the previous bet once.
"""

from __future__ import annotations

from arena.engine import GEORGIAN, Acted, PotWon, SessionState, ShowdownHeld, seeded_shuffler, stacked_shuffler

from ._support import Referee, hands_of, jsons

ANA, GIORGI, DATO, EKA = 0, 1, 2, 3


def _four_players() -> SessionState:
    # Eka deals, so Ana, next to her, opens.
    deal = {ANA: "9h 6d Js", GIORGI: "Ac 9c 8d", DATO: "7c Qh 8s", EKA: "Kd Td 7d"}
    shuffler = stacked_shuffler({(1, 0): hands_of(deal)}, seeded_shuffler("002", GEORGIAN.deck))
    return SessionState(GEORGIAN.with_table(pots_per_session=1), bots=["Ana", "Giorgi", "Dato", "Eka"],
                        seed="002", first_dealer=EKA, shuffler=shuffler)


def test_ana_giorgi_dato_eka_one_hand_from_start_to_finish() -> None:
    state = _four_players()
    assert state.pot == 4 and state.to_act == ANA  # "Each puts in one point ... the pot holds four"
    assert [state.hand_value(seat).label for seat in range(4)] == ["10", "20", "10", "27"]
    state.bet(1)  # 1. Ana puts in one point
    state.bet(3)  # 2. Giorgi raises to three
    state.fold()  # 3. Dato folds
    assert not state.can_bet(2)  # Eka may not pay less than the three
    state.bet(5)  # 4. Eka raises to five
    state.fold()  # 5. Ana folds; her point stays in the pot
    assert state.in_deal == [GIORGI, EKA] and state.to_act == GIORGI
    assert state.legal_actions().show_amount == 5
    events = state.show()  # 6. Giorgi matches the five and says "vachvenot"
    assert events[0] == Acted(GIORGI, "show", 5)
    showdown, won = events[1], events[2]
    assert isinstance(showdown, ShowdownHeld) and showdown.winner == EKA  # 7. 20 loses to 27
    assert {seat: value.label for seat, value in showdown.values.items()} == {GIORGI: "20", EKA: "27"}
    # "Eka takes the whole pot: the four opening stakes, Ana's call and both players' bets."
    assert isinstance(won, PotWon) and (won.seat, won.shown) == (EKA, True)
    assert won.amount == 4 + 1 + (3 + 5) + 5 == 18
    assert state.balances == [-2, -9, -1, 12]
    # Dato and Ana lost little; Giorgi a lot.
    assert jsons(state.events)[-1] == {"event": "session_end",
                                       "balances": {"0": "-2", "1": "-9", "2": "-1", "3": "12"}, "winners": [EKA]}
    Referee(state.rules).agree_with(state)


NIKA, LEVAN, TAMAR = 0, 1, 2


def _three_players(tamar: str) -> SessionState:
    deal = {NIKA: "Ah Kh 7c", LEVAN: "Ad As 9c", TAMAR: tamar}
    shuffler = stacked_shuffler({(1, 0): hands_of(deal)}, seeded_shuffler("nika", GEORGIAN.deck))
    return SessionState(GEORGIAN.with_table(pots_per_session=1), bots=["Nika", "Levan", "Tamar"], seed="nika",
                        first_dealer=TAMAR, shuffler=shuffler)


def _play_nika_levan_tamar(state: SessionState) -> list:  # type: ignore[type-arg]
    state.bet(1)  # Nika
    state.bet(3)  # Levan raises
    state.bet(5)  # Tamar raises
    state.fold()  # Nika cannot stand two raises and folds
    assert state.in_deal == [LEVAN, TAMAR] and state.to_act == LEVAN
    return state.show()  # Levan matches the last stake and says "vachvenot"


def test_nika_levan_tamar() -> None:
    state = _three_players("Td 8d 6d")
    assert [state.hand_value(seat).label for seat in range(3)] == ["21", "22", "24"]
    events = _play_nika_levan_tamar(state)
    assert events[0] == Acted(LEVAN, "show", 5)
    assert events[1].winner == TAMAR  # Tamar's 24 beats Levan's 22
    won = events[2]
    assert (won.seat, won.amount) == (TAMAR, 3 + 1 + 3 + 5 + 5)


def test_nika_levan_tamar_with_three_sixes() -> None:
    # "Had Tamar held three sixes she would still have won, because a seka ... always ranks above."
    state = _three_players("6c 6d 6h")
    assert state.hand_value(TAMAR).label == "seka 6"
    events = _play_nika_levan_tamar(state)
    assert events[1].winner == TAMAR and events[2].seat == TAMAR
