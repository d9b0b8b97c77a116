"""Tournament files (`tournaments/*.yaml`) read into checked `TournamentConfig`s, every mistake with its file and line.

Theory of operation: the file is composed into YAML nodes (`yaml.compose`), not loaded into plain
Python values, so every key and value keeps its line. Each section is then read by a small reader
that maps nodes to values and records a `ConfigProblem` for every mistake, carrying on with a
placeholder, so one pass reports all the mistakes of a file together in a single
`TournamentConfigError`. The reader checks shapes (a mapping, an integer, a string); the rules
themselves come from `_config.py` (the same ones `TournamentConfig.__post_init__` applies), and
what the file means on this machine (folders, programs, the drawn secret) from `_machine.py`.

Hand-written readers rather than a validation library: the messages (did-you-mean suggestions, a
missing `command` not reported when `comand:` is, rules across fields placed on the line of the
field that decides them) are the tested interface, and they would need as much code again to map
a library's errors back to them.
"""

from __future__ import annotations

import enum
import functools
import os
import re
import shlex
import stat
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any, TypeVar

import yaml

from ..engine import GEORGIAN, PROFILE_SPECS, Amount, OptionSpec, ProfileSpec, RulesError, format_amount, parse_amount
from ..executor import ClusterCertificates, cluster_problem
from ..isolation import Isolation, confinement_problem, rlimit_problem
from ._config import (
    CONCURRENCY,
    LIMIT_BOUNDS,
    MAX_ACTIONS,
    POTS,
    SESSIONS_PER_PROCESS,
    SESSIONS_PER_TABLE,
    TABLE_SIZE,
    BotLimits,
    BotProcesses,
    Bounds,
    Participant,
    TournamentConfig,
    Violation,
    address_problem,
    duplicate_names,
    limit_problem,
    name_problem,
    participant_shape_violations,
    participants_problem,
    suggest,
    tournament_violations,
)
from ._deals import MAX_BOOK_BYTES, MAX_DEALS, DealBook, deal_seed_problem
from ._errors import ConfigProblem, TournamentConfigError
from ._machine import MachineError, draw_secret, resolve_address, resolve_command, resolve_folder
from ._schedule import Format
from ._secret import secret_problem

_T = TypeVar("_T")

_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_MAX_DEPTH = 64
"""Nesting a file may have; a tournament needs 4. Deeper files are refused before Python's stack runs out."""


def load_config(path: str | os.PathLike[str], *, python: str | None = None) -> TournamentConfig:
    """Read and check a tournament file.

    Args:
        path: the YAML file; problems are reported with the path spelled as given.
        python: the interpreter that replaces `python`/`python3` in commands (default `sys.executable`).

    Raises:
        TournamentConfigError: listing every problem found, each with file, line and field.
    """
    filename, text = read_config_file(path)
    return parse_config(text, filename=filename, base_dir=Path(path).resolve().parent, python=python, path=Path(path))


