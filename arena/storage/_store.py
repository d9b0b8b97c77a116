"""One tournament's results in one SQLite file: definition, commitment, plan and session results.

Theory of operation: the file is opened in WAL mode with `synchronous=FULL`, and every change is a
single `BEGIN IMMEDIATE ... COMMIT` transaction, so a process killed at any instant (SIGKILL
included) leaves the file at the last commit. A session moves planned -> running -> finished;
`record_result` writes the whole result and the `finished` status in one transaction, and a CHECK
constraint refuses a finished row without a result. At start-up a session still marked running was
interrupted: `unfinished()` returns it with the planned ones and the runner plays it again from the
start (its deals come from its seed, so the replay deals the same cards).

A results file exists only once it is a complete store: a new one is built under a `.partial`
name and linked into place with its schema. So an existing file that is empty, not SQLite, or has
another schema is refused, never taken for a new tournament (that would start over and draw a new
secret). A file opened `read_only` is never written, nor its folder: the standings of a read-only
results folder can be read. A full disk surfaces as `DiskFullError`, the transaction rolled back.

Amounts are stored as exact-fraction strings (`"15/2"`), never as floats. Timestamps are ISO 8601
UTC text read from the clock given to `Store.open`.
"""

from __future__ import annotations

import enum
import hashlib
import json
import os
import secrets
import sqlite3
import threading
import time
import urllib.parse
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from fractions import Fraction
from pathlib import Path
from types import MappingProxyType, TracebackType
from typing import Any, Protocol

import yaml

from ..engine import Amount, format_amount, parse_amount
from ._errors import DefinitionMismatchError, DiskFullError, StorageError, is_disk_full
from ._files import StoreKind, create_store_file, make_private, refuse_empty, verify_schema
from ._migrations import MIGRATIONS, apply_migrations
from ._transactions import write_transaction


class SessionStatus(enum.Enum):
    """Where a session stands."""

    PLANNED = "planned"
    RUNNING = "running"
    FINISHED = "finished"


class PlannedLike(Protocol):
    """What `record_plan` reads from a planned session (`arena.tournament.PlannedSession` fits)."""

    @property
    def index(self) -> int: ...
    @property
    def id(self) -> str: ...
    @property
    def table(self) -> Sequence[str]: ...
    @property
    def block(self) -> str: ...
    @property
    def seed(self) -> str: ...
    @property
    def mirror(self) -> int: ...


@dataclass(frozen=True)
class TournamentRecord:
    """The tournament row: what was run, and the commitment to its deals."""

    name: str
    definition: str = field(repr=False)
    """The YAML text the tournament was started with (kept out of repr: it may hold the seed)."""
    commitment: str
    """SHA-256 hex of the secret, stored before the first session."""
    secret: str = field(repr=False)
    """The tournament secret; publish it only once `secret_revealed` is true (kept out of repr)."""
    secret_revealed: bool
    created_at: str
    finished_at: str | None
    session_key: str | None = field(default=None, repr=False)
    """The key of the session ids bots are told (`arena.match.public_session_id`): random, drawn when the
    tournament is stored, never revealed (kept out of repr); None only in a file from before it was kept."""
    value_function: ValueFunction | None = None
    """The value function the commitment binds (form 2); None in a file from before it did (form 1)."""

    @property
    def public_secret(self) -> str | None:
        """The secret if it has been revealed, else None: what reports may show."""
        return self.secret if self.secret_revealed else None


@dataclass(frozen=True)
class SessionRecord:
    """One session's row. The result fields are None until the session is finished."""

    id: str
    index: int
    table: tuple[str, ...]
    """Bot names in seat order."""
    block: str
    mirror: int
    seed: str
    status: SessionStatus
    attempts: int
    """Times the session was marked running; above 1 when it was replayed after an interruption."""
    balances: Mapping[str, Amount] | None
    """Net chips per bot, exact; they sum to zero."""
    winners: tuple[str, ...] | None
    faults: Any
    """The JSON given to `record_result` (by convention {bot: {fault type: count}})."""
    telemetry: Any
    """The JSON given to `record_result`."""
    history_path: str | None
    started_at: str | None
    finished_at: str | None


