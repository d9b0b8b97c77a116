"""arena/tournament/_config.py: tournament files are checked whole, and each mistake names file, line and field."""

from __future__ import annotations

import sys
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest

from arena.engine import ArenaError, parse_amount
from arena.isolation import ProcessLimits
from arena.tournament import (
    BotLimits,
    Format,
    Isolation,
    Participant,
    TournamentConfig,
    TournamentConfigError,
    load_config,
    parse_config,
)
from arena.transport import TimeLimit

REPO = Path(__file__).resolve().parents[2]

GOOD = """\
name: ok
participants:
  - name: alpha
    address: "localhost:5001"
  - name: beta
    address: "unix:/tmp/beta.sock"
seed: 992a93455c71fedd36ac9bbc439952c0
"""


def parse_error(text: str) -> str:
    with pytest.raises(ValueError) as caught:
        parse_amount(text)
    return str(caught.value)


def problems(tmp_path: Path, text: str) -> list[str]:
    path = tmp_path / "broken.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(TournamentConfigError) as caught:
        load_config(path)
    assert isinstance(caught.value, ArenaError)
    # The message lists every problem, so a CLI printing str(error) shows them all.
    for problem in caught.value.problems:
        assert f"  {problem}" in str(caught.value)
    return [str(problem).replace(str(path), "F") for problem in caught.value.problems]


# --- a dozen broken files, each with its exact report ----------------------------------------------


def test_syntax_error_names_the_line(tmp_path: Path) -> None:
    text = "name: x\nparticipants: [\n  {name: a, address: 'h:1'}\nseed: 1\n"
    assert problems(tmp_path, text) == [
        "F:4: YAML syntax error: expected ',' or ']', but got '<scalar>' "
        "(while parsing a flow sequence started on line 2)",
    ]


def test_bad_limit_value(tmp_path: Path) -> None:
    text = """\
name: x
participants:
  - name: a
    address: "h:1"
  - name: b
    address: "h:2"
  - name: c
    address: "h:3"
    limits:
      decision_ms: fast
"""
    assert problems(tmp_path, text) == [
        "F:10: participants[2].limits.decision_ms: must be a positive integer, not 'fast'"]


def test_unknown_keys_get_suggestions(tmp_path: Path) -> None:
    text = GOOD + "tabel_size: 3\nconcurency: 2\nflavour: spicy\n"
    assert problems(tmp_path, text) == [
        "F:8: tabel_size: unknown key; did you mean 'table_size'?",
        "F:9: concurency: unknown key; did you mean 'concurrency'?",
        "F:10: flavour: unknown key",
    ]


def test_misspelt_command_is_not_also_reported_missing(tmp_path: Path) -> None:
    text = """\
name: x
participants:
  - name: a
    comand: python3 a.py
  - name: b
    address: "h:2"
"""
    assert problems(tmp_path, text) == ["F:4: participants[0].comand: unknown key; did you mean 'command'?"]


def test_duplicate_bot_names(tmp_path: Path) -> None:
    text = """\
name: x
participants:
  - name: a
    address: "h:1"
  - name: a
    address: "h:2"
"""
    assert problems(tmp_path, text) == ["F:5: participants[1].name: duplicate name 'a' (also participants[0], line 3)"]


def test_command_and_address_missing_or_both(tmp_path: Path) -> None:
    text = """\
name: x
participants:
  - name: a
  - name: b
    command: python3 b.py
    address: "h:2"
"""
    assert problems(tmp_path, text) == [
        "F:3: participants[0]: needs a command (to start the bot) or an address (of a running bot)",
        "F:6: participants[1]: give a command (to start the bot) or an address (of a running bot), not both",
    ]


def test_table_size_larger_than_the_field(tmp_path: Path) -> None:
    assert problems(tmp_path, GOOD + "table_size: 3\n") == [
        "F:8: table_size: a table of 3 needs at least 3 participants, and there are 2",
    ]
    assert problems(tmp_path, GOOD + "table_size: 9\n") == ["F:8: table_size: must be an integer from 2 to 8, not 9"]