def read_config_file(path: str | os.PathLike[str]) -> tuple[str, str]:
    """The file name as given and the text of a YAML configuration file, or a `TournamentConfigError`
    saying why it cannot be read."""
    filename = os.fspath(path)
    try:
        return filename, Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        raise TournamentConfigError([ConfigProblem(filename, None, None, f"cannot read the file: {reason}")]) from None


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
        base_dir: the folder relative `cwd` values and `unix:` socket paths are resolved against
            (default: the current folder).
        python: the interpreter that replaces `python`/`python3` in commands (default `sys.executable`).

    Raises:
        TournamentConfigError: listing every problem found.

    >>> config = parse_config('''
    ... name: tiny
    ... participants:
    ...   - {name: a, address: "localhost:5001"}
    ...   - {name: b, address: "unix:/tmp/b.sock"}
    ... ''')
    >>> config.names, config.table_size, config.sessions_per_table, config.rules.pots_per_session
    (('a', 'b'), 2, 1, 8)
    """
    reader = ConfigReader(filename)
    root = compose_yaml(text, filename=filename)
    if root is None:
        raise TournamentConfigError([ConfigProblem(
            filename, 1, None, "the file is empty; a tournament needs at least a name and participants")])
    here = Path(base_dir).resolve() if base_dir is not None else Path.cwd()
    config = _read_tournament(reader, root, base_dir=here, run_dir=Path.cwd(), python=python)
    if reader.problems or config is None:
        raise TournamentConfigError(sorted(reader.problems, key=lambda problem: problem.line or 0))
    return replace(config, source=text, path=path)


def compose_yaml(text: str, *, filename: str) -> yaml.Node | None:
    """The YAML text as nodes that keep their lines (None for an empty file), nesting bounded.

    Raises:
        TournamentConfigError: the text is not YAML, or nests too deep; with the file and line.
    """
    try:
        return yaml.compose(text, Loader=_DepthLimitedLoader)
    except _TooDeepError as error:
        raise TournamentConfigError([ConfigProblem(filename, error.line, None, str(error))]) from None
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


class _TooDeepError(Exception):
    def __init__(self, line: int) -> None:
        super().__init__(f"YAML nested more than {_MAX_DEPTH} levels deep (a tournament file needs 4)")
        self.line = line


class _DepthLimitedLoader(yaml.SafeLoader):
    # PyYAML composes nodes recursively: a file nested thousands deep would end in RecursionError.
    _depth = 0

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        self._depth += 1
        try:
            if self._depth > _MAX_DEPTH:
                raise _TooDeepError(_line(parent) if parent is not None else 1)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


# --- reading nodes -----------------------------------------------------------------------------

class _Missing:
    """Marks a field that is absent or invalid, so later checks that depend on it are skipped."""


_BAD: Any = _Missing()
INVALID: Any = _BAD
"""What a `ConfigReader` method returns for a value it refused (after recording the problem)."""


@dataclass(frozen=True)
class ConfigEntry:
    """A key of a mapping as read: the line of the key, and its value's node."""

    key_line: int
    node: yaml.Node


def node_line(node: yaml.Node) -> int:
    """The 1-based line a node starts on."""
    return node.start_mark.line + 1


_line = node_line


def _join(parent: str, key: str) -> str:
    return f"{parent}.{key}" if parent and key else parent or key


class ConfigReader:
    """Maps YAML nodes to checked values, recording a `ConfigProblem` (file, line, field) for each
    mistake and going on with `INVALID`, so one pass reports every mistake of a file.

    Other YAML files of the arena (the service's configuration) are read with it too.
    """

    def __init__(self, filename: str) -> None:
        self.filename = filename
        self.problems: list[ConfigProblem] = []
        self._constructor = yaml.constructor.SafeConstructor()

    def report(self, line: int, field_path: str, message: str) -> Any:
        self.problems.append(ConfigProblem(self.filename, line, field_path, message))
        return _BAD

    def report_violations(self, violations: Sequence[Violation], entries: Mapping[str, ConfigEntry], *,
                          path: str, line: int) -> None:
        """Place each broken rule on the line of the first of its fields the file gives (else `line`)."""
        for violation in violations:
            keys = [key.split("[")[0].split(".")[0] for key in (*violation.at, violation.field)]
            where = next((entries[key].key_line for key in keys if key in entries), line)
            self.report(where, _join(path, violation.field), violation.message)

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

    def mapping(self, node: yaml.Node, path: str, known: Sequence[str], what: str) -> dict[str, ConfigEntry] | None:
        if not isinstance(node, yaml.MappingNode):
            self.report(_line(node), path or "(top level)", f"must be a mapping of {what}, not {self.show(node)}")
            return None
        entries: dict[str, ConfigEntry] = {}
        for key_node, value_node in node.value:
            key = self.scalar(key_node)
            if not isinstance(key, str):
                self.report(_line(key_node), path or "(top level)", f"keys must be names, not {self.show(key_node)}")
                continue
            where = _join(path, key)
            if key not in known:
                self.report(_line(key_node), where, f"unknown key{suggest(key, known)}")
                continue
            if key in entries:
                self.report(_line(key_node), where, f"given twice (first on line {entries[key].key_line})")
                continue
            entries[key] = ConfigEntry(_line(key_node), value_node)
        return entries

    # Typed values: each returns the value, or _BAD after reporting a problem.

    def checked(self, node: yaml.Node, path: str, value: object, problem: Callable[..., str | None]) -> Any:
        message = problem(value, shown=self.show(node))
        return value if message is None else self.report(_line(node), path, message)

    def integer(self, node: yaml.Node, path: str, bounds: Bounds) -> Any:
        return self.checked(node, path, self.scalar(node), bounds.problem)

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
        return self.checked(node, path, self.scalar(node), name_problem)

    def choice(self, node: yaml.Node, path: str, kind: type[enum.Enum]) -> Any:
        value = self.scalar(node)
        options = [member.value for member in kind]
        if isinstance(value, str) and value in options:
            return kind(value)
        hint = suggest(value, options) if isinstance(value, str) else ""
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


