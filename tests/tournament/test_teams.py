"""Teams (`teams:`): no table seats two members of one team, in the plan and in a real `run`; a team file's
mistakes are reported with their file, line and field."""

from __future__ import annotations

import hashlib
import itertools
import json
import sys
from pathlib import Path

import pytest

from arena.cli import main
from arena.history import read_history
from arena.tournament import Format, TournamentConfigError, parse_config, plan
from arena.tournament._schedule import count_sessions

ROOT = Path(__file__).resolve().parents[2]
TEAMS = {"alice": ("a1", "a2", "a3"), "bob": ("b1", "b2")}
"""Two teams and two bots of their own (c, d)."""


def _definition(table_size: int, *, gauntlet: bool = False, teams: bool = True) -> str:
    names = ["a1", "b1", "c", "a2", "b2", "d", "a3"]
    lines = ["name: t", "participants:", *(f"  - {{name: {name}, address: 'h:{5000 + i}'}}"
                                            for i, name in enumerate(names)),
             f"table_size: {table_size}", "seed: 2bb80d537b1da3e38bd30361aa855686"]
    if gauntlet:
        lines += ["format: gauntlet", "challenger: a1"]
    if teams:
        lines += ["teams:", *(f"  {team}: [{', '.join(members)}]" for team, members in TEAMS.items())]
    return "\n".join(lines) + "\n"


def _team(name: str) -> str:
    return next((team for team, members in TEAMS.items() if name in members), name)


@pytest.mark.parametrize("gauntlet", [False, True], ids=["round_robin", "gauntlet"])
@pytest.mark.parametrize("size", [2, 3, 4])
def test_no_table_seats_two_of_a_team_and_the_others_keep_their_order(size: int, gauntlet: bool) -> None:
    config = parse_config(_definition(size, gauntlet=gauntlet))
    without = parse_config(_definition(size, gauntlet=gauntlet, teams=False))
    sessions, every = list(plan(config)), list(plan(without))
    assert len(plan(config)) == len(sessions) > 0
    assert all(len({_team(name) for name in session.table}) == size for session in sessions)
    # Exactly the sessions of the tables without teammates: same tables, same order, same seeds.
    allowed = [session for session in every if len({_team(name) for name in session.table}) == size]
    assert [(s.table, s.seed, s.mirror) for s in sessions] == [(s.table, s.seed, s.mirror) for s in allowed]
    assert [session.id for session in sessions] == [f"s{index:04d}" for index in range(1, len(sessions) + 1)]
    assert [plan(config)[index] for index in range(len(sessions))] == sessions  # random access agrees
    assert plan(config)[-1] == sessions[-1]
    if gauntlet:
        assert all(session.table[0] == "a1" or "a1" in session.table for session in sessions)
    # The plan's length is counted (the elementary symmetric polynomial of the teams' sizes), not listed.
    names = config.names
    expected = sum(1 for table in itertools.combinations(names, size) if len({_team(n) for n in table}) == size
                   and (not gauntlet or "a1" in table))
    block = 2 if size == 2 else 2 * size
    assert len(sessions) == count_sessions(participants=len(names), table_size=size, format=config.format,
                                           sessions_per_table=1, duplicate=True, table_count=expected) == \
        expected * block
    assert config.format is (Format.GAUNTLET if gauntlet else Format.ROUND_ROBIN)


_MISTAKES = [
    ("teams: [a1, a2]\n", "t.yaml:12: teams: must be a mapping of team names to lists of participants' names"),
    ("teams: {alice: [a1, zz]}\n", "t.yaml:12: teams.alice[1]: 'zz' is not a participant"),
    ("teams: {alice: [a1, a22]}\n", "t.yaml:12: teams.alice[1]: 'a22' is not a participant; did you mean 'a2'?"),
    ("teams:\n  alice: [a1, a2]\n  bob: [b1,\n    a2]\n",
     "t.yaml:15: teams.bob[1]: 'a2' is already in team 'alice': a bot is in one team"),
    ("teams:\n  alice: []\n", "t.yaml:13: teams.alice: must be a list of participants' names, not an empty list"),
    ("teams:\n  'my team': [a1]\n", "t.yaml:13: teams: must be 1 to 64 letters"),
    ("teams:\n  alice: [a1, a2, a3, b1, b2, c, d]\n",
     "t.yaml:12: teams: no table of 2 seats is left without two members of one team"),
]


@pytest.mark.parametrize(("text", "said"), _MISTAKES)
def test_a_team_mistake_names_its_file_line_and_field(text: str, said: str) -> None:
    with pytest.raises(TournamentConfigError) as raised:
        parse_config(_definition(2, teams=False) + text, filename="t.yaml")
    assert said in str(raised.value), str(raised.value)


@pytest.mark.parametrize("name", ["georgian", "seka36"])
def test_a_run_with_teams_never_seats_two_of_a_team(tmp_path: Path, name: str) -> None:
    bots = {"a1": "call", "a2": "random", "b1": "threshold", "c": "minimal"}
    samples = ROOT / "sample_bots"
    participants = "".join(f"  - {{name: {bot}, command: \"{sys.executable} {samples}/{sample}_bot.py\"}}\n"
                           for bot, sample in bots.items())
    definition = tmp_path / "t.yaml"
    definition.write_text(f"name: t\nparticipants:\n{participants}profile: {name}\ntable: {{pots: 1}}\n"
                          f"seed: {hashlib.sha256(name.encode()).hexdigest()[:32]}\nisolation: none\nconcurrency: 2\n"
                          "teams: {alice: [a1, a2]}\n")
    assert main(["run", str(definition), "--out", str(tmp_path / "out"), "--no-report"]) == 0
    results = tmp_path / "out" / "results" / "t"
    standings = json.loads((results / "standings.json").read_text())
    assert standings["complete"] and standings["sessions"] == 5 * 2  # 6 pairs less alice's own, 2 mirrors each
    seatings = [tuple(seat["bot"] for seat in read_history(path)[0]["seats"])
                for path in sorted((results / "histories").glob("*.jsonl"))]
    assert len(seatings) == 10 and all(set(seating) != {"a1", "a2"} for seating in seatings)
    assert {frozenset(seating) for seating in seatings} == {frozenset(pair) for pair in itertools.combinations(
        bots, 2) if set(pair) != {"a1", "a2"}}
    assert main(["replay", "--results", str(results)]) == 0
