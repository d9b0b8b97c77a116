"""arena/engine/_rules.py: the Georgian profile's table settings and their validation."""

from __future__ import annotations

import dataclasses

import pytest

from arena.engine import DECK_36, GEORGIAN, GEORGIAN_EVALUATOR, PROFILE_SPECS, Rules, RulesError, profile


def test_georgian_profile_has_the_normative_table_settings() -> None:
    # Section 03: ante 1, opening stake 1, maximum bet 10; section 07: eight resolved pots;
    # table clarification 4: action cap 200 by default; 002: two to six players.
    assert GEORGIAN.name == "georgian"
    assert GEORGIAN.ante == 1
    assert GEORGIAN.opening_stake == 1
    assert GEORGIAN.max_bet == 10
    assert GEORGIAN.pots_per_session == 8
    assert GEORGIAN.max_actions == 200
    assert (GEORGIAN.min_seats, GEORGIAN.max_seats) == (2, 6)
    assert GEORGIAN.deck == DECK_36
    assert GEORGIAN.evaluator is GEORGIAN_EVALUATOR


def test_profiles_are_looked_up_by_name() -> None:
    assert set(PROFILE_SPECS) == {"georgian", "classic", "seka36", "svara32", "seka21"}
    assert profile("georgian") is GEORGIAN
    with pytest.raises(RulesError, match="georgian"):
        profile("bulgarian")


def test_rules_are_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        GEORGIAN.max_bet = 20  # type: ignore[misc]


def test_with_table_changes_only_the_named_settings() -> None:
    short = GEORGIAN.with_table(pots_per_session=1, max_actions=7)
    assert short is not GEORGIAN
    assert (short.pots_per_session, short.max_actions) == (1, 7)
    assert (short.ante, short.opening_stake, short.max_bet, short.name) == (1, 1, 10, "georgian")
    assert GEORGIAN.pots_per_session == 8 and GEORGIAN.max_actions == 200


@pytest.mark.parametrize(
    "settings",
    [
        {"opening_stake": 0},
        {"opening_stake": 11},
        {"max_bet": 0},
        {"ante": -1},
        {"max_actions": 1},
        {"pots_per_session": 0},
        {"min_seats": 1},
        {"min_seats": 4, "max_seats": 3},
        {"max_seats": 13},  # 13 hands of three do not fit 36 cards
        {"no_such_setting": 1},
    ],
)
def test_impossible_tables_are_refused(settings: dict[str, object]) -> None:
    with pytest.raises(RulesError):
        GEORGIAN.with_table(**settings)


def test_the_largest_table_fits_the_deck() -> None:
    assert GEORGIAN.with_table(max_seats=12).max_seats == 12
    assert isinstance(GEORGIAN.with_table(max_actions=2), Rules)



def test_rules_rebuild_from_their_name_options_and_table_settings() -> None:
    rules = profile("georgian", {"deck": 32, "dark": True}).with_table(max_actions=9, pots_per_session=2)
    again = profile(rules.name, rules.option_values).with_table(**rules.table_settings())
    assert again == rules and again.evaluator is rules.evaluator and len(again.deck) == 32
    assert set(rules.table_settings()) == {"ante", "opening_stake", "max_bet", "max_actions", "pots_per_session",
                                           "min_seats", "max_seats", "edition"}


def test_a_game_describes_itself_in_one_line() -> None:
    assert GEORGIAN.describe() == ("georgian (deck 36, tie svara, dark false): ante 1, opening stake 1, payments up "
                                   "to 10, 8 pots a session, at most 200 actions a deal")
    assert profile("seka36", {"dark": "true"}).with_table(pots_per_session=1).describe() == (
        "seka36 (stack 50, dark true, tie svara): ante and table stake 1, 1 pot a session, at most 200 actions a deal")
