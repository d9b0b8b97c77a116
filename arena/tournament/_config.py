"""Tournament definitions: `tournaments/*.yaml` read, checked and frozen before anything runs.

Theory of operation: the file is composed into YAML nodes (`yaml.compose`), not loaded into plain
Python values, so every key and value keeps its line. Each section is then checked by a small
reader that records a `ConfigProblem` for every mistake and carries on with a placeholder, so one
pass reports all the mistakes of a file together in a single `TournamentConfigError`.

Paths and commands:

- `cwd` of a participant, when relative, is relative to the folder holding the YAML file; without
  `cwd` a bot runs in the folder the arena was started from. The loader resolves it to an absolute
  path and checks that the folder exists.
- `command` is split like a shell would (`shlex.split`), but no shell runs it. A command whose
  program is `python` or `python3` runs with the interpreter running the arena (`sys.executable`),
  so bots written in Python see the same virtual environment as the arena.
- The program of a command must exist: a name without a slash is looked up on `PATH` (the
  participant's `env` may override `PATH`); a path with a slash is taken relative to the bot's `cwd`.
"""

from __future__ import annotations

import difflib
import enum
import os
import re
import secrets
import shlex
import shutil
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any, TypeVar

import yaml

from ..engine import GEORGIAN, Amount, Rules, RulesError, parse_amount, profile
from ..transport import Isolation
from ._errors import ConfigProblem, TournamentConfigError

_T = TypeVar("_T")

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}\Z")
_NAME_RULE = "1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit"
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_PYTHONS = frozenset({"python", "python3"})
_SEED_BYTES = 16


class Format(enum.Enum):
    """How tables are drawn from the participants."""

    ROUND_ROBIN = "round_robin"
    """Every combination of `table_size` participants plays."""
    GAUNTLET = "gauntlet"
    """The challenger plays every combination of `table_size - 1` other participants."""


@dataclass(frozen=True)
class Limits:
    """Time and resource budgets of one bot. Resource limits of None mean no limit."""

    decision_ms: int = 1000
    """Milliseconds for each decision before the arena acts for the bot."""
    time_bank_ms: int = 0
    """Extra milliseconds a bot may draw on over a session when a decision runs past `decision_ms`."""
    start_ms: int = 10000
    """Milliseconds to start and answer the handshake."""
    cpu_seconds: int | None = None
    """CPU seconds of each bot process (RLIMIT_CPU); `limits` and `sandbox` default to 300."""
    memory_mb: int | None = None
    """MiB of memory for the bot and its children (a cgroup limit; address space under `none`); default 1024."""
    processes: int | None = None
    """Processes and threads of the bot together (a cgroup limit, not under `none`); default 64."""
    open_files: int | None = None
    """Open file descriptors of each bot process (RLIMIT_NOFILE); default 256."""
    file_size_mb: int | None = None
    """MiB any file the bot writes may reach (RLIMIT_FSIZE); default 64."""


_LIMIT_MINIMA: dict[str, int] = {
    "decision_ms": 1,
    "time_bank_ms": 0,
    "start_ms": 1,
    "cpu_seconds": 1,
    "memory_mb": 1,
    "processes": 1,
    "open_files": 1,
    "file_size_mb": 1,
}
_OPTIONAL_LIMITS = frozenset({"cpu_seconds", "memory_mb", "processes", "open_files", "file_size_mb"})