@dataclass(frozen=True)
class FaultReason:
    """A bot's faults of one kind with one reason: in one session, or summed over several."""

    kind: str
    """`timeout`, `illegal`, `malformed` or `crash`."""
    reason: str
    """What happened, as the arena saw it (`Act not answered within 1000 ms`)."""
    count: int
    sessions: tuple[str, ...] = ()
    """The sessions they happened in (read back from the store)."""


@dataclass(frozen=True)
class ValueFunction:
    """The value function Q of the adjusted results (docs/ratings.md) as a commitment binds it."""

    name: str
    """Its identity (`arena.ratings.VALUE_FUNCTION`), e.g. `hindsight/1`."""
    sha256: str
    """Its fingerprint: the hex SHA-256 of its values along fixed sessions (`arena.ratings.value_function_digest`)."""

    def __post_init__(self) -> None:
        # The commitment's text separates its fields with |: a name holding one could be read two ways.
        if not self.name or "|" in self.name or len(self.sha256) != 64 or self.sha256.strip("0123456789abcdef"):
            raise ValueError(f"not a value function's name and hex SHA-256: {self.name!r}, {self.sha256!r}")

    def as_json(self) -> dict[str, str]:
        return {"name": self.name, "sha256": self.sha256}


COMMITMENT_FORM = "seka-arena/2"
"""The first field of a commitment's text since it binds the value function (form 2)."""


def commitment_text(secret: str, deals_sha256: str | None = None,
                    value_function: ValueFunction | None = None) -> str:
    """What a seed commitment is the SHA-256 of (docs/tournaments.md, "Re-deriving every deal", step 2).

    Form 2, with the value function of the adjusted results: `seka-arena/2|q|<Q's name>|<Q's hex
    SHA-256>|deals|<the deal book's hex SHA-256, or ->|<secret>`, the secret last (it may hold any
    character; every field before it is fixed). Form 1, of results folders from before Q was committed
    (`value_function` None): the secret, or `<secret>|deals|<the book's hex SHA-256>`.

    >>> commitment_text("abc", value_function=ValueFunction("hindsight/1", "0" * 64))[:40]
    'seka-arena/2|q|hindsight/1|0000000000000'
    >>> commitment_text("abc", "f" * 64)[:12]
    'abc|deals|ff'
    """
    if value_function is not None:
        return (f"{COMMITMENT_FORM}|q|{value_function.name}|{value_function.sha256}|deals|{deals_sha256 or '-'}|"
                f"{secret}")
    return secret if deals_sha256 is None else f"{secret}|deals|{deals_sha256}"


def commitment_of(secret: str, deals_sha256: str | None = None, value_function: ValueFunction | None = None) -> str:
    """The seed commitment, published before the first session: the hex SHA-256 of `commitment_text`'s UTF-8.

    >>> commitment_of("abc")  # form 1: printf %s abc | sha256sum
    'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'
    >>> commitment_of("abc", "0" * 64)  # printf '%s|deals|%s' abc 000...000 | sha256sum
    '92b45f826b9236bd0a3f430f47f7e7b7a6a54682c640da17db7d30c3a2bf530b'
    >>> commitment_of("abc", value_function=ValueFunction("hindsight/1", "0" * 64)) != commitment_of("abc")
    True
    """
    return hashlib.sha256(commitment_text(secret, deals_sha256, value_function).encode("utf-8")).hexdigest()


def _iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="milliseconds")


def _json_default(value: object) -> object:
    # Results carry engine values: exact amounts become their canonical text, enums their value.
    if isinstance(value, Fraction):
        return format_amount(value)
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    raise TypeError(f"cannot store {value!r} ({type(value).__name__}) as JSON")


def _dumps(value: object) -> str:
    return json.dumps(value, default=_json_default, ensure_ascii=False, separators=(",", ":"))