def _get(entries: dict[str, ConfigEntry] | None, key: str, read: Callable[[yaml.Node], _T], default: _T) -> _T:
    if entries is None or key not in entries:
        return default
    return read(entries[key].node)


# --- sections ----------------------------------------------------------------------------------

_TOP_KEYS = (
    "name", "participants", "profile", "table", "table_size", "format", "challenger",
    "sessions_per_table", "duplicate", "seed", "concurrency", "limits", "isolation", "restart_crashed",
    "executor",
    "bot_processes", "max_sessions_per_process", "deals", "teams",
)  # fmt: skip
_PARTICIPANT_KEYS = ("name", "command", "address", "cwd", "env", "limits", "confined")
_TABLE_KEYS = ("ante", "opening_stake", "max_bet", "max_actions", "pots")
_OPTION_KEYS = tuple(dict.fromkeys(option.name for spec in PROFILE_SPECS.values() for option in spec.options))
"""Every option of every profile: each may stand under `table:`, if the chosen profile has it."""


def _read_tournament(reader: ConfigReader, root: yaml.Node, *, base_dir: Path, run_dir: Path,
                     python: str | None) -> TournamentConfig | None:
    top = reader.mapping(root, "", _TOP_KEYS, "tournament settings")
    if top is None:
        return None
    first_line = _line(root)

    if "name" in top:
        name = reader.name(top["name"].node, "name")
    else:
        name = reader.report(first_line, "name", "required: the tournament's name")

    limits = read_limits(reader, top["limits"].node, "limits", BotLimits()) if "limits" in top else BotLimits()
    if limits is _BAD:
        limits = BotLimits()

    participants: list[Participant] | Any
    if "participants" in top:
        participants = _read_participants(reader, top["participants"], limits, base_dir=base_dir, run_dir=run_dir,
                                          python=python)
    else:
        participants = reader.report(first_line, "participants", "required: a list of at least two bots")

    rules = read_rules(reader, top)

    table_size = _get(top, "table_size", lambda node: reader.integer(node, "table_size", TABLE_SIZE), 2)
    fmt = _get(top, "format", lambda node: reader.choice(node, "format", Format), Format.ROUND_ROBIN)
    challenger = _get(top, "challenger", lambda node: reader.text(node, "challenger", example="my_bot"), None)
    duplicate = _get(top, "duplicate", lambda node: reader.boolean(node, "duplicate"), True)
    default_sessions = table_size if duplicate is False and table_size is not _BAD else 1
    sessions = _get(top, "sessions_per_table",
                    lambda node: reader.integer(node, "sessions_per_table", SESSIONS_PER_TABLE), default_sessions)
    seed = _get(top, "seed", lambda node: _read_seed(reader, node), None)
    deals = _get(top, "deals", lambda node: _read_deals(reader, node, base_dir=base_dir), None)
    concurrency = _get(top, "concurrency", lambda node: reader.integer(node, "concurrency", CONCURRENCY), None)
    isolation = _get(top, "isolation", lambda node: reader.choice(node, "isolation", Isolation), None)
    restart = _get(top, "restart_crashed", lambda node: reader.boolean(node, "restart_crashed"), True)
    cluster, certificates = _get(top, "executor", lambda node: _read_executor(reader, node, base_dir=base_dir),
                                 (None, None))
    processes = _get(top, "bot_processes", lambda node: reader.choice(node, "bot_processes", BotProcesses),
                     BotProcesses.FRESH)
    per_process = _get(top, "max_sessions_per_process",
                       lambda node: reader.integer(node, "max_sessions_per_process", SESSIONS_PER_PROCESS), None)
    names = [participant.name for participant in participants] if participants is not _BAD else None
    teams = _get(top, "teams", lambda node: _read_teams(reader, node, names), ())

    # The rules across fields, each applied when the fields it reads are valid.
    known = {"participants": tuple(participants) if participants is not _BAD else _BAD, "rules": rules,
             "table_size": table_size, "format": fmt, "challenger": challenger, "duplicate": duplicate,
             "sessions_per_table": sessions, "concurrency": concurrency, "bot_processes": processes,
             "max_sessions_per_process": per_process, "deals": deals, "teams": teams}
    reader.report_violations(tournament_violations({key: value for key, value in known.items() if value is not _BAD}),
                             top, path="", line=first_line)

    if reader.problems:
        return None
    return TournamentConfig(
        name=name,
        participants=tuple(participants),
        rules=rules,
        table_size=table_size,
        format=fmt,
        challenger=challenger if fmt is Format.GAUNTLET else None,
        teams=teams,
        sessions_per_table=sessions,
        duplicate=duplicate,
        seed=draw_secret() if seed is None else seed,
        seed_generated=seed is None,
        concurrency=concurrency,
        limits=limits,
        isolation=isolation,
        restart_crashed=restart,
        cluster=cluster,
        cluster_certificates=certificates,
        bot_processes=processes,
        max_sessions_per_process=per_process,
        deals=deals,
    )