@dataclass(frozen=True)
class Participant:
    """One bot: either a command the arena starts or the address of a bot already running."""

    name: str
    """Unique within the tournament; used in results and file names."""
    command: tuple[str, ...] | None = None
    """The program and its arguments, already split (and `python` replaced by the arena's)."""
    address: str | None = None
    """`host:port` or `unix:PATH` of a bot that is already listening."""
    cwd: Path | None = None
    """Absolute folder the command runs in; None only for bots given by address."""
    env: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    """Variables added to the arena's environment for the command."""
    limits: Limits = Limits()
    """The tournament's limits with this bot's overrides applied."""


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
    """Seats at every table, 2..6."""
    format: Format = Format.ROUND_ROBIN
    """How tables are drawn."""
    challenger: str | None = None
    """The bot at every table of a gauntlet; None for a round robin."""
    sessions_per_table: int = 1
    """Duplicate blocks per table when `duplicate`; otherwise sessions per table (a multiple of table_size)."""
    duplicate: bool = True
    """Replay each block's deals with the seats permuted, so luck of the cards cancels out."""
    seed: str = ""
    """The tournament secret every session's deals derive from."""
    seed_generated: bool = False
    """True when the file gave no seed and the loader drew one; the runner must store it to resume."""
    concurrency: int = 4
    """Sessions played at the same time."""
    limits: Limits = Limits()
    """The default limits (each participant's own are in `Participant.limits`)."""
    isolation: Isolation = Isolation.NONE
    """How bot processes are fenced in."""
    restart_crashed: bool = True
    """Start a crashed bot again for its next session instead of folding it for the rest of the tournament."""
    source: str = ""
    """The YAML text as read, stored with the results so a resumed run can check it has not changed."""
    path: Path | None = None
    """The file the definition came from, if any."""

    @property
    def names(self) -> tuple[str, ...]:
        """The participants' names in file order."""
        return tuple(participant.name for participant in self.participants)

    def participant(self, name: str) -> Participant:
        """The participant called `name`; `KeyError` if there is none."""
        for participant in self.participants:
            if participant.name == name:
                return participant
        raise KeyError(name)

    def with_seed(self, seed: str) -> TournamentConfig:
        """The same definition with another secret: on resume, the one stored by the first run."""
        return replace(self, seed=seed, seed_generated=False)