class Store:
    """The results file of one tournament. Open it with `Store.open`; close it, or use `with`.

    Methods may be called from any one thread at a time (a lock serialises them), so a trio runner
    can call them directly or through `trio.to_thread.run_sync`.
    """

    def __init__(self, connection: sqlite3.Connection, path: str, *, clock: Callable[[], float],
                 read_only: bool = False) -> None:
        self._connection = connection
        self._lock = threading.RLock()
        self._clock = clock
        self.path = path
        """The file's path as given to `open`."""
        self.read_only = read_only
        """True when opened `read_only`: every write is refused."""

    # --- opening and closing -------------------------------------------------------------------

    @classmethod
    def open(cls, path: str | os.PathLike[str], *, clock: Callable[[], float] = time.time,
             read_only: bool = False) -> Store:
        """Open a results file, creating it (and its folder) when there is none, and bring its schema up to date.

        Args:
            read_only: read an existing file without writing to it (its folder may be read-only;
                in a writable one SQLite may leave the empty companions of its write-ahead log);
                every write is then refused.

        Raises:
            StorageError: the file is not a seka-arena results file (empty, not SQLite, another
                schema), cannot be written, or was written by a newer version; with `read_only`,
                there is no file, or it needs an upgrade.
            DiskFullError: no space left to create the file.
        """
        where = os.fspath(path)
        if read_only:
            connection = _connect_read_only(where)
            try:
                _verify_store(connection, where, upgrade=None)
            except BaseException:
                connection.close()
                raise
            return cls(connection, where, clock=clock, read_only=True)
        if where != ":memory:" and not os.path.exists(where):
            create_store_file(Path(where), RESULTS_FILE, lambda: _iso(clock()))
        refuse_empty(where, RESULTS_FILE)
        if where != ":memory:":
            _private(where)
        try:
            connection = sqlite3.connect(where, isolation_level=None, check_same_thread=False, timeout=30.0)
        except sqlite3.Error as error:
            raise StorageError(f"cannot open results file {where}: {error}") from error
        try:
            connection.execute("PRAGMA busy_timeout = 30000")
            if where == ":memory:":
                apply_migrations(connection, MIGRATIONS, now=lambda: _iso(clock()))
            _verify_store(connection, where, upgrade=clock)
            mode = connection.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if where != ":memory:" and str(mode).lower() != "wal":
                raise StorageError(f"results file {where} cannot use write-ahead logging (journal mode {mode})")
            connection.execute("PRAGMA synchronous = FULL")
        except sqlite3.Error as error:
            connection.close()
            if is_disk_full(error):
                raise DiskFullError(Path(where).parent, f"opening {Path(where).name}") from error
            raise StorageError(f"cannot use results file {where}: {error}") from error
        except BaseException:
            connection.close()
            raise
        return cls(connection, where, clock=clock)

    def close(self) -> None:
        """Close the file. Everything committed is already on disk."""
        with self._lock:
            self._connection.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()

    @contextmanager
    def _write(self, doing: str) -> Iterator[sqlite3.Connection]:
        with self._lock:
            if self.read_only:
                raise StorageError(f"{self.path} is open read-only (refused: {doing})")
            with write_transaction(self._connection, lambda error: self._failure(error, doing)) as connection:
                yield connection

    def _failure(self, error: sqlite3.Error, doing: str) -> StorageError:
        where = Path(self.path)
        if is_disk_full(error):
            return DiskFullError(where.parent, f"{doing} in {where.name}")
        return StorageError(f"cannot write results file {self.path} ({doing}): {error}")

    def _read(self, sql: str, parameters: Sequence[object] = ()) -> list[sqlite3.Row]:
        with self._lock:
            cursor = self._connection.cursor()
            cursor.row_factory = sqlite3.Row
            try:
                return list(cursor.execute(sql, parameters))
            except sqlite3.Error as error:
                raise StorageError(f"cannot read results file {self.path}: {error}") from error

    def applied_migrations(self) -> list[str]:
        """Names of the migrations recorded in the file, in order."""
        return [row["name"] for row in self._read("SELECT name FROM migrations ORDER BY name")]

    # --- the tournament ------------------------------------------------------------------------

    def init_tournament(self, *, name: str, definition: str, secret: str, commitment: str,
                        may_change: Collection[str] = (), deals_sha256: str | None = None,
                        value_function: ValueFunction | None = None) -> TournamentRecord:
        """Record the tournament before its first session, or check a resumed one against the record.

        On a fresh file this stores everything given, and draws the tournament's `session_key`. On a
        file that already holds the tournament nothing is written (but a session key, if the file
        predates them): the stored record is returned, and its `secret` is the one to use (a resumed
        run that drew a new random seed must switch to the stored one).

        Args:
            definition: the YAML text; a resume matches when it means the same (comments and
                layout may differ).
            commitment: `commitment_of(secret, deals_sha256, value_function)`.
            may_change: top-level keys of the definition a resumed run may change (they change no result).
            deals_sha256: the SHA-256 of the tournament's deal book, if it deals from one.
            value_function: the value function of the adjusted results, stored and bound by the commitment
                (a resumed record keeps its own, or none if it predates them: the caller compares).

        Raises:
            DefinitionMismatchError: the file holds another tournament, or this one defined differently.
            StorageError: `commitment` is not the commitment of `secret` (and the deal book).
        """
        if commitment_of(secret, deals_sha256, value_function) != commitment:
            raise StorageError("the commitment is not the SHA-256 of the secret (and the deal book and value function)")
        with self._write("storing the tournament") as connection:
            row = connection.execute("SELECT name, definition FROM tournament WHERE id = 1").fetchone()
            if row is None:
                connection.execute(
                    "INSERT INTO tournament (id, name, definition, commitment, secret, created_at, session_key, "
                    "value_function, value_function_sha256) VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (name, definition, commitment, secret, _iso(self._clock()), secrets.token_hex(32),
                     None if value_function is None else value_function.name,
                     None if value_function is None else value_function.sha256),
                )
            else:
                stored_name, stored_definition = row
                if stored_name != name:
                    raise DefinitionMismatchError(
                        f"{self.path} holds tournament {stored_name!r}, not {name!r}: use another results file"
                    )
                changed = [key for key in _definition_changes(stored_definition, definition) if key not in may_change]
                if changed:
                    raise DefinitionMismatchError(
                        f"{self.path} holds tournament {name!r} with another definition "
                        f"(changed: {', '.join(changed)}); restore the original file to resume, "
                        "or use another results file to start afresh"
                    )
                connection.execute("UPDATE tournament SET session_key = ? WHERE id = 1 AND session_key IS NULL",
                                   (secrets.token_hex(32),))
        record = self.tournament()
        assert record is not None
        return record

    def tournament(self) -> TournamentRecord | None:
        """The tournament row, or None before `init_tournament`."""
        rows = self._read("SELECT * FROM tournament WHERE id = 1")
        if not rows:
            return None
        row = rows[0]
        return TournamentRecord(
            name=row["name"],
            definition=row["definition"],
            commitment=row["commitment"],
            secret=row["secret"],
            secret_revealed=bool(row["secret_revealed"]),
            created_at=row["created_at"],
            finished_at=row["finished_at"],
            session_key=row["session_key"],
            # None too in a file from before, opened read-only without the column (`Migration.read_without`).
            value_function=(None if row.keys().count("value_function") == 0 or row["value_function"] is None
                            else ValueFunction(row["value_function"], row["value_function_sha256"])),
        )

    def reveal_secret(self, *, force: bool = False) -> str:
        """Mark the tournament finished and its secret revealed; return the secret.

        Args:
            force: reveal even though sessions are unfinished (the tournament is abandoned).

        Raises:
            StorageError: no tournament yet, or unfinished sessions without `force`.
        """
        with self._write("revealing the secret") as connection:
            row = connection.execute("SELECT secret, finished_at FROM tournament WHERE id = 1").fetchone()
            if row is None:
                raise StorageError(f"{self.path} holds no tournament yet")
            left = connection.execute("SELECT count(*) FROM sessions WHERE status != 'finished'").fetchone()[0]
            if left and not force:
                raise StorageError(f"{left} sessions are not finished; the secret stays sealed until they are")
            connection.execute(
                "UPDATE tournament SET secret_revealed = 1, finished_at = coalesce(finished_at, ?) WHERE id = 1",
                (_iso(self._clock()),),
            )
            return str(row[0])

    # --- sessions ------------------------------------------------------------------------------

    def record_plan(self, sessions: Iterable[PlannedLike], *, total: int | None = None) -> None:
        """Store planned sessions, `planned`, in one transaction; those already stored must be unchanged.

        A plan may be stored a part at a time: the runner stores its last session first, then each
        chunk just before playing it, so that a plan of a million sessions starts at once and yet
        the file never holds a plan that looks finished before it is.

        Args:
            sessions: the whole plan, or a part of it, in plan order (read once).
            total: the number of sessions in the whole plan, when `sessions` is a part of it.

        Raises:
            DefinitionMismatchError: the file already holds a different plan.
        """
        with self._write("storing the plan") as connection:
            stored_size = connection.execute("SELECT max(idx) FROM sessions").fetchone()[0]
            if stored_size is not None and total is not None and stored_size != total:
                raise DefinitionMismatchError(self._another_plan(f"the count ({stored_size} stored, {total} now)"))
            count = 0
            for session in sessions:
                row = (session.id, session.index, _dumps(list(session.table)), session.block, session.mirror,
                       session.seed)
                stored = connection.execute("SELECT id, idx, seating, block, mirror, seed FROM sessions WHERE idx = ?",
                                            (session.index,)).fetchone()
                if stored is None:
                    connection.execute(
                        "INSERT INTO sessions (id, idx, seating, block, mirror, seed) VALUES (?, ?, ?, ?, ?, ?)", row)
                elif tuple(stored) != row:
                    raise DefinitionMismatchError(self._another_plan(session.id))
                count += 1
            if stored_size is not None and total is None and stored_size != count:
                raise DefinitionMismatchError(self._another_plan(f"the count ({stored_size} stored, {count} now)"))

    def _another_plan(self, difference: str) -> str:
        return f"{self.path} holds another plan (first difference: {difference})"

    def mark_running(self, session_id: str) -> None:
        """Mark a session as started (again, after an interruption): status, start time, attempts.

        Raises:
            StorageError: unknown or already finished session.
        """
        with self._write(f"marking session {session_id} running") as connection:
            self._check_open(connection, session_id)
            connection.execute(
                "UPDATE sessions SET status = 'running', started_at = ?, attempts = attempts + 1 WHERE id = ?",
                (_iso(self._clock()), session_id),
            )

    def record_result(
        self,
        session_id: str,
        balances: Mapping[str, Amount],
        winners: Sequence[str],
        faults: Any = None,
        telemetry: Any = None,
        history_path: str | os.PathLike[str] | None = None,
        fault_reasons: Mapping[str, Sequence[FaultReason]] | None = None,
    ) -> None:
        """Store a finished session's result and mark it finished, in one transaction.

        Args:
            balances: net chips per bot name, exact (int or Fraction); every seated bot, summing to zero.
            winners: the bots with the highest balance.
            faults: JSON-able; by convention {bot: {fault type: count}} (enum keys are stored by value).
            telemetry: JSON-able, free-form (timings, restarts, ...).
            history_path: where the session's hand history was written.
            fault_reasons: every fault's reason, by bot (`FaultReason.sessions` is not read).

        Raises:
            StorageError: unknown or already finished session, or balances/winners that do not fit it,
                or reasons for a bot it does not seat.
        """
        with self._write(f"recording the result of session {session_id}") as connection:
            seating = self._check_open(connection, session_id)
            if set(balances) != set(seating):
                raise StorageError(f"session {session_id} seats {seating}, but balances are for {sorted(balances)}")
            if sum(balances.values()) != 0:
                raise StorageError(f"session {session_id}: balances must sum to zero, "
                                   f"not {format_amount(sum(balances.values()))}")
            if not set(winners) <= set(seating) or not winners:
                raise StorageError(f"session {session_id}: winners {list(winners)} are not among {seating}")
            stored_balances = {bot: format_amount(balances[bot]) for bot in seating}
            connection.execute(
                """UPDATE sessions SET status = 'finished', balances = ?, winners = ?, faults = ?, telemetry = ?,
                   history_path = ?, finished_at = ? WHERE id = ?""",
                (
                    _dumps(stored_balances),
                    _dumps(list(winners)),
                    _dumps(_string_keys(faults)),
                    _dumps(telemetry),
                    os.fspath(history_path) if history_path is not None else None,
                    _iso(self._clock()),
                    session_id,
                ),
            )
            for bot, reasons in (fault_reasons or {}).items():
                if bot not in seating:
                    raise StorageError(f"session {session_id}: fault reasons for {bot!r}, not among {seating}")
                connection.executemany(
                    "INSERT INTO fault_reasons (session, bot, kind, reason, count) VALUES (?, ?, ?, ?, ?)",
                    [(session_id, bot, reason.kind, reason.reason, reason.count) for reason in reasons])

    def _check_open(self, connection: sqlite3.Connection, session_id: str) -> list[str]:
        row = connection.execute("SELECT status, seating FROM sessions WHERE id = ?", (session_id,)).fetchone()
        if row is None:
            raise StorageError(f"no session {session_id!r} in {self.path}")
        if row[0] == SessionStatus.FINISHED.value:
            raise StorageError(f"session {session_id} is already finished")
        try:
            return [str(name) for name in json.loads(row[1])]
        except (ValueError, TypeError) as error:
            raise damaged_row(self.path, session_id, "seating", error) from None

    def fault_reasons(self, session_id: str | None = None) -> dict[str, list[FaultReason]]:
        """Every fault's reason in finished sessions (or in `session_id` alone), by bot: the same
        kind and reason over several sessions summed, with those sessions; most frequent first."""
        where = "s.status = 'finished'" + (" AND f.session = ?" if session_id is not None else "")
        rows = self._read(
            f"""SELECT f.bot, f.kind, f.reason, sum(f.count) AS total, group_concat(f.session, ' ') AS sessions
                FROM fault_reasons f JOIN sessions s ON s.id = f.session WHERE {where}
                GROUP BY f.bot, f.kind, f.reason ORDER BY f.bot, total DESC, f.kind, f.reason""",
            () if session_id is None else (session_id,))
        found: dict[str, list[FaultReason]] = {}
        for row in rows:
            found.setdefault(row["bot"], []).append(
                FaultReason(row["kind"], row["reason"], row["total"], tuple(sorted(row["sessions"].split()))))
        return found

    def sessions(self) -> list[SessionRecord]:
        """Every session, in plan order."""
        return [_session(row, self.path) for row in self._read("SELECT * FROM sessions ORDER BY idx")]

    def session(self, session_id: str) -> SessionRecord:
        """One session; `StorageError` if there is no such session."""
        rows = self._read("SELECT * FROM sessions WHERE id = ?", (session_id,))
        if not rows:
            raise StorageError(f"no session {session_id!r} in {self.path}")
        return _session(rows[0], self.path)

    def unfinished(self, *, first: int = 1, last: int | None = None) -> list[SessionRecord]:
        """Sessions still to play, in plan order: planned ones, and running ones a killed run left behind.

        Args:
            first: the plan position (1-based) to start from.
            last: the last plan position to include (default: to the end).
        """
        rows = self._read("SELECT * FROM sessions WHERE status != 'finished' AND idx >= ? AND (? IS NULL OR idx <= ?) "
                          "ORDER BY idx", (first, last, last))
        return [_session(row, self.path) for row in rows]

    def tally(self) -> tuple[int, int]:
        """Finished sessions, and the faults recorded in them (`{bot: {fault type: count}}`), read row by row."""
        finished = faults = 0
        with self._lock:
            try:
                for session, text in self._connection.execute(
                        "SELECT id, faults FROM sessions WHERE status = 'finished'"):
                    finished += 1
                    try:
                        recorded = (_fault_counts(json.loads(text)) if text is not None else None) or {}
                    except (ValueError, TypeError, AttributeError) as error:
                        raise damaged_row(self.path, session, "faults", error) from None
                    faults += sum(sum(kinds.values()) for kinds in recorded.values())
            except sqlite3.Error as error:
                raise StorageError(f"cannot read results file {self.path}: {error}") from error
        return finished, faults

    def finished_results(self) -> list[SessionRecord]:
        """Finished sessions with their results, in plan order."""
        rows = self._read("SELECT * FROM sessions WHERE status = 'finished' ORDER BY idx")
        return [_session(row, self.path) for row in rows]