def _read_teams(reader: ConfigReader, node: yaml.Node, names: Sequence[str] | None) -> Any:
    """`teams:` as (team, members) pairs in file order, each member a participant (when the participants
    were read) in one team only; or _BAD after reporting each mistake on its own line."""
    if not isinstance(node, yaml.MappingNode):
        return reader.report(_line(node), "teams", "must be a mapping of team names to lists of participants' "
                             f"names (`teams: {{alice: [a1, a2]}}`), not {reader.show(node)}")
    teams: list[tuple[str, tuple[str, ...]]] = []
    seen: dict[str, str] = {}
    before = len(reader.problems)
    for key_node, value_node in node.value:
        team = reader.name(key_node, "teams")
        if team is _BAD:
            continue
        if team in dict(teams):
            reader.report(_line(key_node), f"teams.{team}", "given twice")
            continue
        if not isinstance(value_node, yaml.SequenceNode) or not value_node.value:
            shown = "an empty list" if isinstance(value_node, yaml.SequenceNode) else reader.show(value_node)
            reader.report(_line(value_node), f"teams.{team}", f"must be a list of participants' names, not {shown}")
            continue
        members: list[str] = []
        for index, item in enumerate(value_node.value):
            member, path = reader.scalar(item), f"teams.{team}[{index}]"
            if not isinstance(member, str):
                reader.report(_line(item), path, f"must be a participant's name, not {reader.show(item)}")
            elif names is not None and member not in names:
                reader.report(_line(item), path, f"{member!r} is not a participant{suggest(member, names)}")
            elif member in seen:
                reader.report(_line(item), path, f"{member!r} is already in team {seen[member]!r}: a bot is in one "
                              "team")
            else:
                seen[member] = team
                members.append(member)
        teams.append((team, tuple(members)))
    return _BAD if len(reader.problems) > before else tuple(teams)


_CERTIFICATE_KEYS = ("ca", "cert", "key")


def _read_executor(reader: ConfigReader, node: yaml.Node, *, base_dir: Path) -> tuple[Any, Any]:
    # `local` (the default), or `{cluster: ADDRESS}` for a Dask cluster, with `ca`, `cert` and `key` (files
    # relative to the tournament's folder) for a tls:// one: (None or the address, None or the certificates).
    if isinstance(node, yaml.ScalarNode) and reader.scalar(node) == "local":
        return None, None
    return read_cluster(reader, node, "executor", address_key="cluster", base_dir=base_dir,
                        what="executor settings (or `local`)")