def load_config(path: str | os.PathLike[str], *, python: str | None = None) -> TournamentConfig:
    """Read and check a tournament file.

    Args:
        path: the YAML file; problems are reported with the path spelled as given.
        python: the interpreter that replaces `python`/`python3` in commands (default `sys.executable`).

    Raises:
        TournamentConfigError: listing every problem found, each with file, line and field.
    """
    filename = os.fspath(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        raise TournamentConfigError([ConfigProblem(filename, None, None, f"cannot read the file: {reason}")]) from None
    return parse_config(text, filename=filename, base_dir=Path(path).resolve().parent, python=python, path=Path(path))


def parse_config(
    text: str,
    *,
    filename: str = "<string>",
    base_dir: str | os.PathLike[str] | None = None,
    python: str | None = None,
    path: Path | None = None,
) -> TournamentConfig:
    """Check a tournament definition given as YAML text.

    Args:
        filename: how problems name the source.
        base_dir: the folder relative `cwd` values are resolved against (default: the current folder).
        python: the interpreter that replaces `python`/`python3` in commands (default `sys.executable`).

    Raises:
        TournamentConfigError: listing every problem found.

    >>> config = parse_config('''
    ... name: tiny
    ... participants:
    ...   - {name: a, address: "localhost:5001"}
    ...   - {name: b, address: "unix:/tmp/b.sock"}
    ... seed: abc
    ... ''')
    >>> config.names, config.table_size, config.sessions_per_table, config.rules.pots_per_session
    (('a', 'b'), 2, 1, 8)
    """
    reader = _Reader(filename)
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line = mark.line + 1 if mark is not None else 1
        problem = error.problem or error.context or "cannot be parsed"
        if error.context and error.problem:
            started = f" started on line {error.context_mark.line + 1}" if error.context_mark is not None else ""
            problem = f"{error.problem} ({error.context}{started})"
        raise TournamentConfigError([ConfigProblem(filename, line, None, f"YAML syntax error: {problem}")]) from None
    except yaml.YAMLError as error:
        raise TournamentConfigError([ConfigProblem(filename, 1, None, f"YAML error: {error}")]) from None
    if root is None:
        raise TournamentConfigError([ConfigProblem(filename, 1, None, "the file is empty; a tournament needs at least a name and participants")])
    here = Path(base_dir).resolve() if base_dir is not None else Path.cwd()
    config = _read_tournament(reader, root, base_dir=here, run_dir=Path.cwd(), python=python or sys.executable)
    if reader.problems or config is None:
        raise TournamentConfigError(sorted(reader.problems, key=lambda problem: problem.line or 0))
    return replace(config, source=text, path=path)


# --- reading nodes -----------------------------------------------------------------------------

class _Missing:
    """Marks a field that is absent or invalid, so later checks that depend on it are skipped."""


_BAD: Any = _Missing()


@dataclass(frozen=True)
class _Entry:
    key_line: int
    node: yaml.Node


def _line(node: yaml.Node) -> int:
    return node.start_mark.line + 1


def _join(parent: str, key: str) -> str:
    return f"{parent}.{key}" if parent else key


def _suggest(word: str, choices: Sequence[str]) -> str:
    close = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


class _Reader:
    def __init__(self, filename: str) -> None:
        self.filename = filename
        self.problems: list[ConfigProblem] = []
        self._constructor = yaml.constructor.SafeConstructor()

    def report(self, line: int, field_path: str, message: str) -> Any:
        self.problems.append(ConfigProblem(self.filename, line, field_path, message))
        return _BAD

    def scalar(self, node: yaml.Node) -> object:
        if isinstance(node, yaml.MappingNode):
            return _BAD
        if isinstance(node, yaml.SequenceNode):
            return _BAD
        try:
            return self._constructor.construct_object(node, deep=True)
        except yaml.YAMLError:
            return node.value

    def show(self, node: yaml.Node) -> str:
        if isinstance(node, yaml.MappingNode):
            return "a mapping"
        if isinstance(node, yaml.SequenceNode):
            return "a list"
        value = self.scalar(node)
        return "nothing (null)" if value is None else repr(value)

    def mapping(self, node: yaml.Node, path: str, known: Sequence[str], what: str) -> dict[str, _Entry] | None:
        if not isinstance(node, yaml.MappingNode):
            self.report(_line(node), path or "(top level)", f"must be a mapping of {what}, not {self.show(node)}")
            return None
        entries: dict[str, _Entry] = {}
        for key_node, value_node in node.value:
            key = self.scalar(key_node)
            if not isinstance(key, str):
                self.report(_line(key_node), path or "(top level)", f"keys must be names, not {self.show(key_node)}")
                continue
            where = _join(path, key)
            if key not in known:
                self.report(_line(key_node), where, f"unknown key{_suggest(key, known)}")
                continue
            if key in entries:
                self.report(_line(key_node), where, f"given twice (first on line {entries[key].key_line})")
                continue
            entries[key] = _Entry(_line(key_node), value_node)
        return entries

    # Typed values: each returns the value, or _BAD after reporting a problem.

    def integer(self, node: yaml.Node, path: str, *, minimum: int, maximum: int | None = None) -> Any:
        value = self.scalar(node)
        good = isinstance(value, int) and not isinstance(value, bool)
        if good and value >= minimum and (maximum is None or value <= maximum):  # type: ignore[operator]
            return value
        if maximum is not None:
            rule = f"an integer from {minimum} to {maximum}"
        elif minimum == 1:
            rule = "a positive integer"
        elif minimum == 0:
            rule = "a non-negative integer"
        else:
            rule = f"an integer of at least {minimum}"
        return self.report(_line(node), path, f"must be {rule}, not {self.show(node)}")

    def boolean(self, node: yaml.Node, path: str) -> Any:
        value = self.scalar(node)
        if isinstance(value, bool):
            return value
        return self.report(_line(node), path, f"must be true or false, not {self.show(node)}")

    def text(self, node: yaml.Node, path: str, *, example: str) -> Any:
        value = self.scalar(node)
        if isinstance(value, str) and value.strip():
            return value
        return self.report(_line(node), path, f"must be a non-empty string such as {example!r}, not {self.show(node)}")

    def name(self, node: yaml.Node, path: str) -> Any:
        value = self.scalar(node)
        if isinstance(value, str) and _NAME.match(value):
            return value
        return self.report(_line(node), path, f"must be {_NAME_RULE}, not {self.show(node)}")

    def choice(self, node: yaml.Node, path: str, kind: type[enum.Enum]) -> Any:
        value = self.scalar(node)
        options = [member.value for member in kind]
        if isinstance(value, str) and value in options:
            return kind(value)
        hint = _suggest(value, options) if isinstance(value, str) else ""
        return self.report(_line(node), path, f"must be one of {', '.join(options)}, not {self.show(node)}{hint}")

    def amount(self, node: yaml.Node, path: str, *, positive: bool) -> Any:
        value = self.scalar(node)
        amount: Amount
        if isinstance(value, int) and not isinstance(value, bool):
            amount = value
        elif isinstance(value, str):
            try:
                amount = parse_amount(value.strip())
            except ValueError as error:
                return self.report(_line(node), path, str(error))
        else:
            return self.report(
                _line(node), path, f"must be a whole number or an exact fraction such as '15/2', not {self.show(node)}"
            )
        if positive and amount <= 0:
            return self.report(_line(node), path, f"must be positive, not {self.show(node)}")
        if amount < 0:
            return self.report(_line(node), path, f"must not be negative, not {self.show(node)}")
        return amount


def _get(entries: dict[str, _Entry] | None, key: str, read: Callable[[yaml.Node], _T], default: _T) -> _T:
    if entries is None or key not in entries:
        return default
    return read(entries[key].node)


# --- sections ----------------------------------------------------------------------------------

_TOP_KEYS = (
    "name", "participants", "profile", "table", "table_size", "format", "challenger",
    "sessions_per_table", "duplicate", "seed", "concurrency", "limits", "isolation", "restart_crashed",
)  # fmt: skip
_PARTICIPANT_KEYS = ("name", "command", "address", "cwd", "env", "limits")
_TABLE_KEYS = ("ante", "opening_stake", "max_bet", "max_actions", "pots")
_LIMIT_KEYS = tuple(_LIMIT_MINIMA)


def _read_tournament(reader: _Reader, root: yaml.Node, *, base_dir: Path, run_dir: Path, python: str) -> TournamentConfig | None:
    top = reader.mapping(root, "", _TOP_KEYS, "tournament settings")
    if top is None:
        return None
    first_line = _line(root)

    if "name" in top:
        name = reader.name(top["name"].node, "name")
    else:
        name = reader.report(first_line, "name", "required: the tournament's name")

    limits = _read_limits(reader, top["limits"].node, "limits", Limits()) if "limits" in top else Limits()
    if limits is _BAD:
        limits = Limits()

    participants: list[Participant] | Any
    if "participants" in top:
        participants = _read_participants(reader, top["participants"], limits, base_dir=base_dir, run_dir=run_dir, python=python)
    else:
        participants = reader.report(first_line, "participants", "required: a list of at least two bots")

    rules = _read_rules(reader, top)

    table_size = _get(top, "table_size", lambda node: reader.integer(node, "table_size", minimum=2, maximum=6), 2)
    fmt = _get(top, "format", lambda node: reader.choice(node, "format", Format), Format.ROUND_ROBIN)
    challenger = _get(top, "challenger", lambda node: reader.text(node, "challenger", example="my_bot"), None)
    duplicate = _get(top, "duplicate", lambda node: reader.boolean(node, "duplicate"), True)
    default_sessions = table_size if duplicate is False and table_size is not _BAD else 1
    sessions = _get(top, "sessions_per_table", lambda node: reader.integer(node, "sessions_per_table", minimum=1), default_sessions)
    seed = _get(top, "seed", lambda node: _read_seed(reader, node), None)
    concurrency = _get(top, "concurrency", lambda node: reader.integer(node, "concurrency", minimum=1), 4)
    isolation = _get(top, "isolation", lambda node: reader.choice(node, "isolation", Isolation), Isolation.NONE)
    restart = _get(top, "restart_crashed", lambda node: reader.boolean(node, "restart_crashed"), True)

    # Checks across fields, made only when the fields they read are valid.
    if table_size is not _BAD and rules is not _BAD and not rules.min_seats <= table_size <= rules.max_seats:
        reader.report(top["table_size"].node.start_mark.line + 1, "table_size",
                      f"profile {rules.name!r} seats {rules.min_seats} to {rules.max_seats} players, not {table_size}")
    if table_size is not _BAD and participants is not _BAD and table_size > len(participants):
        line = _line(top["table_size"].node) if "table_size" in top else top["participants"].key_line
        reader.report(line, "table_size", f"a table of {table_size} needs at least {table_size} participants, and there are {len(participants)}")
    if fmt is Format.GAUNTLET and challenger is None:
        reader.report(top["format"].key_line, "challenger", "required with format: gauntlet: the name of the bot that meets the field")
    if fmt is Format.ROUND_ROBIN and challenger not in (None, _BAD):
        reader.report(top["challenger"].key_line, "challenger", "only used with format: gauntlet (the format is round_robin)")
    if fmt is Format.GAUNTLET and isinstance(challenger, str) and participants is not _BAD:
        names = [participant.name for participant in participants]
        if challenger not in names:
            reader.report(_line(top["challenger"].node), "challenger",
                          f"{challenger!r} is not a participant{_suggest(challenger, names)}")
    if duplicate is False and sessions is not _BAD and table_size is not _BAD and sessions % table_size:
        line = _line(top["sessions_per_table"].node)
        reader.report(line, "sessions_per_table",
                      f"with duplicate: false this counts sessions and must be a multiple of table_size ({table_size}) "
                      f"so every bot sits in every seat equally often, not {sessions}")

    if reader.problems:
        return None
    generated = seed is None
    return TournamentConfig(
        name=name,
        participants=tuple(participants),
        rules=rules,
        table_size=table_size,
        format=fmt,
        challenger=challenger if fmt is Format.GAUNTLET else None,
        sessions_per_table=sessions,
        duplicate=duplicate,
        seed=secrets.token_hex(_SEED_BYTES) if seed is None else seed,
        seed_generated=generated,
        concurrency=concurrency,
        limits=limits,
        isolation=isolation,
        restart_crashed=restart,
    )


def _read_seed(reader: _Reader, node: yaml.Node) -> Any:
    value = reader.scalar(node)
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, str) and value:
        return value
    return reader.report(_line(node), "seed", f"must be a non-empty string (or leave it out to draw a secret one), not {reader.show(node)}")