def _string_keys(value: Any) -> Any:
    # JSON object keys must be strings; Fault enums as keys become their values.
    if isinstance(value, Mapping):
        return {(key.value if isinstance(key, enum.Enum) else key): _string_keys(item) for key, item in value.items()}
    return value


def _session(row: sqlite3.Row, path: str) -> SessionRecord:
    def stored(column: str, parse: Callable[[Any], Any] = lambda value: value) -> Any:
        # A value that is not what the arena wrote (a damaged file, a hand edit) names its row and column.
        text = row[column]
        if text is None:
            return None
        try:
            return parse(json.loads(text))
        except (ValueError, TypeError, AttributeError) as error:
            raise damaged_row(path, row["id"], column, error) from None

    return SessionRecord(
        id=row["id"],
        index=row["idx"],
        table=stored("seating", lambda names: tuple(str(name) for name in names)),
        block=row["block"],
        mirror=row["mirror"],
        seed=row["seed"],
        status=SessionStatus(row["status"]),
        attempts=row["attempts"],
        balances=stored("balances", lambda amounts: MappingProxyType(
            {str(bot): parse_amount(text) for bot, text in amounts.items()})),
        winners=stored("winners", lambda names: tuple(str(name) for name in names)),
        faults=stored("faults", _fault_counts),
        telemetry=stored("telemetry"),
        history_path=row["history_path"],
        started_at=row["started_at"],
        finished_at=row["finished_at"],
    )