def test_unknown_profile(tmp_path: Path) -> None:
    assert problems(tmp_path, GOOD + "profile: bulgarian\n") == [
        "F:8: profile: unknown profile 'bulgarian'; known: classic, georgian, seka21, seka36, svara32",
    ]


def test_bad_amounts(tmp_path: Path) -> None:
    text = GOOD + """\
table:
  ante: 1.5
  opening_stake: "10/4"
  max_bet: -3
  pots: 0
"""
    assert problems(tmp_path, text) == [
        "F:9: table.ante: must be a whole number or an exact fraction such as '15/2', not 1.5",
        f"F:10: table.opening_stake: {parse_error('10/4')}",  # the engine's own wording
        "F:11: table.max_bet: must be positive, not -3",
        "F:12: table.pots: must be a positive integer, not 0",
    ]


def test_amounts_that_cannot_play_together(tmp_path: Path) -> None:
    text = GOOD + "table:\n  opening_stake: 5\n  max_bet: 2\n"
    assert problems(tmp_path, text) == ["F:8: table: need 0 < opening_stake <= max_bet, not 5 and 2"]


def test_gauntlet_needs_a_challenger_from_the_field(tmp_path: Path) -> None:
    assert problems(tmp_path, GOOD + "format: gauntlet\n") == [
        "F:8: challenger: required with format: gauntlet: the name of the bot that meets the field",
    ]
    assert problems(tmp_path, GOOD + "format: gauntlet\nchallenger: alpah\n") == [
        "F:9: challenger: 'alpah' is not a participant; did you mean 'alpha'?",
    ]
    assert problems(tmp_path, GOOD + "challenger: alpha\n") == [
        "F:8: challenger: only used with format: gauntlet (the format is round_robin)",
    ]


def test_non_duplicate_sessions_must_fill_every_seat(tmp_path: Path) -> None:
    assert problems(tmp_path, GOOD + "duplicate: false\nsessions_per_table: 3\n") == [
        "F:9: sessions_per_table: with duplicate: false this counts sessions and must be a multiple of "
        "table_size (2) so every bot sits in every seat equally often, not 3",
    ]


def test_bad_address_missing_program_and_folder(tmp_path: Path) -> None:
    text = """\
name: x
participants:
  - name: a
    address: localhost
  - name: b
    command: no-such-program-xyz --fast
  - name: c
    command: ./missing.sh
    cwd: bots
  - name: d
    command: 'python3 "unterminated'
"""
    assert problems(tmp_path, text) == [
        "F:4: participants[0].address: must be 'host:port' or 'unix:PATH', not 'localhost'",
        "F:6: participants[1].command: program 'no-such-program-xyz' not found on PATH",
        f"F:9: participants[2].cwd: no such folder: {str(tmp_path / 'bots')!r} (from 'bots')",
        "F:11: participants[3].command: cannot be split like a shell command (No closing quotation): "
        "'python3 \"unterminated'",
    ]


def test_a_confined_participant_may_name_nothing_outside_its_folder(tmp_path: Path) -> None:
    # The service seats submitted bots so: an organiser's own participants keep naming host paths.
    (tmp_path / "bots" / "d1").mkdir(parents=True)
    (tmp_path / "bots" / "d1" / "l").symlink_to("..")
    (tmp_path / "bots" / "bot.py").write_text("")
    text = """\
name: x
participants:
  - name: a
    command: python3 bot.py /proc
    cwd: bots
    confined: true
  - name: b
    command: python3 bot.py d1/l/..
    cwd: bots
    confined: true
  - name: c
    address: localhost:5001
    confined: true
  - name: d
    command: python3 bot.py /proc
    cwd: bots
    confined: yes please
"""
    assert problems(tmp_path, text) == [
        "F:4: participants[0].command: confined: '/proc' is an absolute path: a submitted bot's command names only "
        "files of its own folder, relatively",
        "F:8: participants[1].command: confined: 'd1/l/..' leads outside the bot's folder (through '..' or a link)",
        "F:13: participants[2].confined: only used with a command (a bot the arena starts)",
        "F:17: participants[3].confined: must be true or false, not 'yes please'",
    ]
    path = tmp_path / "ok.yaml"
    path.write_text(text.replace(" /proc", "").replace(" d1/l/..", " d1/l").replace("yes please", "false")
                    .replace("    address: localhost:5001\n    confined: true\n", "    address: localhost:5001\n"))
    assert [participant.confined for participant in load_config(path).participants] == [True, True, False, False]