def read_cluster(reader: ConfigReader, node: yaml.Node, field: str, *, address_key: str, base_dir: Path,
                 what: str) -> tuple[Any, Any]:
    """A Dask cluster's settings: a mapping of its address (under `address_key`: local:N or a scheduler's)
    and, for a tls:// one, this driver's `ca`, `cert` and `key` (files relative to `base_dir`), reported
    under `field`: (the address, None or the certificates), `INVALID` where a problem was reported."""
    entries = reader.mapping(node, field, (address_key, *_CERTIFICATE_KEYS), what)
    if entries is None:
        return _BAD, None
    if address_key not in entries:
        return reader.report(_line(node), f"{field}.{address_key}",
                             "required: local:N or a Dask scheduler's address"), None
    cluster_node = entries[address_key].node
    cluster = reader.checked(cluster_node, f"{field}.{address_key}", reader.scalar(cluster_node), cluster_problem)
    given = [key for key in _CERTIFICATE_KEYS if key in entries]
    if not given:
        return cluster, None
    if isinstance(cluster, str) and not cluster.startswith("tls://"):
        return cluster, reader.report(_line(entries[given[0]].node), f"{field}.{given[0]}",
                                      f"certificates are for a tls:// cluster, not {cluster}")
    if len(given) != len(_CERTIFICATE_KEYS):
        missing = [key for key in _CERTIFICATE_KEYS if key not in entries]
        return cluster, reader.report(_line(node), f"{field}.{missing[0]}",
                                      "required with the others: a tls:// cluster needs its CA's certificate (ca) "
                                      "and this driver's certificate (cert) and key (key)")
    paths: dict[str, Path] = {}
    for key in _CERTIFICATE_KEYS:
        text = reader.text(entries[key].node, f"{field}.{key}", example=f"/etc/seka/driver.{key}")
        if text is _BAD:
            return cluster, _BAD
        paths[key] = (base_dir / os.path.expanduser(text)).resolve()
    certificates = ClusterCertificates(paths["ca"], paths["cert"], paths["key"])
    if (problem := certificates.problem()) is not None:
        return cluster, reader.report(_line(node), field, problem)
    return cluster, certificates


def _read_seed(reader: ConfigReader, node: yaml.Node) -> Any:
    # A secret that can be guessed gives a bot every card (the steps from secret to deals are public).
    value = reader.scalar(node)
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if isinstance(value, str) and value:
        weak = secret_problem(value)
        return value if weak is None else reader.report(_line(node), "seed", weak)
    return reader.report(_line(node), "seed",
                         f"must be a non-empty string (or leave it out to draw a secret one), not {reader.show(node)}")


def _read_deals(reader: ConfigReader, node: yaml.Node, *, base_dir: Path) -> Any:
    # `deals: FILE`, relative to the tournament's folder: the deal book (`_deals`), its own mistakes
    # reported at their lines in it.
    text = reader.text(node, "deals", example="deals/book.yaml")
    if text is _BAD:
        return _BAD
    path = base_dir / os.path.expanduser(text)
    shown = text if os.path.isabs(os.path.expanduser(text)) else os.path.join(os.path.dirname(reader.filename), text)
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):  # a FIFO or a device would never end, or never start
            return reader.report(_line(node), "deals", f"the deal book {shown} is not a regular file")
        with open(path, "rb") as file:
            data = file.read(MAX_BOOK_BYTES + 1)
    except OSError as error:
        return reader.report(_line(node), "deals", f"cannot read the deal book {shown}: {error.strerror}")
    if len(data) > MAX_BOOK_BYTES:
        return reader.report(_line(node), "deals", f"the deal book {shown} is larger than {MAX_BOOK_BYTES} bytes "
                                                   f"(a book holds at most {MAX_DEALS} deals)")
    book = ConfigReader(shown)
    try:
        root = compose_yaml(data.decode("utf-8"), filename=shown)
    except UnicodeDecodeError as error:
        return reader.report(_line(node), "deals", f"the deal book {shown} is not UTF-8 text: {error.reason}")
    except TournamentConfigError as error:
        reader.problems.extend(error.problems)
        return _BAD
    seeds = _read_book(book, root)
    reader.problems.extend(book.problems)
    return _BAD if seeds is _BAD else DealBook(tuple(seeds), data, path.resolve())


