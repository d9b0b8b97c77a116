"""arena/tournament/_loader.py: `profile:` and its options under `table:`, each mistake on its line."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.engine import hand_evaluator, profile
from arena.tournament import TournamentConfigError, load_config


def field(count: int) -> str:
    """A tournament of `count` bots that are already running (nothing to start)."""
    bots = "".join(f'  - name: b{index}\n    address: "localhost:{5001 + index}"\n' for index in range(count))
    return f"name: profiles\nparticipants:\n{bots}seed: 992a93455c71fedd36ac9bbc439952c0\n"


def load(tmp_path: Path, text: str):  # type: ignore[no-untyped-def]
    path = tmp_path / "t.yaml"
    path.write_text(text, encoding="utf-8")
    return load_config(path)


def problems(tmp_path: Path, text: str) -> list[str]:
    path = tmp_path / "t.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(TournamentConfigError) as caught:
        load_config(path)
    return [str(problem).replace(str(path), "F") for problem in caught.value.problems]


def test_a_profile_with_every_option_under_table(tmp_path: Path) -> None:
    config = load(tmp_path, field(8) + """\
profile: classic
table:
  wild: black7
  cards: 2
  deck: 24
  open: multiway
  dark: true
  tie: split
  max_actions: 100
table_size: 8
""")
    rules = config.rules
    assert rules.name == "classic" and config.table_size == 8 and rules.max_actions == 100
    assert rules.option_values == {"wild": "black7", "cards": "2", "deck": "24", "open": "multiway", "dark": "true",
                                   "tie": "split"}
    assert rules.evaluator is hand_evaluator("classic", wild="black7", cards=2, deck=24)
    assert rules.multiway_open and rules.dark is not None


@pytest.mark.parametrize(("text", "name", "options"), [
    ("", "georgian", {"deck": "36", "tie": "svara", "dark": "false"}),
    ("table: {deck: 32, dark: true}\n", "georgian", {"deck": "32", "tie": "svara", "dark": "true"}),
    ("profile: seka36\ntable: {stack: 500, tie: split}\n", "seka36", {"stack": "500", "dark": "false", "tie": "split"}),
    ("profile: svara32\n", "svara32", {"stack": "50", "dark": "false"}),
    ("profile: seka21\ntable: {dark: true, stack: '101/2'}\n", "seka21", {"stack": "101/2", "dark": "true"}),
])
def test_options_default_and_read_as_the_profile_spells_them(tmp_path: Path, text: str, name: str,
                                                             options: dict[str, str]) -> None:
    rules = load(tmp_path, field(2) + text).rules
    assert (rules.name, rules.option_values) == (name, options)


def test_an_option_the_profile_does_not_have(tmp_path: Path) -> None:
    assert problems(tmp_path, field(2) + "table:\n  ante: 1\n  wild: 7c\n  stack: 50\n") == [
        "F:10: table.wild: profile 'georgian' has no option 'wild' (its options: deck, tie, dark)",
        "F:11: table.stack: profile 'georgian' has no option 'stack' (its options: deck, tie, dark)",
    ]
    assert problems(tmp_path, field(2) + "profile: svara32\ntable: {tie: split}\n") == [
        "F:9: table.tie: profile 'svara32' has no option 'tie' (its options: stack, dark)",
    ]


def test_a_misspelt_option_is_an_unknown_key_with_a_suggestion(tmp_path: Path) -> None:
    assert problems(tmp_path, field(2) + "table:\n  dakr: true\n") == [
        "F:9: table.dakr: unknown key; did you mean 'dark'?",
    ]


@pytest.mark.parametrize(("name", "line", "message"), [
    ("georgian", "deck: 33",
     "table.deck: must be one of 36, 32 (32: sevens to aces; the weakest seka is 7-7-7), not 33"),
    ("classic", "wild: joker", "table.wild: must be one of 7c, black7, none (which cards are wild), not 'joker'"),
    ("classic", "open: multi", "table.open: must be one of heads_up, multiway (multiway: with three or more in, "
                               "open against the previous payer), not 'multi'; did you mean 'multiway'?"),
    ("classic", "cards: [2]", "table.cards: must be one of 3, 2 (2: two-card hands (dva lista): no three of a kind), "
                              "not a list"),
    ("georgian", "dark: maybe", "table.dark: must be one of false, true (true: the first player of an ordinary deal "
                                "may bet dark), not 'maybe'"),
    ("seka36", "stack: 0", "table.stack: must be a positive amount (chips each seat starts a session with (the ante "
                           "and stake are 1)), not 0"),
    ("seka21", "stack: 2.5", "table.stack: must be a positive amount (chips each seat starts a session with (the ante "
                             "and stake are 1)), not 2.5"),
])
def test_a_bad_option_value_is_reported_on_its_line(tmp_path: Path, name: str, line: str, message: str) -> None:
    assert problems(tmp_path, field(2) + f"profile: {name}\ntable:\n  {line}\n") == [f"F:10: {message}"]


def test_a_stack_that_cannot_pay_the_ante_and_a_stake(tmp_path: Path) -> None:
    assert problems(tmp_path, field(2) + "profile: seka36\ntable:\n  stack: 1\n") == [
        "F:9: table: each stack must cover the ante and one stake (1 + 1), not 1",
    ]


@pytest.mark.parametrize(("name", "seats", "message"), [
    ("seka36", 3, "table_size: profile 'seka36' seats 2 to 2 players, not 3"),
    ("svara32", 4, "table_size: profile 'svara32' seats 2 to 2 players, not 4"),
    ("seka21", 3, "table_size: profile 'seka21' seats 2 to 2 players, not 3"),
    ("georgian", 7, "table_size: profile 'georgian' seats 2 to 6 players, not 7"),
    ("classic", 9, "table_size: must be an integer from 2 to 8, not 9"),
])
def test_seats_outside_the_profiles_range(tmp_path: Path, name: str, seats: int, message: str) -> None:
    text = field(seats) + f"profile: {name}\ntable_size: {seats}\n"
    assert problems(tmp_path, text) == [f"F:{2 * seats + 5}: {message}"]


def test_eight_seats_of_classic_and_every_mistake_at_once(tmp_path: Path) -> None:
    assert load(tmp_path, field(8) + "profile: classic\ntable_size: 8\n").table_size == 8
    text = field(3) + "profile: seka36\ntable:\n  deck: 24\n  dark: sometimes\ntable_size: 3\n"
    assert problems(tmp_path, text) == [
        "F:12: table.deck: profile 'seka36' has no option 'deck' (its options: stack, dark, tie)",
        "F:13: table.dark: must be one of false, true (true: the first player of an ordinary deal may bet dark), "
        "not 'sometimes'",
    ]


def test_an_unknown_profile_suggests_the_closest(tmp_path: Path) -> None:
    assert problems(tmp_path, field(2) + "profile: seka63\ntable: {dark: true}\n") == [
        "F:8: profile: unknown profile 'seka63'; known: classic, georgian, seka21, seka36, svara32; "
        "did you mean 'seka36'?",
    ]


@pytest.mark.parametrize("name", ["georgian", "classic", "seka36", "svara32", "seka21"])
def test_each_profile_has_an_example_tournament_file(name: str) -> None:
    config = load_config(Path(__file__).resolve().parents[2] / "tournaments" / f"{name}.yaml")
    assert config.rules.name == name and config.rules.option_values != profile(name).option_values


@pytest.mark.parametrize("name", ["seka36", "svara32", "seka21"])
def test_a_stake_profile_refuses_an_ante_set_apart_from_the_table_stake(tmp_path: Path, name: str) -> None:
    """PROFILES.md section 3: the ante is the table stake; a file that sets them apart is refused on the
    ante's line, and a file that sets one of them gets the other alike."""
    assert problems(tmp_path, field(2) + f"profile: {name}\ntable:\n  stack: 60\n  ante: 3\n") == [
        f"F:11: table.ante: a {name} table's ante is its table stake (opening_stake, 1), not 3: leave ante out, "
        "or set opening_stake to the same amount"]
    assert problems(tmp_path, field(2) + f"profile: {name}\ntable:\n  opening_stake: 2\n  ante: 1\n")[0].startswith(
        f"F:11: table.ante: a {name} table's ante is its table stake (opening_stake, 2), not 1")
    rules = load(tmp_path, field(2) + f"profile: {name}\ntable:\n  opening_stake: 2\n").rules
    assert (rules.ante, rules.opening_stake) == (2, 2)
    rules = load(tmp_path, field(2) + f"profile: {name}\ntable:\n  ante: 1\n  max_bet: 10\n").rules
    assert (rules.ante, rules.opening_stake) == (1, 1)
    assert load(tmp_path, field(2) + "table:\n  ante: 3\n").rules.ante == 3  # georgian's ante is its own
