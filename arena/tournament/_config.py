"""Tournament definitions as frozen types that check their own rules, whoever builds them.

Theory of operation: every rule of a definition is written once, here. A rule about one value is a
small function or a `Bounds` (`name_problem`, `LIMIT_BOUNDS`, ...) that says what is wrong with the
value; a rule across fields is one clause of `tournament_violations` (which runs on whatever
fields are known and skips the clauses whose fields are not) or `participant_shape_violations`. The types call
them in `__post_init__`, so a hand-built `TournamentConfig` breaking a rule raises the same
`TournamentConfigError` a file would; the YAML loader (`_loader.py`) calls the same functions while
it reads, so it can place each problem on its file line and report every problem at once.
"""

from __future__ import annotations

import difflib
import enum
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from fractions import Fraction
from pathlib import Path
from types import MappingProxyType
from typing import Any

from ..engine import GEORGIAN, Rules, format_amount
from ..executor import ClusterCertificates, cluster_problem
from ..isolation import Isolation, ProcessLimits
from ..transport import TimeLimit, is_address
from ._deals import DealBook
from ._errors import ConfigProblem, TournamentConfigError
from ._schedule import Format, block_size, count_sessions, count_tables

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}\Z")
_NAME_RULE = "1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit"


@dataclass(frozen=True)
class Violation:
    """A rule a definition breaks; the loader adds the file and line, `__post_init__` raises it as is."""

    field: str
    """The field at fault, relative to the object checked (`""` for the object itself)."""
    message: str
    """What is wrong, quoting the bad value."""
    at: tuple[str, ...] = ()
    """Fields to place the problem on, in order of preference, when `field` is not in the file."""


@dataclass(frozen=True)
class Bounds:
    """The integers a setting accepts, and how a refusal words them."""

    minimum: int
    maximum: int | None = None
    enumerated: bool = False
    """Word every refusal as the range ("an integer from 2 to 6"), for short ranges."""

    def problem(self, value: object, *, shown: str | None = None) -> str | None:
        """What is wrong with `value` (`"must be a positive integer, not 0"`), or None when it is accepted.

        Args:
            shown: how to quote the value (default its repr).

        >>> Bounds(1, 60_000).problem(0), Bounds(1, 60_000).problem(90_000)
        ('must be a positive integer, not 0', 'must be at most 60000, not 90000')
        >>> Bounds(2, 6, enumerated=True).problem(7)
        'must be an integer from 2 to 6, not 7'
        """
        above = False
        if isinstance(value, int) and not isinstance(value, bool):
            above = self.maximum is not None and value > self.maximum
            if self.minimum <= value and not above:
                return None
        quoted = repr(value) if shown is None else shown
        if self.enumerated and self.maximum is not None:
            return f"must be an integer from {self.minimum} to {self.maximum}, not {quoted}"
        if above:
            return f"must be at most {self.maximum}, not {quoted}"
        if self.minimum == 1:
            rule = "a positive integer"
        elif self.minimum == 0:
            rule = "a non-negative integer"
        else:
            rule = f"an integer of at least {self.minimum}"
        return f"must be {rule}, not {quoted}"


def name_problem(value: object, *, shown: str | None = None) -> str | None:
    """What is wrong with a tournament's or a bot's name, or None.

    >>> name_problem("alpha_2"), name_problem("my bot")
    (None, "must be 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit, not 'my bot'")
    """
    if isinstance(value, str) and _NAME.match(value):
        return None
    return f"must be {_NAME_RULE}, not {repr(value) if shown is None else shown}"


def address_problem(value: object, *, shown: str | None = None) -> str | None:
    """What is wrong with the address of a running bot (`host:port`, `unix:PATH`), or None.

    >>> address_problem("localhost:5001"), address_problem("unix:/tmp/b.sock"), address_problem("h:70000")
    (None, None, "must be 'host:port' or 'unix:PATH', not 'h:70000'")
    """
    if isinstance(value, str) and is_address(value):
        port = value.rpartition(":")[2]
        if value.startswith("unix") or 0 < int(port) < 65536:
            return None
    return f"must be 'host:port' or 'unix:PATH', not {repr(value) if shown is None else shown}"


def _raise(source: Path | None, violations: Iterable[Violation], prefix: str = "") -> None:
    where = str(source) if source is not None else "<config>"
    problems = [ConfigProblem(where, None,
                              f"{prefix}{violation.field}" if violation.field else prefix.rstrip(".") or None,
                              violation.message) for violation in violations]
    if problems:
        raise TournamentConfigError(problems)