def _read_book(reader: ConfigReader, root: yaml.Node | None) -> Any:
    if root is None:
        return reader.report(1, "deals", "the deal book is empty: it needs `deals:`, a list of deal seeds")
    top = reader.mapping(root, "", ("deals",), "the deal book's settings")
    if top is None:
        return _BAD
    if "deals" not in top:
        return reader.report(_line(root), "deals", "required: a list of deal seeds (seka-arena deals make N)")
    listed = top["deals"].node
    if not isinstance(listed, yaml.SequenceNode) or not listed.value:
        return reader.report(_line(listed), "deals",
                             f"must be a non-empty list of deal seeds, not {reader.show(listed)}")
    if len(listed.value) > MAX_DEALS:
        return reader.report(_line(listed), "deals",
                             f"holds {len(listed.value)} deals; a book holds at most {MAX_DEALS}")
    seeds: list[str] = []
    first: dict[str, int] = {}
    for index, item in enumerate(listed.value):
        seed = reader.checked(item, f"deals[{index}]", reader.scalar(item), deal_seed_problem)
        if seed is _BAD:
            continue
        if seed in first:
            reader.report(_line(item), f"deals[{index}]", f"the same deal as deals[{first[seed]}]: a book holds "
                                                          "each deal once")
            continue
        first[seed] = index
        seeds.append(seed)
    return _BAD if reader.problems else seeds


def read_rules(reader: ConfigReader, top: dict[str, ConfigEntry]) -> Any:
    spec: ProfileSpec | None = PROFILE_SPECS[GEORGIAN.name]
    if "profile" in top:
        node = top["profile"].node
        label = reader.text(node, "profile", example="georgian")
        spec = PROFILE_SPECS.get(label) if label is not _BAD else None
        if label is not _BAD and spec is None:
            known = sorted(PROFILE_SPECS)
            reader.report(_line(node), "profile", f"unknown profile {label!r}; known: {', '.join(known)}"
                                                  f"{suggest(label, known)}")
    if "table" not in top:
        return _BAD if spec is None else spec.rules()
    entry = top["table"]
    table = reader.mapping(entry.node, "table", _TABLE_KEYS + _OPTION_KEYS, "table settings and profile options")
    if table is None:
        return _BAD
    settings: dict[str, Any] = {}
    readers: dict[str, tuple[str, Callable[[yaml.Node, str], Any]]] = {
        "ante": ("ante", lambda node, path: reader.amount(node, path, positive=False)),
        "opening_stake": ("opening_stake", lambda node, path: reader.amount(node, path, positive=True)),
        "max_bet": ("max_bet", lambda node, path: reader.amount(node, path, positive=True)),
        "max_actions": ("max_actions", lambda node, path: reader.integer(node, path, MAX_ACTIONS)),
        "pots": ("pots_per_session", lambda node, path: reader.integer(node, path, POTS)),
    }
    for key, (setting, read) in readers.items():
        if key in table:
            settings[setting] = read(table[key].node, f"table.{key}")
    if spec is None:
        return _BAD
    before = len(reader.problems)
    options = {option.name: _read_option(reader, table[option.name].node, spec, option)
               for option in spec.options if option.name in table}
    for key in table:
        if key in _OPTION_KEYS and key not in options:
            have = ", ".join(option.name for option in spec.options) or "none"
            reader.report(table[key].key_line, f"table.{key}",
                          f"profile {spec.name!r} has no option {key!r} (its options: {have})")
    if len(reader.problems) > before or any(value is _BAD for value in (*settings.values(), *options.values())):
        return _BAD
    if spec.rules().betting.stacks:
        # Seed 004: the ante is the table stake. A file may set either; one set apart from the other is refused.
        stake, ante = settings.get("opening_stake"), settings.get("ante")
        if ante is None and stake is not None:
            settings["ante"] = stake
        elif ante is not None and ante != (1 if stake is None else stake):
            return reader.report(table["ante"].key_line, "table.ante",
                                 f"a {spec.name} table's ante is its table stake (opening_stake, "
                                 f"{format_amount(1 if stake is None else stake)}), not {format_amount(ante)}: "
                                 "leave ante out, or set opening_stake to the same amount")
    try:
        return spec.rules(options).with_table(**settings)
    except RulesError as error:
        return reader.report(entry.key_line, "table", str(error))


