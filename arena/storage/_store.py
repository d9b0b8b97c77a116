"""One tournament's results in one SQLite file: definition, commitment, plan and session results.

Theory of operation: the file is opened in WAL mode with `synchronous=FULL`, and every change is a
single `BEGIN IMMEDIATE ... COMMIT` transaction, so a process killed at any instant (SIGKILL
included) leaves the file at the last commit. A session moves planned -> running -> finished;
`record_result` writes the whole result and the `finished` status in one transaction, and a CHECK
constraint refuses a finished row without a result. At start-up a session still marked running was
interrupted: `unfinished()` returns it with the planned ones and the runner plays it again from the
start (its deals come from its seed, so the replay deals the same cards).

Amounts are stored as exact-fraction strings (`"15/2"`), never as floats. Timestamps are ISO 8601
UTC text read from the clock given to `Store.open`.
"""

from __future__ import annotations

import enum
import hashlib
import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from fractions import Fraction
from pathlib import Path
from types import MappingProxyType, TracebackType
from typing import Any, Protocol

import yaml

from ..engine import Amount, format_amount, parse_amount
from ._errors import DefinitionMismatchError, StorageError
from ._migrations import MIGRATIONS, apply_migrations


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


def _iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, timezone.utc).isoformat(timespec="milliseconds")


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

    def __init__(self, connection: sqlite3.Connection, path: str, *, clock: Callable[[], float]) -> None:
        self._connection = connection
        self._lock = threading.RLock()
        self._clock = clock
        self.path = path
        """The file's path as given to `open`."""

    # --- opening and closing -------------------------------------------------------------------

    @classmethod
    def open(cls, path: str | os.PathLike[str], *, clock: Callable[[], float] = time.time) -> Store:
        """Open (creating it and its folder if needed) a results file and bring its schema up to date.

        Raises:
            StorageError: the file is not a SQLite database, cannot be written, or was written by a
                newer version.
        """
        where = os.fspath(path)
        try:
            if where != ":memory:":
                Path(where).parent.mkdir(parents=True, exist_ok=True)
            connection = sqlite3.connect(where, isolation_level=None, check_same_thread=False, timeout=30.0)
        except (OSError, sqlite3.Error) as error:
            raise StorageError(f"cannot open results file {where}: {error}") from error
        try:
            connection.execute("PRAGMA busy_timeout = 30000")
            mode = connection.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if where != ":memory:" and str(mode).lower() != "wal":
                raise StorageError(f"results file {where} cannot use write-ahead logging (journal mode {mode})")
            connection.execute("PRAGMA synchronous = FULL")
            apply_migrations(connection, MIGRATIONS, now=lambda: _iso(clock()))
        except sqlite3.Error as error:
            connection.close()
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

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None) -> None:
        self.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            connection = self._connection
            try:
                connection.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as error:
                raise StorageError(f"cannot write results file {self.path}: {error}") from error
            try:
                yield connection
            except BaseException as error:
                connection.execute("ROLLBACK")
                if isinstance(error, sqlite3.Error):
                    raise StorageError(f"cannot write results file {self.path}: {error}") from error
                raise
            connection.execute("COMMIT")

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

    def init_tournament(self, *, name: str, definition: str, secret: str, commitment: str) -> TournamentRecord:
        """Record the tournament before its first session, or check a resumed one against the record.

        On a fresh file this stores everything given. On a file that already holds the tournament
        nothing is written: the stored record is returned, and its `secret` is the one to use
        (a resumed run that drew a new random seed must switch to the stored one).

        Args:
            definition: the YAML text; a resume matches when it means the same (comments and
                layout may differ).
            commitment: SHA-256 hex of `secret` (`arena.tournament.commitment`).

        Raises:
            DefinitionMismatchError: the file holds another tournament, or this one defined differently.
            StorageError: `commitment` is not the SHA-256 of `secret`.
        """
        if hashlib.sha256(secret.encode("utf-8")).hexdigest() != commitment:
            raise StorageError("the commitment is not the SHA-256 of the secret")
        with self._write() as connection:
            row = connection.execute("SELECT name, definition FROM tournament WHERE id = 1").fetchone()
            if row is None:
                connection.execute(
                    "INSERT INTO tournament (id, name, definition, commitment, secret, created_at) VALUES (1, ?, ?, ?, ?, ?)",
                    (name, definition, commitment, secret, _iso(self._clock())),
                )
            else:
                stored_name, stored_definition = row
                if stored_name != name:
                    raise DefinitionMismatchError(
                        f"{self.path} holds tournament {stored_name!r}, not {name!r}: use another results file"
                    )
                changed = _definition_changes(stored_definition, definition)
                if changed:
                    raise DefinitionMismatchError(
                        f"{self.path} holds tournament {name!r} with another definition "
                        f"(changed: {', '.join(changed)}); restore the original file to resume, "
                        "or use another results file to start afresh"
                    )
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
        )

    def reveal_secret(self, *, force: bool = False) -> str:
        """Mark the tournament finished and its secret revealed; return the secret.

        Args:
            force: reveal even though sessions are unfinished (the tournament is abandoned).

        Raises:
            StorageError: no tournament yet, or unfinished sessions without `force`.
        """
        with self._write() as connection:
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

    def record_plan(self, sessions: Iterable[PlannedLike]) -> None:
        """Store the plan, all sessions `planned`, in one transaction; on resume, check it is unchanged.

        Raises:
            DefinitionMismatchError: the file already holds a different plan.
        """
        planned = sorted(sessions, key=lambda session: session.index)
        rows = [(s.id, s.index, _dumps(list(s.table)), s.block, s.mirror, s.seed) for s in planned]
        with self._write() as connection:
            stored = connection.execute("SELECT id, idx, seating, block, mirror, seed FROM sessions ORDER BY idx").fetchall()
            if not stored:
                connection.executemany(
                    "INSERT INTO sessions (id, idx, seating, block, mirror, seed) VALUES (?, ?, ?, ?, ?, ?)", rows
                )
                return
            if [tuple(row) for row in stored] != rows:
                first = next(
                    (new[0] for new, old in zip(rows, stored, strict=False) if tuple(old) != new),
                    f"the count ({len(stored)} stored, {len(rows)} now)",
                )
                raise DefinitionMismatchError(f"{self.path} holds another plan (first difference: {first})")

    def mark_running(self, session_id: str) -> None:
        """Mark a session as started (again, after an interruption): status, start time, attempts.

        Raises:
            StorageError: unknown or already finished session.
        """
        with self._write() as connection:
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
    ) -> None:
        """Store a finished session's result and mark it finished, in one transaction.

        Args:
            balances: net chips per bot name, exact (int or Fraction); every seated bot, summing to zero.
            winners: the bots with the highest balance.
            faults: JSON-able; by convention {bot: {fault type: count}} (enum keys are stored by value).
            telemetry: JSON-able, free-form (timings, restarts, ...).
            history_path: where the session's hand history was written.

        Raises:
            StorageError: unknown or already finished session, or balances/winners that do not fit it.
        """
        with self._write() as connection:
            seating = self._check_open(connection, session_id)
            if set(balances) != set(seating):
                raise StorageError(f"session {session_id} seats {seating}, but balances are for {sorted(balances)}")
            if sum(balances.values()) != 0:
                raise StorageError(f"session {session_id}: balances must sum to zero, not {format_amount(sum(balances.values()))}")
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

    def _check_open(self, connection: sqlite3.Connection, session_id: str) -> list[str]:
        row = connection.execute("SELECT status, seating FROM sessions WHERE id = ?", (session_id,)).fetchone()
        if row is None:
            raise StorageError(f"no session {session_id!r} in {self.path}")
        if row[0] == SessionStatus.FINISHED.value:
            raise StorageError(f"session {session_id} is already finished")
        seating: list[str] = json.loads(row[1])
        return seating

    def sessions(self) -> list[SessionRecord]:
        """Every session, in plan order."""
        return [_session(row) for row in self._read("SELECT * FROM sessions ORDER BY idx")]

    def session(self, session_id: str) -> SessionRecord:
        """One session; `StorageError` if there is no such session."""
        rows = self._read("SELECT * FROM sessions WHERE id = ?", (session_id,))
        if not rows:
            raise StorageError(f"no session {session_id!r} in {self.path}")
        return _session(rows[0])

    def unfinished(self) -> list[SessionRecord]:
        """Sessions still to play, in plan order: planned ones, and running ones a killed run left behind."""
        return [_session(row) for row in self._read("SELECT * FROM sessions WHERE status != 'finished' ORDER BY idx")]

    def finished_results(self) -> list[SessionRecord]:
        """Finished sessions with their results, in plan order."""
        return [_session(row) for row in self._read("SELECT * FROM sessions WHERE status = 'finished' ORDER BY idx")]


def _string_keys(value: Any) -> Any:
    # JSON object keys must be strings; Fault enums as keys become their values.
    if isinstance(value, Mapping):
        return {(key.value if isinstance(key, enum.Enum) else key): _string_keys(item) for key, item in value.items()}
    return value


def _session(row: sqlite3.Row) -> SessionRecord:
    balances = row["balances"]
    winners = row["winners"]
    return SessionRecord(
        id=row["id"],
        index=row["idx"],
        table=tuple(json.loads(row["seating"])),
        block=row["block"],
        mirror=row["mirror"],
        seed=row["seed"],
        status=SessionStatus(row["status"]),
        attempts=row["attempts"],
        balances=None if balances is None else MappingProxyType(
            {bot: parse_amount(text) for bot, text in json.loads(balances).items()}),
        winners=None if winners is None else tuple(json.loads(winners)),
        faults=None if row["faults"] is None else json.loads(row["faults"]),
        telemetry=None if row["telemetry"] is None else json.loads(row["telemetry"]),
        history_path=row["history_path"],
        started_at=row["started_at"],
        finished_at=row["finished_at"],
    )


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