# --- limits ------------------------------------------------------------------------------------

LIMIT_BOUNDS: Mapping[str, Bounds] = MappingProxyType({
    "decision_ms": Bounds(1, 60_000),
    "time_bank_ms": Bounds(0, 3_600_000),
    "start_ms": Bounds(1, 600_000),
    "cpu_seconds": Bounds(1, 86_400),
    "memory_mb": Bounds(1, 1 << 20),
    "processes": Bounds(1, 1 << 16),
    "open_files": Bounds(1, 1 << 20),
    "file_size_mb": Bounds(1, 1 << 20),
})
"""The values each limit accepts (the YAML `limits:` keys, and the time limits' command-line options):
a decision within a minute, a time bank within an hour, a start within ten minutes, resources within
what a machine has."""
_TIME_LIMITS = ("decision_ms", "time_bank_ms", "start_ms")
OPTIONAL_LIMITS = frozenset(LIMIT_BOUNDS) - frozenset(_TIME_LIMITS)
"""Limits that may be None (not limited); `null` in a file lifts a default."""


def limit_problem(key: str, value: object, *, shown: str | None = None) -> str | None:
    """What is wrong with `value` as the limit `key`, or None.

    >>> limit_problem("decision_ms", 0), limit_problem("decision_ms", 90_000), limit_problem("memory_mb", None)
    ('must be a positive integer, not 0', 'must be at most 60000, not 90000', None)
    """
    if value is None and key in OPTIONAL_LIMITS:
        return None
    return LIMIT_BOUNDS[key].problem(value, shown=shown)


def _limit_violations(settings: Mapping[str, object]) -> list[Violation]:
    return [Violation(key, problem) for key, value in settings.items()
            if (problem := limit_problem(key, value)) is not None]


@dataclass(frozen=True)
class BotLimits:
    """Time and resource budgets of one bot, as the transport takes them; the YAML `limits:` keys."""

    time: TimeLimit = TimeLimit()
    """`decision_ms`, `time_bank_ms` and `start_ms`."""
    process: ProcessLimits = ProcessLimits()
    """`cpu_seconds`, `memory_mb`, `processes`, `open_files` and `file_size_mb`; None is no limit (the
    `limits` and `sandbox` isolation levels then apply their defaults)."""

    def __post_init__(self) -> None:
        _raise(None, _limit_violations(self.settings()), "limits.")

    def settings(self) -> dict[str, int | None]:
        """The limits by their YAML keys.

        >>> BotLimits().settings()["decision_ms"], BotLimits().settings()["memory_mb"]
        (1000, None)
        """
        return {key: getattr(self.time if key in _TIME_LIMITS else self.process, key) for key in LIMIT_BOUNDS}

    def with_settings(self, settings: Mapping[str, int | None]) -> BotLimits:
        """These limits with some changed, by their YAML keys (checked).

        >>> BotLimits().with_settings({"decision_ms": 50, "memory_mb": 256}).time.decision_ms
        50
        """
        _raise(None, _limit_violations(settings), "limits.")
        time: dict[str, Any] = {key: value for key, value in settings.items() if key in _TIME_LIMITS}
        process: dict[str, Any] = {key: value for key, value in settings.items() if key not in _TIME_LIMITS}
        return BotLimits(replace(self.time, **time), replace(self.process, **process))


# --- participants ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Participant:
    """One bot: either a command the arena starts or the address of a bot already running."""

    name: str
    """Unique within the tournament; used in results and file names."""
    command: tuple[str, ...] | None = None
    """The program and its arguments, already split (and `python` replaced by the arena's)."""
    address: str | None = None
    """`host:port` or `unix:PATH` of a bot that is already listening (a relative PATH is resolved by the loader)."""
    cwd: Path | None = None
    """Absolute folder the command runs in; None only for bots given by address."""
    env: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    """Variables added to the arena's environment for the command."""
    limits: BotLimits = BotLimits()
    """The tournament's limits with this bot's overrides applied."""
    confined: bool = False
    """A stranger's bot (the service seats submissions so): it sees only its `cwd` and the runtime in
    the sandbox, and its command may name nothing outside its `cwd` (see `BotSpec.confined`)."""

    def __post_init__(self) -> None:
        violations = participant_shape_violations(command=self.command is not None, address=self.address is not None,
                                                  cwd=self.cwd is not None)
        for key, problem in (("name", name_problem(self.name)),
                             ("address", None if self.address is None else address_problem(self.address))):
            if problem is not None:
                violations.append(Violation(key, problem))
        _raise(None, violations, f"participants[{self.name!r}].")