def _read_rules(reader: _Reader, top: dict[str, _Entry]) -> Any:
    base: Any = GEORGIAN
    if "profile" in top:
        node = top["profile"].node
        label = reader.text(node, "profile", example="georgian")
        if label is not _BAD:
            try:
                base = profile(label)
            except RulesError as error:
                base = reader.report(_line(node), "profile", str(error))
        else:
            base = _BAD
    if "table" not in top:
        return base
    entry = top["table"]
    table = reader.mapping(entry.node, "table", _TABLE_KEYS, "table settings")
    if table is None:
        return _BAD
    settings: dict[str, Any] = {}
    readers: dict[str, tuple[str, Callable[[yaml.Node, str], Any]]] = {
        "ante": ("ante", lambda node, path: reader.amount(node, path, positive=False)),
        "opening_stake": ("opening_stake", lambda node, path: reader.amount(node, path, positive=True)),
        "max_bet": ("max_bet", lambda node, path: reader.amount(node, path, positive=True)),
        "max_actions": ("max_actions", lambda node, path: reader.integer(node, path, minimum=2)),
        "pots": ("pots_per_session", lambda node, path: reader.integer(node, path, minimum=1)),
    }
    for key, (setting, read) in readers.items():
        if key in table:
            settings[setting] = read(table[key].node, f"table.{key}")
    if base is _BAD or any(value is _BAD for value in settings.values()):
        return _BAD
    try:
        return base.with_table(**settings)
    except RulesError as error:
        return reader.report(entry.key_line, "table", str(error))