def test_wrong_shapes_and_missing_sections(tmp_path: Path) -> None:
    assert problems(tmp_path, "- just\n- a list\n") == [
        "F:1: (top level): must be a mapping of tournament settings, not a list",
    ]
    assert problems(tmp_path, "concurrency: 3\n") == [
        "F:1: name: required: the tournament's name",
        "F:1: participants: required: a list of at least two bots",
    ]
    assert problems(tmp_path, "name: x\nparticipants:\n  - {name: a, address: 'h:1'}\n") == [
        "F:2: participants: needs at least two bots, not 1",
    ]
    assert problems(tmp_path, "") == ["F:1: the file is empty; a tournament needs at least a name and participants"]


def test_key_given_twice(tmp_path: Path) -> None:
    assert problems(tmp_path, GOOD + "concurrency: 2\nconcurrency: 3\n") == [
        "F:9: concurrency: given twice (first on line 8)",
    ]


def test_every_mistake_is_reported_together(tmp_path: Path) -> None:
    text = """\
name: my tourney
participants:
  - name: a
    address: "h:1"
    limits: {decision_ms: 0, time_bank_ms: -5}
  - name: b
    address: "h:2"
    env: {PORT: [1]}
duplicate: maybe
isolation: sandbx
restart_crashed: 1
concurrency: many
seed: ""
"""
    assert problems(tmp_path, text) == [
        "F:1: name: must be 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit, "
        "not 'my tourney'",
        "F:5: participants[0].limits.decision_ms: must be a positive integer, not 0",
        "F:5: participants[0].limits.time_bank_ms: must be a non-negative integer, not -5",
        "F:8: participants[1].env.PORT: must be a string or a number, not a list",
        "F:9: duplicate: must be true or false, not 'maybe'",
        "F:10: isolation: must be one of none, limits, sandbox, not 'sandbx'; did you mean 'sandbox'?",
        "F:11: restart_crashed: must be true or false, not 1",
        "F:12: concurrency: must be a positive integer, not 'many'",
        "F:13: seed: must be a non-empty string (or leave it out to draw a secret one), not ''",
    ]


def test_unreadable_file() -> None:
    with pytest.raises(TournamentConfigError, match=r"nope\.yaml: cannot read the file: No such file or directory"):
        load_config("nope.yaml")


# --- good files ---------------------------------------------------------------------------------


def test_defaults() -> None:
    config = parse_config(GOOD)
    assert config.name == "ok"
    assert config.names == ("alpha", "beta")
    assert config.rules.name == "georgian"
    assert (config.rules.ante, config.rules.opening_stake, config.rules.max_bet) == (1, 1, 10)
    assert (config.rules.max_actions, config.rules.pots_per_session) == (200, 8)
    assert config.table_size == 2
    assert config.format is Format.ROUND_ROBIN
    assert config.challenger is None
    assert (config.sessions_per_table, config.duplicate) == (1, True)
    assert (config.seed, config.seed_generated) == ("992a93455c71fedd36ac9bbc439952c0", False)
    assert config.concurrency is None  # automatic
    assert config.limits == BotLimits(TimeLimit(decision_ms=1000, time_bank_ms=0, start_ms=10000))
    assert config.isolation is None  # the machine decides: sandbox where it can
    assert config.restart_crashed is True
    assert config.source == GOOD
    alpha = config.participant("alpha")
    assert (alpha.address, alpha.command, alpha.cwd, dict(alpha.env)) == ("localhost:5001", None, None, {})