def participant_shape_violations(*, command: bool, address: bool, cwd: bool) -> list[Violation]:
    """The rule on which settings a participant gives: a command (with a folder) or an address.

    >>> [v.message for v in participant_shape_violations(command=False, address=True, cwd=True)]
    ['only used with a command (this bot is given by address)']
    """
    if command and address:
        return [Violation("", "give a command (to start the bot) or an address (of a running bot), not both",
                          at=("address",))]
    if not command and not address:
        return [Violation("", "needs a command (to start the bot) or an address (of a running bot)")]
    if address and cwd:
        return [Violation("cwd", "only used with a command (this bot is given by address)")]
    return []


def duplicate_names(names: Sequence[str]) -> list[tuple[int, int]]:
    """`(index, index of the first with that name)` for every name used before.

    >>> duplicate_names(["a", "b", "a", "a"])
    [(2, 0), (3, 0)]
    """
    first: dict[str, int] = {}
    repeats = []
    for index, name in enumerate(names):
        if name in first:
            repeats.append((index, first[name]))
        else:
            first[name] = index
    return repeats


# --- the tournament ----------------------------------------------------------------------------

TABLE_SIZE = Bounds(2, 8, enumerated=True)
"""Seats at a table: the widest profile (`classic`) seats 8; each profile narrows it."""
SESSIONS_PER_TABLE = Bounds(1, 1_000_000)
"""Duplicate blocks (or sessions, without duplicate dealing) per table."""
CONCURRENCY = Bounds(1, 1024)
"""Sessions in flight."""
SESSIONS_PER_PROCESS = Bounds(1, 1_000_000)
"""Sessions one warm bot process serves at most (`max_sessions_per_process`)."""
DEFAULT_SESSIONS_PER_PROCESS = 100
"""`max_sessions_per_process` when the file leaves it out."""


class BotProcesses(enum.Enum):
    """Whether a bot process serves one session or several (`bot_processes`; docs/tournaments.md)."""

    FRESH = "fresh"
    """Every session launches its bots afresh: nothing a bot remembers reaches another session."""
    REUSE = "reuse"
    """A bot process that got through a session cleanly may serve later ones (never both mirrors of
    a duplicate block, never two at once): start-up is paid once per process, not per session."""
POTS = Bounds(1, 10_000)
"""Ordinary pots in a session (`table.pots`)."""
MAX_ACTIONS = Bounds(2, 10_000)
"""The action cap of a deal (`table.max_actions`)."""
MAX_PARTICIPANTS = 1000
"""Bots in a tournament."""
MAX_TEAM_TABLES = 100_000
"""Tables a tournament with teams may draw: its plan lists them (without teams each is computed from its rank)."""
MAX_SESSIONS = 10_000_000
"""Sessions in a plan: a plan is stored as play reaches it, so this bounds only the results file."""
SVARA_DEPTH = 16
"""Nested svaras in one pot that the amount rule (`largest_amount`) allows for. Each needs a tie at a
showdown (about 1 in 7 even when six hands are shown), so 16 in one pot come about once in 10^13 pots."""
_INT64 = 2**63 - 1  # the protocol's `Amount` is two int64s


def participants_problem(count: int) -> str | None:
    """What is wrong with a tournament of `count` bots, or None."""
    if count < 2:
        return f"needs at least two bots, not {count}"
    if count > MAX_PARTICIPANTS:
        return f"at most {MAX_PARTICIPANTS} bots, not {count}"
    return None