def _read_limits(reader: _Reader, node: yaml.Node, path: str, defaults: Limits) -> Any:
    entries = reader.mapping(node, path, _LIMIT_KEYS, "limits")
    if entries is None:
        return _BAD
    values: dict[str, Any] = {}
    for key, entry in entries.items():
        where = f"{path}.{key}"
        if key in _OPTIONAL_LIMITS and reader.scalar(entry.node) is None:
            values[key] = None  # null lifts a default limit
        else:
            values[key] = reader.integer(entry.node, where, minimum=_LIMIT_MINIMA[key])
    if any(value is _BAD for value in values.values()):
        return _BAD
    return replace(defaults, **values)


def _read_participants(
    reader: _Reader, entry: _Entry, limits: Limits, *, base_dir: Path, run_dir: Path, python: str
) -> Any:
    node = entry.node
    if not isinstance(node, yaml.SequenceNode):
        return reader.report(_line(node), "participants", f"must be a list of bots, not {reader.show(node)}")
    if len(node.value) < 2:
        return reader.report(entry.key_line, "participants", f"needs at least two bots, not {len(node.value)}")
    participants: list[Participant] = []
    seen: dict[str, str] = {}
    failed = False
    for index, item in enumerate(node.value):
        participant = _read_participant(reader, item, f"participants[{index}]", limits,
                                        base_dir=base_dir, run_dir=run_dir, python=python, seen=seen)
        if participant is _BAD:
            failed = True
        else:
            participants.append(participant)
    return _BAD if failed else participants