def _read_option(reader: ConfigReader, node: yaml.Node, spec: ProfileSpec, option: OptionSpec) -> Any:
    """The option's value as the profile spells it (`deck: 32` is "32", `dark: true` is "true")."""
    path = f"table.{option.name}"
    value = reader.scalar(node)
    allowed = f"one of {', '.join(option.values)}" if option.values is not None else "a positive amount"
    if isinstance(value, bool | int | str):
        try:
            return option.check(value, spec.name)
        except RulesError:
            pass
    hint = suggest(value, option.values) if isinstance(value, str) and option.values is not None else ""
    return reader.report(_line(node), path, f"must be {allowed} ({option.meaning}), not {reader.show(node)}{hint}")


def read_limits(reader: ConfigReader, node: yaml.Node, path: str, defaults: BotLimits) -> Any:
    entries = reader.mapping(node, path, tuple(LIMIT_BOUNDS), "limits")
    if entries is None:
        return _BAD
    def problem(key: str, value: Any, *, shown: str) -> str | None:
        # The file's rule, then the machine's: a limit the arena cannot apply would fail every launch.
        return limit_problem(key, value, shown=shown) or rlimit_problem(key, value)

    values = {key: reader.checked(entry.node, f"{path}.{key}", reader.scalar(entry.node),
                                  functools.partial(problem, key))
              for key, entry in entries.items()}  # null lifts an optional default limit
    if any(value is _BAD for value in values.values()):
        return _BAD
    return defaults.with_settings(values)


def _read_participants(
    reader: ConfigReader, entry: ConfigEntry, limits: BotLimits, *, base_dir: Path, run_dir: Path, python: str | None
) -> Any:
    node = entry.node
    if not isinstance(node, yaml.SequenceNode):
        return reader.report(_line(node), "participants", f"must be a list of bots, not {reader.show(node)}")
    if (problem := participants_problem(len(node.value))) is not None:
        return reader.report(entry.key_line, "participants", problem)
    read = [_read_participant(reader, item, f"participants[{index}]", limits, base_dir=base_dir, run_dir=run_dir,
                              python=python)
            for index, item in enumerate(node.value)]
    named = [(index, name_line, name) for index, (_, name_line, name) in enumerate(read) if name is not _BAD]
    repeats = duplicate_names([name for _, _, name in named])
    for later, first in repeats:
        index, name_line, name = named[later]
        earlier = named[first][0]
        reader.report(name_line, f"participants[{index}].name",
                      f"duplicate name {name!r} (also participants[{earlier}], line {_line(node.value[earlier])})")
    participants = [participant for participant, _, _ in read]
    return _BAD if repeats or any(participant is _BAD for participant in participants) else participants