def largest_amount(rules: Rules, seats: int, *, svaras: int = SVARA_DEPTH) -> int:
    """A bound on every numerator and denominator (in lowest terms) of an amount in a session.

    The pot of a deal holds at most the antes and `max_actions` payments of `max_bet`. A svara
    re-entry is half the frozen pot, paid by at most `seats - 2` players, so each nested svara
    multiplies the pot by at most `seats / 2` before its replay adds the same payments again, and
    doubles the denominator. A balance is at most the sum of a session's pots. The bound holds
    for bets on the table's grid (multiples of one over the settings' denominators) and up to
    `svaras` nested svaras in a pot.

    >>> from arena.engine import GEORGIAN
    >>> largest_amount(GEORGIAN, 2), largest_amount(GEORGIAN, 6) < 2**63
    (17826840576, True)
    """
    amounts = [Fraction(rules.ante), Fraction(rules.opening_stake), Fraction(rules.max_bet)]
    unit = math.lcm(*(amount.denominator for amount in amounts))
    payments = rules.max_actions * Fraction(rules.max_bet)
    pot = seats * Fraction(rules.ante) + payments
    for _ in range(svaras):
        pot = pot * seats / 2 + payments
    denominator = unit << svaras
    return max(math.ceil(rules.pots_per_session * pot * denominator), denominator)


def _amount_violations(rules: Rules, seats: int) -> list[Violation]:
    violations = [Violation(f"table.{key}", problem, at=("table",))
                  for key, bounds, value in (("pots", POTS, rules.pots_per_session),
                                             ("max_actions", MAX_ACTIONS, rules.max_actions))
                  if (problem := bounds.problem(value)) is not None]
    if violations:
        return violations
    largest = largest_amount(rules, seats)
    if largest <= _INT64:
        return []
    return [Violation("table", (
        f"amounts could outgrow the protocol's 64-bit integers: with {seats} seats, ante {format_amount(rules.ante)}, "
        f"max_bet {format_amount(rules.max_bet)}, {rules.max_actions} actions a deal and "
        f"{rules.pots_per_session} pots, "
        f"a balance could need {largest:.2g} after {SVARA_DEPTH} nested svaras (at most {_INT64:.2g}); lower max_bet, "
        "max_actions, pots or table_size, or use fractions with smaller denominators"), at=("table", "table_size"))]


@dataclass(frozen=True)
class TournamentConfig:
    """A checked tournament definition. Build one with `load_config` or `parse_config`."""

    name: str
    """The tournament's name."""
    participants: tuple[Participant, ...]
    """The bots, in file order (schedules follow this order)."""
    rules: Rules = GEORGIAN
    """The profile with the `table` settings applied."""
    table_size: int = 2
    """Seats at every table, in the profile's range: 2..6 `georgian`, 2..8 `classic`, 2 the stake profiles."""
    format: Format = Format.ROUND_ROBIN
    """How tables are drawn."""
    challenger: str | None = None
    """The bot at every table of a gauntlet; None for a round robin."""
    teams: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """Teams (one per author, say) and their members, in file order: no table seats two members of one
    team (`teams:`); a participant in none is a team of its own."""
    sessions_per_table: int = 1
    """Duplicate blocks per table when `duplicate`; otherwise sessions per table (a multiple of table_size)."""
    duplicate: bool = True
    """Replay each block's deals with the seats permuted, so luck of the cards cancels out."""
    seed: str = ""
    """The tournament secret every session's deals derive from."""
    seed_generated: bool = False
    """True when the file gave no seed and the loader drew one; the runner must store it to resume."""
    deals: DealBook | None = None
    """The deal book its blocks deal from (`deals: FILE`), in plan order; None: seeds from the secret."""
    concurrency: int | None = None
    """Sessions played at the same time; None: as many as the machine can serve (see `Governor`)."""
    limits: BotLimits = BotLimits()
    """The default limits (each participant's own are in `Participant.limits`)."""
    isolation: Isolation | None = None
    """How bot processes are fenced in; None (no `isolation:` key) leaves it to the machine:
    `sandbox` where it can, else `none` with a warning (`arena.isolation.default_isolation`)."""
    restart_crashed: bool = True
    """Start a crashed bot again for its next session instead of folding it for the rest of the tournament."""
    cluster: str | None = None
    """Where sessions are played (`executor: {cluster: ...}`): None in this process (`executor: local`),
    `local:N` on N worker processes this machine starts, or a Dask scheduler's address."""
    cluster_certificates: ClusterCertificates | None = None
    """This driver's CA, certificate and key for a `tls://` cluster (`executor: {cluster, ca, cert, key}`)."""
    bot_processes: BotProcesses = BotProcesses.FRESH
    """A process per session, or warm processes serving several (see `BotProcesses`)."""
    max_sessions_per_process: int | None = None
    """With `reuse`, the sessions one process serves at most (None: `DEFAULT_SESSIONS_PER_PROCESS`)."""
    source: str = ""
    """The YAML text as read, stored with the results so a resumed run can check it has not changed."""
    path: Path | None = None
    """The file the definition came from, if any."""

    def __post_init__(self) -> None:
        _raise(self.path, tournament_violations(_known(self)))

    @property
    def names(self) -> tuple[str, ...]:
        """The participants' names in file order."""
        return tuple(participant.name for participant in self.participants)

    @property
    def team_of(self) -> dict[str, str]:
        """Each team member's team, by name (empty without teams)."""
        return team_index(self.teams)

    @property
    def sessions_per_process(self) -> int:
        """The sessions one bot process serves at most: 1 with `fresh`."""
        if self.bot_processes is BotProcesses.FRESH:
            return 1
        return self.max_sessions_per_process or DEFAULT_SESSIONS_PER_PROCESS

    def participant(self, name: str) -> Participant:
        """The participant called `name`; `KeyError` if there is none."""
        for participant in self.participants:
            if participant.name == name:
                return participant
        raise KeyError(name)

    def with_seed(self, seed: str) -> TournamentConfig:
        """The same definition with another secret: on resume, the one stored by the first run."""
        return replace(self, seed=seed, seed_generated=False)