def _read_participant(
    reader: _Reader, node: yaml.Node, path: str, defaults: Limits, *,
    base_dir: Path, run_dir: Path, python: str, seen: dict[str, str],
) -> Any:
    entries = reader.mapping(node, path, _PARTICIPANT_KEYS, "bot settings")
    if entries is None:
        return _BAD
    before = len(reader.problems)
    line = _line(node)

    name: Any
    if "name" in entries:
        name = reader.name(entries["name"].node, f"{path}.name")
        if name is not _BAD:
            if name in seen:
                reader.report(_line(entries["name"].node), f"{path}.name", f"duplicate name {name!r} (also {seen[name]})")
            else:
                seen[name] = f"{path}, line {line}"
    else:
        reader.report(line, f"{path}.name", "required: a unique name for the bot")

    env: dict[str, str] = {}
    if "env" in entries:
        env_entries = _read_env(reader, entries["env"].node, f"{path}.env")
        env = env_entries if env_entries is not _BAD else {}

    cwd: Path | None = None
    cwd_problems = len(reader.problems)
    if "cwd" in entries:
        cwd_node = entries["cwd"].node
        folder = reader.text(cwd_node, f"{path}.cwd", example="bots/mine")
        if folder is not _BAD:
            cwd = (base_dir / os.path.expanduser(folder)).resolve()
            if not cwd.is_dir():
                reader.report(_line(cwd_node), f"{path}.cwd", f"no such folder: {str(cwd)!r} (from {folder!r})")

    command: tuple[str, ...] | None = None
    address: str | None = None
    if "command" in entries and "address" in entries:
        reader.report(entries["address"].key_line, path, "give a command (to start the bot) or an address (of a running bot), not both")
    elif "command" in entries and len(reader.problems) > cwd_problems:
        pass  # without a valid folder the program cannot be looked for
    elif "command" in entries:
        command = _read_command(reader, entries["command"].node, f"{path}.command",
                                cwd=cwd or run_dir, env=env, python=python)
    elif "address" in entries:
        address = _read_address(reader, entries["address"].node, f"{path}.address")
        if "cwd" in entries:
            reader.report(entries["cwd"].key_line, f"{path}.cwd", "only used with a command (this bot is given by address)")
    elif not (isinstance(node, yaml.MappingNode) and _misspells(reader, node, ("command", "address"))):
        # A misspelt `comand:` is already reported with a suggestion; saying it is missing adds noise.
        reader.report(line, path, "needs a command (to start the bot) or an address (of a running bot)")

    limits = defaults
    if "limits" in entries:
        limits = _read_limits(reader, entries["limits"].node, f"{path}.limits", defaults)

    if len(reader.problems) > before:
        return _BAD
    return Participant(
        name=name,
        command=command,
        address=address,
        cwd=(cwd or run_dir) if command is not None else None,
        env=MappingProxyType(env),
        limits=limits,
    )