def test_everything_given(tmp_path: Path) -> None:
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "run.sh").write_text("#!/bin/sh\n")
    interpreter = tmp_path / "py" / "python3.11"
    interpreter.parent.mkdir()
    interpreter.write_text("")
    text = """\
name: full-house
participants:
  - name: a
    command: python3 -u bots/a.py --level 3
    cwd: .
    env: {LEVEL: 3, MODE: fast}
    limits: {decision_ms: 50, memory_mb: null}
  - name: b
    command: ./run.sh
    cwd: bots
  - name: c
    address: "[::1]:7000"
  - name: d
    address: "h:4"
profile: georgian
table: {ante: "1/2", opening_stake: 1, max_bet: "15/2", max_actions: 40, pots: 2}
table_size: 3
format: gauntlet
challenger: c
sessions_per_table: 2
duplicate: true
seed: 73475cb40a568e8da8a045ced110137e
concurrency: 2
limits: {decision_ms: 200, time_bank_ms: 1000, start_ms: 3000, cpu_seconds: 60, memory_mb: 512, open_files: 64}
isolation: limits
restart_crashed: false
"""
    path = tmp_path / "full.yaml"
    path.write_text(text)
    config = load_config(path, python=str(interpreter))
    assert config.path == path
    rules = config.rules
    assert (rules.ante, rules.opening_stake, rules.max_bet, rules.max_actions, rules.pots_per_session) == (
        Fraction(1, 2), 1, Fraction(15, 2), 40, 2)
    assert (config.table_size, config.format, config.challenger) == (3, Format.GAUNTLET, "c")
    assert config.sessions_per_table == 2
    assert (config.seed, config.seed_generated, config.concurrency) == ("73475cb40a568e8da8a045ced110137e", False, 2)
    assert config.isolation is Isolation.LIMITS and config.restart_crashed is False
    defaults = BotLimits(TimeLimit(decision_ms=200, time_bank_ms=1000, start_ms=3000),
                         ProcessLimits(cpu_seconds=60, memory_mb=512, open_files=64))
    assert config.limits == defaults
    a, b, c, d = config.participants
    # python3 becomes the arena's interpreter; cwd is relative to the YAML file's folder.
    assert a.command == (str(interpreter), "-u", "bots/a.py", "--level", "3")
    assert a.cwd == tmp_path.resolve()
    assert dict(a.env) == {"LEVEL": "3", "MODE": "fast"}
    assert a.limits == BotLimits(TimeLimit(decision_ms=50, time_bank_ms=1000, start_ms=3000),
                                 ProcessLimits(cpu_seconds=60, memory_mb=None, open_files=64))
    assert b.command == ("./run.sh",) and b.cwd == (tmp_path / "bots").resolve()
    assert b.limits == defaults
    assert (c.address, c.cwd, d.address) == ("[::1]:7000", None, "h:4")