RESULT_NEUTRAL = frozenset({"concurrency", "executor"})
"""Settings a resumed run may change: they change how fast results come, never what they are."""


def team_index(teams: Sequence[tuple[str, Sequence[str]]]) -> dict[str, str]:
    """Each member's team, by name.

    >>> team_index([("alice", ("a1", "a2"))])
    {'a1': 'alice', 'a2': 'alice'}
    """
    return {member: team for team, members in teams for member in members}


def _known(instance: Any) -> dict[str, Any]:
    return {item.name: getattr(instance, item.name) for item in fields(instance)}


def tournament_violations(values: Mapping[str, Any]) -> list[Violation]:
    """The rules of a tournament, each applied when the fields it reads are known.

    Args:
        values: field name to value, for the fields known to be valid on their own; the loader
            passes defaults for fields the file leaves out.

    >>> [v.message for v in tournament_violations({"format": Format.GAUNTLET, "challenger": None})]
    ['required with format: gauntlet: the name of the bot that meets the field']
    """
    violations: list[Violation] = []
    for key, check in (("table_size", TABLE_SIZE.problem), ("sessions_per_table", SESSIONS_PER_TABLE.problem),
                       ("concurrency", CONCURRENCY.problem), ("name", name_problem), ("cluster", cluster_problem),
                       ("max_sessions_per_process", SESSIONS_PER_PROCESS.problem)):
        automatic = key in ("concurrency", "cluster", "max_sessions_per_process") and values.get(key, 0) is None
        if key in values and not automatic and (problem := check(values[key])) is not None:
            violations.append(Violation(key, problem))
    values = {key: value for key, value in values.items() if key not in {violation.field for violation in violations}}
    participants: Sequence[Participant] | None = values.get("participants")
    names = [participant.name for participant in participants] if participants is not None else None
    if names is not None:
        if (problem := participants_problem(len(names))) is not None:
            violations.append(Violation("participants", problem))
        for index, first in duplicate_names(names):
            violations.append(Violation(f"participants[{index}].name",
                                        f"duplicate name {names[index]!r} (also participants[{first}])"))
    size, rules = values.get("table_size"), values.get("rules")
    if size is not None and rules is not None and not rules.min_seats <= size <= rules.max_seats:
        violations.append(Violation("table_size", f"profile {rules.name!r} seats {rules.min_seats} to "
                                    f"{rules.max_seats} players, not {size}", at=("table_size", "profile")))
    if size is not None and names is not None and size > len(names):
        violations.append(Violation("table_size", f"a table of {size} needs at least {size} participants, "
                                    f"and there are {len(names)}", at=("table_size", "participants")))
    if values.get("bot_processes") is BotProcesses.FRESH and values.get("max_sessions_per_process") is not None:
        violations.append(Violation("max_sessions_per_process",
                                    "only used with bot_processes: reuse (with fresh every session has its own "
                                    "processes)", at=("max_sessions_per_process", "bot_processes")))
    fmt, challenger = values.get("format"), values.get("challenger", ...)
    if fmt is Format.GAUNTLET and challenger is None:
        violations.append(Violation("challenger",
                                    "required with format: gauntlet: the name of the bot that meets the field",
                                    at=("format",)))
    if fmt is Format.ROUND_ROBIN and challenger not in (None, ...):
        violations.append(Violation("challenger", "only used with format: gauntlet (the format is round_robin)"))
    if fmt is Format.GAUNTLET and isinstance(challenger, str) and names is not None and challenger not in names:
        violations.append(Violation("challenger", f"{challenger!r} is not a participant{suggest(challenger, names)}"))
    if size is not None and rules is not None and rules.min_seats <= size <= rules.max_seats:
        violations += _amount_violations(rules, size)
    teams: Sequence[tuple[str, Sequence[str]]] | None = values.get("teams")
    table_count: int | None = None
    if teams and names is not None:
        violations += _team_violations(teams, names)
        if size is not None and fmt is not None and size <= len(names) and not any(
                violation.field.startswith("teams") for violation in violations):
            table_count = count_tables(names, size, team_of=team_index(teams),
                                       challenger=challenger if fmt is Format.GAUNTLET and isinstance(challenger, str)
                                       and challenger in names else None)
            if table_count == 0:
                which = "with the challenger " if fmt is Format.GAUNTLET else ""
                violations.append(Violation("teams", f"no table of {size} seats {which}is left without two members "
                                            "of one team: name fewer teammates or make the table smaller",
                                            at=("teams", "table_size")))
            elif table_count > MAX_TEAM_TABLES:
                violations.append(Violation("teams", f"with teams the tables are listed, at most {MAX_TEAM_TABLES}, "
                                            f"and these draw {table_count}: fewer participants or a smaller table_size",
                                            at=("teams", "table_size")))
    sessions, duplicate = values.get("sessions_per_table"), values.get("duplicate")
    if (names is not None and size is not None and fmt is not None and sessions is not None and duplicate is not None
            and size <= len(names)):
        count = count_sessions(participants=len(names), table_size=size, format=fmt, sessions_per_table=sessions,
                               duplicate=duplicate, table_count=table_count)
        if count > MAX_SESSIONS:
            violations.append(Violation("sessions_per_table", (
                f"the plan would have {count} sessions, and at most {MAX_SESSIONS} are played in one tournament: "
                "fewer participants, a smaller table_size or fewer sessions_per_table"),
                at=("sessions_per_table", "table_size", "participants")))
    deals: DealBook | None = values.get("deals")
    if (deals is not None and names is not None and size is not None and fmt is not None and sessions is not None
            and duplicate is not None and size <= len(names)):
        blocks = count_sessions(participants=len(names), table_size=size, format=fmt, sessions_per_table=sessions,
                                duplicate=duplicate, table_count=table_count) // (block_size(size) if duplicate else 1)
        if blocks > len(deals.seeds):
            violations.append(Violation("deals", (
                f"the book holds {len(deals.seeds)} deal{'s' if len(deals.seeds) != 1 else ''} and this tournament "
                f"plays {blocks} blocks, each dealing "
                f"from one: make a book of {blocks} or more (seka-arena deals make {blocks} > FILE); a book's deals "
                "are never reused"), at=("deals",)))
    if duplicate is False and sessions is not None and size is not None and sessions % size:
        violations.append(Violation(
            "sessions_per_table", f"with duplicate: false this counts sessions and must be a multiple of table_size "
            f"({size}) so every bot sits in every seat equally often, not {sessions}",
            at=("sessions_per_table", "duplicate")))
    return violations


def _team_violations(teams: Sequence[tuple[str, Sequence[str]]], names: Sequence[str]) -> list[Violation]:
    # Every member a participant, each in one team at most.
    violations: list[Violation] = []
    seen: dict[str, str] = {}
    for team, members in teams:
        for index, member in enumerate(members):
            if member not in names:
                violations.append(Violation(f"teams.{team}[{index}]",
                                            f"{member!r} is not a participant{suggest(member, names)}"))
            elif member in seen:
                violations.append(Violation(f"teams.{team}[{index}]",
                                            f"{member!r} is already in team {seen[member]!r}: a bot is in one team"))
            else:
                seen[member] = team
    return violations


def suggest(word: str, choices: Sequence[str]) -> str:
    """`"; did you mean 'x'?"` for the closest of `choices`, or nothing.

    >>> suggest("alpah", ["alpha", "beta"])
    "; did you mean 'alpha'?"
    """
    close = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""