def _fault_counts(value: Any) -> dict[str, dict[str, int]] | None:
    # {bot: {fault type: count}} (or null), checked: the standings and the tally add them up.
    if value is None:
        return None
    counts = {str(bot): {str(kind): count for kind, count in kinds.items()} for bot, kinds in value.items()}
    if not all(isinstance(count, int) for kinds in counts.values() for count in kinds.values()):
        raise ValueError("fault counts must be whole numbers")
    return counts


def damaged_row(path: str, session: str, column: str, error: Exception) -> StorageError:
    """The error for a stored value that is not what the arena wrote: one line naming its row and column."""
    return StorageError(f"{path}: session {session}: the stored {column} is damaged ({error}); nothing was changed: "
                        "restore the results file from a backup")


def _definition_changes(stored: str, new: str) -> list[str]:
    """Top-level keys whose meaning differs between two YAML definitions (empty when they agree)."""
    try:
        old_data, new_data = yaml.safe_load(stored), yaml.safe_load(new)
    except yaml.YAMLError:
        return [] if stored == new else ["(the text)"]
    if old_data == new_data:
        return []
    if not isinstance(old_data, dict) or not isinstance(new_data, dict):
        return ["(the whole file)"]
    keys = sorted(set(old_data) | set(new_data), key=str)
    return [str(key) for key in keys if old_data.get(key) != new_data.get(key)]