def _misspells(reader: _Reader, node: yaml.MappingNode, wanted: Sequence[str]) -> bool:
    keys = [reader.scalar(key_node) for key_node, _ in node.value]
    return any(isinstance(key, str) and key not in _PARTICIPANT_KEYS and difflib.get_close_matches(key, wanted, n=1, cutoff=0.6)
               for key in keys)


def _read_env(reader: _Reader, node: yaml.Node, path: str) -> Any:
    if not isinstance(node, yaml.MappingNode):
        return reader.report(_line(node), path, f"must be a mapping of variable names to values, not {reader.show(node)}")
    env: dict[str, str] = {}
    failed = False
    for key_node, value_node in node.value:
        key = reader.scalar(key_node)
        if not isinstance(key, str) or not _ENV_NAME.match(key):
            reader.report(_line(key_node), path, f"variable names are letters, digits and '_', not {reader.show(key_node)}")
            failed = True
            continue
        value = reader.scalar(value_node)
        if isinstance(value, str) or (isinstance(value, int | float) and not isinstance(value, bool)):
            env[key] = str(value)
        else:
            reader.report(_line(value_node), f"{path}.{key}", f"must be a string or a number, not {reader.show(value_node)}")
            failed = True
    return _BAD if failed else env


def _read_command(reader: _Reader, node: yaml.Node, path: str, *, cwd: Path, env: Mapping[str, str], python: str) -> Any:
    text = reader.text(node, path, example="python3 bots/mine.py")
    if text is _BAD:
        return _BAD
    try:
        argv = shlex.split(text)
    except ValueError as error:
        return reader.report(_line(node), path, f"cannot be split like a shell command ({error}): {text!r}")
    if not argv:
        return reader.report(_line(node), path, f"names no program: {text!r}")
    if argv[0] in _PYTHONS:
        argv[0] = python
    program = argv[0]
    if "/" in program or os.sep in program:
        if not (cwd / program).is_file():
            return reader.report(_line(node), path, f"program {program!r} not found in {str(cwd)!r}")
    elif shutil.which(program, path=env.get("PATH", os.environ.get("PATH"))) is None:
        return reader.report(_line(node), path, f"program {program!r} not found on PATH")
    return tuple(argv)


def _read_address(reader: _Reader, node: yaml.Node, path: str) -> Any:
    text = reader.scalar(node)
    if isinstance(text, str):
        if text.startswith("unix:"):
            if text[len("unix:"):]:
                return text
        else:
            host, colon, port = text.rpartition(":")
            if colon and host and port.isdigit() and 0 < int(port) < 65536:
                return text
    return reader.report(_line(node), path, f"must be 'host:port' or 'unix:PATH', not {reader.show(node)}")