def _read_participant(
    reader: ConfigReader, node: yaml.Node, path: str, defaults: BotLimits, *, base_dir: Path, run_dir: Path,
    python: str | None,
) -> tuple[Any, int, Any]:
    """The participant (or _BAD), and the line and value of its name (or _BAD) for the duplicate check."""
    before = len(reader.problems)
    entries = reader.mapping(node, path, _PARTICIPANT_KEYS, "bot settings")
    if entries is None:
        return _BAD, 0, _BAD
    line = _line(node)

    name: Any = _BAD
    name_line = line
    if "name" in entries:
        name_line = _line(entries["name"].node)
        name = reader.name(entries["name"].node, f"{path}.name")
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
            try:
                cwd = resolve_folder(base_dir, folder)
            except MachineError as error:
                reader.report(_line(cwd_node), f"{path}.cwd", str(error))
    cwd_failed = len(reader.problems) > cwd_problems

    command: tuple[str, ...] | None = None
    address: str | None = None
    shape = participant_shape_violations(command="command" in entries, address="address" in entries,
                                         cwd="cwd" in entries)
    if not ("command" not in entries and "address" not in entries and isinstance(node, yaml.MappingNode)
            and _misspells(reader, node, ("command", "address"))):
        # A misspelt `comand:` is already reported with a suggestion; saying it is missing adds noise.
        reader.report_violations(shape, entries, path=path, line=line)
    both = "command" in entries and "address" in entries
    if "command" in entries and not both and not cwd_failed:  # without a valid folder no program can be looked for
        command = _read_command(reader, entries["command"].node, f"{path}.command", cwd=cwd or run_dir, env=env,
                                python=python)
    elif "address" in entries and not both:
        address = _read_address(reader, entries["address"].node, f"{path}.address", base_dir=base_dir)

    limits = defaults
    if "limits" in entries:
        limits = read_limits(reader, entries["limits"].node, f"{path}.limits", defaults)

    confined = False
    if "confined" in entries:
        node_confined = entries["confined"].node
        confined = reader.boolean(node_confined, f"{path}.confined") is True
        if confined and "command" not in entries:
            reader.report(_line(node_confined), f"{path}.confined", "only used with a command (a bot the arena starts)")
        elif confined and command is not None and command is not _BAD:
            problem = confinement_problem(command, folder=cwd or run_dir)
            if problem is not None:
                reader.report(_line(entries["command"].node), f"{path}.command", f"confined: {problem}")

    if len(reader.problems) > before:
        return _BAD, name_line, name
    participant = Participant(name=name, command=command, address=address,
                              cwd=(cwd or run_dir) if command is not None else None, env=MappingProxyType(env),
                              limits=limits, confined=confined)
    return participant, name_line, name


def _misspells(reader: ConfigReader, node: yaml.MappingNode, wanted: Sequence[str]) -> bool:
    keys = [reader.scalar(key_node) for key_node, _ in node.value]
    return any(isinstance(key, str) and key not in _PARTICIPANT_KEYS and suggest(key, wanted) for key in keys)


def _read_env(reader: ConfigReader, node: yaml.Node, path: str) -> Any:
    if not isinstance(node, yaml.MappingNode):
        return reader.report(_line(node), path,
                             f"must be a mapping of variable names to values, not {reader.show(node)}")
    env: dict[str, str] = {}
    failed = False
    for key_node, value_node in node.value:
        key = reader.scalar(key_node)
        if not isinstance(key, str) or not _ENV_NAME.match(key):
            reader.report(_line(key_node), path,
                          f"variable names are letters, digits and '_', not {reader.show(key_node)}")
            failed = True
            continue
        value = reader.scalar(value_node)
        if isinstance(value, str) or (isinstance(value, int | float) and not isinstance(value, bool)):
            env[key] = str(value)
        else:
            reader.report(_line(value_node), f"{path}.{key}",
                          f"must be a string or a number, not {reader.show(value_node)}")
            failed = True
    return _BAD if failed else env


def _read_command(reader: ConfigReader, node: yaml.Node, path: str, *, cwd: Path, env: Mapping[str, str],
                  python: str | None) -> Any:
    text = reader.text(node, path, example="python3 bots/mine.py")
    if text is _BAD:
        return _BAD
    try:
        words = shlex.split(text)
    except ValueError as error:
        return reader.report(_line(node), path, f"cannot be split like a shell command ({error}): {text!r}")
    if not words:
        return reader.report(_line(node), path, f"names no program: {text!r}")
    try:
        return resolve_command(words, cwd=cwd, env=env, python=python)
    except MachineError as error:
        return reader.report(_line(node), path, str(error))


def _read_address(reader: ConfigReader, node: yaml.Node, path: str, *, base_dir: Path) -> Any:
    address = reader.checked(node, path, reader.scalar(node), address_problem)
    return address if address is _BAD else resolve_address(address, base_dir)