# --- creating, checking and reading results files ------------------------------------------------

RESULTS_FILE = StoreKind("results file", MIGRATIONS, starts="a new tournament", elsewhere="use another results folder")
"""A tournament's results file, as `create_store_file` and `verify_schema` name it."""


def _private(where: str) -> None:
    # The file holds the tournament's secret until it is revealed; one an older version made 0644 is made 0600.
    try:
        make_private(where)
    except OSError as error:
        raise StorageError(f"cannot make results file {where} private (0600): {error.strerror}") from error


def _connect_read_only(where: str) -> sqlite3.Connection:
    if not os.path.isfile(where):
        raise StorageError(f"no results file at {where}")
    refuse_empty(where, RESULTS_FILE)
    uri = "file:" + urllib.parse.quote(os.path.abspath(where)) + "?mode=ro"
    connection = sqlite3.connect(uri, uri=True, check_same_thread=False, timeout=30.0)
    try:
        connection.execute("SELECT count(*) FROM sqlite_master").fetchone()
        return connection
    except sqlite3.Error as error:
        connection.close()
        if getattr(error, "sqlite_errorcode", 0) & 0xFF != sqlite3.SQLITE_CANTOPEN:
            raise StorageError(f"{where} is not a seka-arena results file (not an SQLite database: {error})") from error
        wal = where + "-wal"
        if os.path.exists(wal) and os.path.getsize(wal) > 0:
            raise StorageError(f"cannot read results file {where}: its folder is read-only and its write-ahead "
                               f"log {wal} holds changes not yet in the file; open it once where it can be written"
                               ) from error
    # A read-only folder: SQLite cannot create the index of the write-ahead log there. With no log
    # left beside it the file holds everything, and nothing can change it, so it can be read as is.
    return sqlite3.connect(uri + "&immutable=1", uri=True, check_same_thread=False)


def _verify_store(connection: sqlite3.Connection, where: str, *, upgrade: Callable[[], float] | None) -> None:
    """Refuse a file that is not a results file of this schema; apply missing migrations when `upgrade` (a clock)."""
    clock = upgrade
    verify_schema(connection, where, RESULTS_FILE, upgrade=None if clock is None else lambda: _iso(clock()))