def test_commands_default_to_the_folder_the_arena_runs_from(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    config = parse_config("name: x\nparticipants:\n  - {name: a, command: python bot.py}\n"
                          "  - {name: b, command: python3 bot.py}\n")
    assert [participant.command for participant in config.participants] == [
        (sys.executable, "bot.py"), (sys.executable, "bot.py")]
    assert {participant.cwd for participant in config.participants} == {tmp_path}


def test_a_missing_seed_is_drawn_at_random() -> None:
    text = GOOD.replace("seed: 992a93455c71fedd36ac9bbc439952c0\n", "")
    first, second = parse_config(text), parse_config(text)
    assert first.seed_generated and second.seed_generated
    assert len(first.seed) == 32 and int(first.seed, 16) >= 0
    assert first.seed != second.seed
    assert first.with_seed("stored").seed == "stored" and not first.with_seed("stored").seed_generated


def test_duplicate_off_defaults_to_one_session_per_seat() -> None:
    config = parse_config(GOOD + "duplicate: false\n")
    assert (config.duplicate, config.sessions_per_table) == (False, 2)


def test_config_is_frozen() -> None:
    config = parse_config(GOOD)
    with pytest.raises(AttributeError):
        config.name = "other"  # type: ignore[misc]


def test_the_demo_tournament_loads() -> None:
    config = load_config(REPO / "tournaments" / "demo.yaml")
    assert config.table_size == 2 and config.format is Format.ROUND_ROBIN and config.duplicate
    assert len(config.participants) == 4
    for participant in config.participants:
        assert participant.command is not None and participant.command[0] == sys.executable
        assert participant.cwd == REPO


# --- the types check their own rules, whoever builds them ------------------------------------------


def test_a_hand_built_config_is_refused_with_every_problem() -> None:
    bots = (Participant("a", address="h:1"), Participant("a", address="h:2"))
    with pytest.raises(TournamentConfigError) as caught:
        TournamentConfig(name="x y", participants=bots, table_size=3, format=Format.GAUNTLET, concurrency=0)
    assert [str(problem) for problem in caught.value.problems] == [
        "<config>: concurrency: must be a positive integer, not 0",
        "<config>: name: must be 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit, not 'x y'",
        "<config>: participants[1].name: duplicate name 'a' (also participants[0])",
        "<config>: table_size: a table of 3 needs at least 3 participants, and there are 2",
        "<config>: challenger: required with format: gauntlet: the name of the bot that meets the field",
    ]


def test_a_loaded_config_changed_by_hand_is_checked_again() -> None:
    config = parse_config(GOOD)
    with pytest.raises(TournamentConfigError, match=r"challenger: 'gamma' is not a participant"):
        replace(config, format=Format.GAUNTLET, challenger="gamma")
    with pytest.raises(TournamentConfigError, match=r"table_size: must be an integer from 2 to 8, not 9"):
        replace(config, table_size=9)
    with pytest.raises(TournamentConfigError, match=r"table: amounts could outgrow the protocol's 64-bit integers"):
        replace(config, rules=config.rules.with_table(max_bet=2**62))


def test_hand_built_participants_and_limits_check_themselves(tmp_path: Path) -> None:
    with pytest.raises(TournamentConfigError, match=r"participants\['a'\]: give a command .* not both"):
        Participant("a", command=("bot",), address="h:1")
    with pytest.raises(TournamentConfigError, match=r"participants\['a'\]: needs a command"):
        Participant("a")
    with pytest.raises(TournamentConfigError, match=r"participants\['a'\].cwd: only used with a command"):
        Participant("a", address="h:1", cwd=tmp_path)
    with pytest.raises(TournamentConfigError, match=r"participants\['a'\].address: must be 'host:port'"):
        Participant("a", address="localhost")
    with pytest.raises(TournamentConfigError, match=r"limits.decision_ms: must be at most 60000, not 90000"):
        BotLimits(TimeLimit(decision_ms=90_000))


def test_an_absolute_program_that_does_not_exist_says_so(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere" / "bot"
    text = f"name: x\nparticipants:\n  - name: a\n    command: {missing} --fast\n  - name: b\n    address: 'h:2'\n"
    assert problems(tmp_path, text) == [f"F:4: participants[0].command: program {str(missing)!r} does not exist"]


def test_a_relative_unix_socket_is_relative_to_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "t").mkdir()
    path = tmp_path / "t" / "sockets.yaml"
    path.write_text("name: x\nparticipants:\n  - {name: a, address: 'unix:run/a.sock'}\n"
                    "  - {name: b, address: 'unix:/tmp/b.sock'}\n")
    monkeypatch.chdir(tmp_path)  # anywhere but the file's folder
    config = load_config(Path("t") / "sockets.yaml")
    assert [participant.address for participant in config.participants] == [
        f"unix:{tmp_path.resolve() / 't' / 'run' / 'a.sock'}", "unix:/tmp/b.sock"]


def test_yaml_nested_20000_deep_is_a_clear_error(tmp_path: Path) -> None:
    deep = "[" * 20_000 + "]" * 20_000
    assert problems(tmp_path, f"name: x\nparticipants: {deep}\n") == [
        "F:2: YAML nested more than 64 levels deep (a tournament file needs 4)"]
    nested = "name: x\nparticipants:\n  - " + "{a: " * 20_000 + "1" + "}" * 20_000 + "\n"
    assert problems(tmp_path, nested) == ["F:3: YAML nested more than 64 levels deep (a tournament file needs 4)"]


def test_limits_have_maximums(tmp_path: Path) -> None:
    text = GOOD + "limits:\n  decision_ms: 10000000000000\n  time_bank_ms: 3600001\n  start_ms: 600001\n" \
                  "  memory_mb: 99999999\n"
    assert problems(tmp_path, text) == [
        "F:9: limits.decision_ms: must be at most 60000, not 10000000000000",
        "F:10: limits.time_bank_ms: must be at most 3600000, not 3600001",
        "F:11: limits.start_ms: must be at most 600000, not 600001",
        "F:12: limits.memory_mb: must be at most 1048576, not 99999999",
    ]


# --- bounds: nothing a file can ask for overflows the protocol or the machine ----------------------

_OVERFLOW = ("amounts could outgrow the protocol's 64-bit integers: with {seats} seats, ante {ante}, max_bet {bet}, "
             "200 actions a deal and 8 pots, a balance could need {need} after 16 nested svaras (at most 9.2e+18); "
             "lower max_bet, max_actions, pots or table_size, or use fractions with smaller denominators")


@pytest.mark.parametrize(("table", "ante", "bet", "need"), [
    ("{max_bet: 99999999999999999999999}", "1", "99999999999999999999999", "1.8e+32"),
    ("{ante: '1/100000000000000000000000000'}", "1/100000000000000000000000000", "10", "1.8e+36"),
    ("{max_bet: 4611686018427387904}", "1", "4611686018427387904", "8.2e+27"),  # 2^62: the pot passes 2^63
])
def test_amounts_that_could_overflow_the_protocol_are_refused(tmp_path: Path, table: str, ante: str, bet: str,
                                                              need: str) -> None:
    assert problems(tmp_path, GOOD + f"table: {table}\n") == [
        "F:8: table: " + _OVERFLOW.format(seats=2, ante=ante, bet=bet, need=need)]


def test_the_amount_bound_grows_with_the_seats_that_can_reenter_a_svara(tmp_path: Path) -> None:
    six = "".join(f"  - {{name: b{index}, address: 'h:{index + 1}'}}\n" for index in range(6))
    text = f"name: x\nparticipants:\n{six}table:\n  max_bet: 10000\ntable_size: 6\n"
    assert problems(tmp_path, text) == ["F:9: table: " + _OVERFLOW.format(seats=6, ante=1, bet=10000, need="6.8e+19")]
    assert parse_config(text.replace("table_size: 6", "table_size: 2")).rules.max_bet == 10000
    assert parse_config(text.replace("10000", "1000")).table_size == 6


def test_plans_and_settings_are_bounded(tmp_path: Path) -> None:
    text = GOOD + "table: {pots: 100000000000000, max_actions: 100000}\nsessions_per_table: 100000000\n" \
                  "concurrency: 100000000000\n"
    assert problems(tmp_path, text) == [
        "F:8: table.max_actions: must be at most 10000, not 100000",
        "F:8: table.pots: must be at most 10000, not 100000000000000",
        "F:9: sessions_per_table: must be at most 1000000, not 100000000",
        "F:10: concurrency: must be at most 1024, not 100000000000",
    ]
    many = "".join(f"  - {{name: b{index}, address: 'h:{index + 1}'}}\n" for index in range(1001))
    assert problems(tmp_path, f"name: x\nparticipants:\n{many}") == ["F:2: participants: at most 1000 bots, not 1001"]
    hundred = "".join(f"  - {{name: b{index}, address: 'h:{index + 1}'}}\n" for index in range(100))
    assert problems(tmp_path, f"name: x\nparticipants:\n{hundred}table_size: 4\n") == [
        "F:103: sessions_per_table: the plan would have 31369800 sessions, and at most 10000000 are played in one "
        "tournament: fewer participants, a smaller table_size or fewer sessions_per_table"]


def test_the_executor_is_local_or_a_cluster_checked_like_every_other_key() -> None:
    assert parse_config(GOOD + "executor: local\n").cluster is None
    assert parse_config(GOOD + "executor: {cluster: local:2}\n").cluster == "local:2"
    assert parse_config(GOOD + "executor:\n  cluster: tls://10.0.0.5:8786\n").cluster == "tls://10.0.0.5:8786"
    with pytest.raises(TournamentConfigError) as caught:
        parse_config(GOOD + "executor: {cluster: local:0}\n")
    assert "<string>:8: executor.cluster: local:N starts N worker processes on this machine, 1 to 64, not 0" in str(
        caught.value)
    with pytest.raises(TournamentConfigError, match=r"executor.cluster: must be local:N or a scheduler's address"):
        parse_config(GOOD + "executor: {cluster: 'http://x:1'}\n")
    with pytest.raises(TournamentConfigError, match="executor: must be a mapping of executor settings"):
        parse_config(GOOD + "executor: dask\n")
    with pytest.raises(TournamentConfigError, match="cluster"):
        replace(parse_config(GOOD), cluster="local:99")


WEAK_SECRETS = [
    ("42", "'42' is 2 decimal digits (6 bits)"),
    ("fixed", "'fixed' is 5 base64 characters (30 bits)"),
    ("'secret ✓'", "'secret ✓' is not random text: not decimal, hex, base32 or base64"),
    ("correct-horse-battery-staple-words", "'correct-horse-battery-staple-words' has only lower-case letters"),
    ("deadbeefdeadbeefdeadbeefdeadbeef", "does not look random (its bytes repeat or follow a pattern)"),
    ("000102030405060708090a0b0c0d0e0f", "does not look random"),
    ("123456789012345678901234567890123456789012", "does not look random"),
    ("1234567890123456789012345678901", "31 decimal digits (102 bits)"),
]
RANDOM_SECRETS = [  # drawn once: secrets.token_hex(16), token_urlsafe(24), token_hex(32), b32encode(token_bytes(20))
    # and randbits(160)
    "7b455bbfd838d03f1aae331b07e64815", "j5mgdMLhZ2YQQZs9gBqKVE5P4fLOzBd7",
    "64ca35a101bf2e6b3ccfd081432ada1383b2dd7db50b32d2071369e78a4d0a45", "NU7BXKOIR3LHNI7ECBPZ5QGA5KYZ7LDH",
    "1089556346975274618737499800262873246714265448868",
]


def test_a_written_secret_is_taken_only_with_128_random_bits_and_refused_at_its_line_with_how_to_write_one(
        tmp_path: Path) -> None:
    # Every deal follows from the secret through public steps: a guessable one gives a bot every card.
    for seed, why in WEAK_SECRETS:
        (problem,) = problems(tmp_path, GOOD.replace("seed: 992a93455c71fedd36ac9bbc439952c0", f"seed: {seed}"))
        assert problem.startswith("F:7: seed: a written secret needs at least 128 random bits, and "), problem
        assert why in problem and "python3 -c 'import secrets; print(secrets.token_hex(16))'" in problem
        assert "leave `seed:` out" in problem
    for seed in RANDOM_SECRETS:
        assert parse_config(GOOD.replace("seed: 992a93455c71fedd36ac9bbc439952c0", f"seed: '{seed}'")).seed == seed
