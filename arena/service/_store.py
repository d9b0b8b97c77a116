"""The service's own SQLite file: authors and tokens, bots and versions, the ladder's sessions, schedules.

Theory of operation: as the tournament store (`arena.storage.Store`), the file is opened in WAL
mode with `synchronous=FULL` and every change is one `BEGIN IMMEDIATE ... COMMIT` transaction, so
a process killed at any instant leaves it at the last commit, and a restart resumes from there: a
version still `pending` is checked again, a ladder session still `planned` or `running` is played
again from its start (its deals come from its seed) unless its block was set aside after failing
(`ladder_failures`), and a scheduled run still `running` is resumed
by the tournament runner from its own results file. A cron schedule's next firing is claimed in the
same transaction that records the run, so it fires once and only once, also across a restart.

Tokens are stored as their SHA-256: they are 256 random bits, so a plain hash is as good as a slow
one, and a copy of the file gives nobody a working token. A token may carry an expiry and be
revoked (both stored): either refuses it from then on, with a message that says which.
"""

from __future__ import annotations

import enum
import hashlib
import itertools
import json
import logging
import re
import secrets
import sqlite3
import threading
import time
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from fractions import Fraction
from pathlib import Path
from typing import Any, TypeVar

from ..engine import Amount, ArenaError, format_amount, parse_amount
from ..ratings import (
    BlockResults,
    PairResults,
    RatingError,
    SessionOutcome,
    block_half,
    block_results,
    control_coefficient,
    controlled,
)
from ..storage import (
    DiskFullError,
    FaultReason,
    Migration,
    StorageError,
    StoreKind,
    create_store_file,
    is_disk_full,
    make_private,
    refuse_empty,
    verify_schema,
    write_transaction,
)

LOGGER = logging.getLogger(__name__)
_T = TypeVar("_T")
_TOKEN_BYTES = 32

MIGRATIONS: tuple[Migration, ...] = (
    Migration("0001_service", (
        """CREATE TABLE authors (
            name TEXT PRIMARY KEY,
            created_at TEXT NOT NULL
        )""",
        """CREATE TABLE tokens (
            hash TEXT PRIMARY KEY,                  -- SHA-256 hex of the token
            author TEXT NOT NULL REFERENCES authors (name),
            organiser INTEGER NOT NULL CHECK (organiser IN (0, 1)),
            created_at TEXT NOT NULL
        )""",
        """CREATE TABLE bots (
            name TEXT PRIMARY KEY,
            author TEXT NOT NULL REFERENCES authors (name),
            disqualified TEXT,                      -- why, when an organiser disqualified it
            created_at TEXT NOT NULL
        )""",
        """CREATE TABLE versions (
            id INTEGER PRIMARY KEY,
            bot TEXT NOT NULL REFERENCES bots (name),
            number INTEGER NOT NULL,                -- 1, 2, ... per bot
            sha256 TEXT NOT NULL,                   -- of the archive, which names its folder in the store
            kind TEXT NOT NULL,                     -- tar.gz or zip
            size INTEGER NOT NULL,
            command TEXT NOT NULL,
            language TEXT,
            description TEXT,
            status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'accepted', 'refused')),
            report TEXT,                            -- check-bot's lines
            stderr TEXT,                            -- the end of the bot's stderr during the check
            created_at TEXT NOT NULL,
            checked_at TEXT,
            UNIQUE (bot, number)
        )""",
        """CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)""",
        """CREATE TABLE ladder_sessions (
            id TEXT PRIMARY KEY,                    -- L000001-1: block, then mirror
            block INTEGER NOT NULL,
            mirror INTEGER NOT NULL,
            reason TEXT NOT NULL,                   -- placement, adaptive or random
            seating TEXT NOT NULL,                  -- JSON list of version ids, seat 0 first
            seed TEXT NOT NULL,
            status TEXT NOT NULL DEFAULT 'planned' CHECK (status IN ('planned', 'running', 'finished')),
            attempts INTEGER NOT NULL DEFAULT 0,
            balances TEXT,                          -- JSON list of exact amounts, by seat
            faults TEXT,                            -- JSON list of fault counts, by seat
            history_path TEXT,
            created_at TEXT NOT NULL,
            finished_at TEXT,
            CHECK ((status = 'finished') = (balances IS NOT NULL))
        )""",
        "CREATE INDEX ladder_by_status ON ladder_sessions (status, block, mirror)",
        """CREATE TABLE schedules (
            name TEXT PRIMARY KEY,
            cron TEXT NOT NULL,
            settings TEXT NOT NULL,                 -- JSON: top, table_size, sessions_per_table, freeze_minutes
            last_due TEXT NOT NULL,                 -- the last firing claimed (or when the schedule was made)
            created_at TEXT NOT NULL
        )""",
        """CREATE TABLE scheduled_runs (
            id INTEGER PRIMARY KEY,
            schedule TEXT NOT NULL REFERENCES schedules (name),
            due_at TEXT NOT NULL,
            name TEXT NOT NULL UNIQUE,              -- the tournament's name: schedule-YYYYMMDDTHHMM
            definition TEXT,                        -- the tournament YAML, written when it starts
            status TEXT NOT NULL DEFAULT 'due' CHECK (status IN ('due', 'running', 'finished', 'failed')),
            message TEXT,
            started_at TEXT,
            finished_at TEXT,
            UNIQUE (schedule, due_at)
        )""",
    )),
    Migration("0002_ladder_failures", (
        """CREATE TABLE ladder_failures (
            block INTEGER PRIMARY KEY,              -- a ladder block whose play raised (never a bot's fault)
            failures INTEGER NOT NULL CHECK (failures > 0),  -- failed tries since it was last put in play
            error TEXT NOT NULL,                    -- the last one's type and message (the traceback is logged)
            failed_at TEXT NOT NULL,
            set_aside_at TEXT                       -- when it reached ladder.max_failures; NULL while retried
        )""",
    )),
    Migration("0003_token_expiry", (
        "ALTER TABLE tokens ADD COLUMN expires_at TEXT",  # NULL: until revoked
        "ALTER TABLE tokens ADD COLUMN revoked_at TEXT",  # set by `seka-arena token --revoke`
    )),
    # Aggregates kept as results land, so that no page and no choice of table reads every session; the
    # store fills them from the sessions when `ladder_totals` has no row (`_rebuild_ladder_aggregates`).
    Migration("0004_ladder_aggregates", (
        "CREATE INDEX ladder_by_block ON ladder_sessions (block, mirror)",
        """CREATE TABLE ladder_seats (            -- who sat in which session: a version's sessions by index
            version INTEGER NOT NULL,
            block INTEGER NOT NULL,
            mirror INTEGER NOT NULL,
            PRIMARY KEY (version, block, mirror)
        ) WITHOUT ROWID""",
        """CREATE TABLE ladder_players (
            version INTEGER PRIMARY KEY,
            blocks INTEGER NOT NULL DEFAULT 0,      -- blocks planned with it (set aside or not)
            sessions INTEGER NOT NULL DEFAULT 0     -- its finished sessions
        )""",
        """CREATE TABLE ladder_pairs (            -- finishing orders of two versions, by table size
            low INTEGER NOT NULL,                   -- the smaller version id
            high INTEGER NOT NULL,
            seats INTEGER NOT NULL,
            low_wins INTEGER NOT NULL,              -- sessions where low's balance was the higher
            draws INTEGER NOT NULL,
            high_wins INTEGER NOT NULL,
            PRIMARY KEY (low, high, seats)
        ) WITHOUT ROWID""",
        """CREATE TABLE ladder_totals (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            finished INTEGER NOT NULL               -- finished sessions: the leaderboard's generation
        )""",
    )),
    Migration("0005_version_contents", (
        "ALTER TABLE versions ADD COLUMN tree_sha256 TEXT",  # of its unpacked files (`tree_digest`); NULL before
        "ALTER TABLE versions ADD COLUMN unpacked_bytes INTEGER",  # their total size; NULL before
        "CREATE INDEX versions_by_time ON versions (created_at)",
    )),
    Migration("0006_schedule_deletion", (
        "ALTER TABLE schedules ADD COLUMN deleted_at TEXT",  # an organiser deleted it; its past runs stay
    )),
    Migration("0007_ladder_fault_reasons", (
        # JSON, by seat: [kind, reason, count] of each distinct fault; NULL for sessions played before
        "ALTER TABLE ladder_sessions ADD COLUMN fault_reasons TEXT",
    )),
    Migration("0008_ladder_finish_times", (
        # The ladder's progress (sessions in the last hour, the last one's time) read by index, not by scan
        "CREATE INDEX ladder_by_finish ON ladder_sessions (finished_at)",
    )),
    Migration("0009_ladder_adjusted", (
        # JSON amounts by seat: the adjusted result the ladder chooses tables from (docs/ratings.md); NULL
        # for sessions played before, whose raw balances stand in. The raw balances stay in `balances`.
        "ALTER TABLE ladder_sessions ADD COLUMN adjusted TEXT",
    )),
    # The leaderboard's fit reads the finished blocks as kinds (each distinct block's pairwise results once,
    # with how many blocks had them: `arena.ratings.BlockTally`), tallied as each block's last result lands,
    # so that a refit reads rows that grow with the kinds, not with the sessions. The store tallies every
    # finished block when `kinds_tallied` is 0 (a store from before this migration: `_rebuild_block_kinds`).
    Migration("0010_ladder_block_kinds", (
        """CREATE TABLE ladder_block_kinds (
            results TEXT PRIMARY KEY,               -- JSON [[a, b, score of a, weight], ...]: `block_results`
            blocks INTEGER NOT NULL CHECK (blocks > 0)
        ) WITHOUT ROWID""",
        "ALTER TABLE ladder_totals ADD COLUMN kinds_tallied INTEGER NOT NULL DEFAULT 0",
    )),
    # Unrated challenges, in tables of their own: the ratings and the ladder's choice read `ladder_*` only.
    Migration("0011_challenges", (
        """CREATE TABLE challenges (
            id INTEGER PRIMARY KEY,
            author TEXT NOT NULL REFERENCES authors (name),
            players TEXT NOT NULL,                  -- JSON list: the challenger first; a version id or sample:NAME
            blocks INTEGER NOT NULL CHECK (blocks > 0),
            secret TEXT NOT NULL,                   -- the deals' secret (its seeds are organisers' only)
            created_at TEXT NOT NULL
        )""",
        "CREATE INDEX challenges_by_author ON challenges (author, created_at)",
        """CREATE TABLE challenge_sessions (
            id TEXT PRIMARY KEY,                    -- C000001-2-1: challenge, block, mirror
            challenge INTEGER NOT NULL REFERENCES challenges (id),
            block INTEGER NOT NULL,
            mirror INTEGER NOT NULL,
            seating TEXT NOT NULL,                  -- JSON list of players (as in challenges.players), seat 0 first
            seed TEXT NOT NULL,
            status TEXT NOT NULL DEFAULT 'planned' CHECK (status IN ('planned', 'running', 'finished')),
            attempts INTEGER NOT NULL DEFAULT 0,
            balances TEXT,                          -- JSON list of exact amounts, by seat
            faults TEXT,                            -- JSON list of fault counts, by seat
            history_path TEXT,
            finished_at TEXT,
            CHECK ((status = 'finished') = (balances IS NOT NULL))
        )""",
        "CREATE INDEX challenge_sessions_by_status ON challenge_sessions (status, challenge, block, mirror)",
        "CREATE INDEX challenge_sessions_by_challenge ON challenge_sessions (challenge, block, mirror)",
        "CREATE INDEX challenge_sessions_by_finish ON challenge_sessions (finished_at, id)",
    )),
    # A challenge that fails by its bots' own doing ends, failed, with the reason its challenger reads: after
    # `_challenges.MAX_BOT_FAILURES` such tries of one session (counted in `failures`), at once for a refusal
    # that cannot change. The arena's own failures are not counted (they are retried, as a ladder block's are).
    Migration("0012_challenge_failures", (
        "ALTER TABLE challenge_sessions ADD COLUMN failures INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE challenges ADD COLUMN failed TEXT",
        "ALTER TABLE challenges ADD COLUMN failed_at TEXT",
    )),
    # The deal control variate of the ladder's adjusted results (docs/ratings.md), cross-fitted: a session's
    # coefficients are fitted on the ladder's finished sessions in the other half of the blocks (`block_half`),
    # from running sums by version, table size and half, updated in the transaction that records a result.
    Migration("0013_ladder_control_variate", (
        "ALTER TABLE ladder_sessions ADD COLUMN luck TEXT",  # JSON amounts by seat (SessionTerms.luck); NULL before
        """CREATE TABLE ladder_luck_sums (
            version INTEGER NOT NULL,
            seats INTEGER NOT NULL,
            half INTEGER NOT NULL CHECK (half IN (0, 1)),
            n INTEGER NOT NULL,                     -- sessions; then the sums over them of x (luck) and y (the
            sx REAL NOT NULL,                       -- result less the known terms), x², and xy: the least squares
            sy REAL NOT NULL,                       -- slope of y on x is the coefficient (`control_coefficient`)
            sxx REAL NOT NULL,
            sxy REAL NOT NULL,
            PRIMARY KEY (version, seats, half)
        ) WITHOUT ROWID""",
    )),
    # An organiser puts a failed challenge back in play (`POST /api/challenges/ID/resume`): its failure is kept
    # here, with who resumed it and when, before the challenge's `failed` and its sessions' `failures` are cleared.
    Migration("0014_challenge_resumes", (
        """CREATE TABLE challenge_resumes (
            challenge INTEGER NOT NULL REFERENCES challenges (id),
            failed TEXT NOT NULL,                   -- the failure it was resumed from (challenges.failed)
            failed_at TEXT NOT NULL,
            resumed_by TEXT NOT NULL,               -- the organiser
            resumed_at TEXT NOT NULL
        )""",
        "CREATE INDEX challenge_resumes_by_challenge ON challenge_resumes (challenge, resumed_at)",
    )),
)
"""The service's schema, oldest first (never edit one that shipped: add another)."""

SERVICE_STORE = StoreKind("service store", MIGRATIONS, starts="a new service", elsewhere="use another data folder")


class VersionStatus(enum.Enum):
    """Where a submitted version stands."""

    PENDING = "pending"
    ACCEPTED = "accepted"
    REFUSED = "refused"


class NotYourBotError(ArenaError):
    """An author acting on a bot another author owns (HTTP 403)."""


class TokenRefusedError(ArenaError):
    """A token the service never gave, or one revoked or expired (HTTP 401); the message says which."""


@dataclass(frozen=True)
class Author:
    """Who a token belongs to."""

    name: str
    organiser: bool


@dataclass(frozen=True)
class TokenRecord:
    """A token as the store knows it (never the token itself: only its hash is kept)."""

    id: str
    """The first 12 hex digits of its hash: how `seka-arena token --list` and `--revoke` name it."""
    author: str
    organiser: bool
    created_at: str
    expires_at: str | None
    revoked_at: str | None


@dataclass(frozen=True)
class BotRecord:
    name: str
    author: str
    disqualified: str | None
    created_at: str


@dataclass(frozen=True)
class VersionRecord:
    """One submitted version of a bot."""

    id: int
    bot: str
    number: int
    sha256: str
    kind: str
    size: int
    command: str
    language: str | None
    description: str | None
    status: VersionStatus
    report: str | None
    stderr: str | None
    created_at: str
    checked_at: str | None
    tree_sha256: str | None = None
    """The digest of its unpacked files (`tree_digest`): an identical re-submission has the same; None for a
    version stored before it was kept."""
    unpacked_bytes: int | None = None
    """The total size of its unpacked files (None for a version stored before it was kept)."""

    @property
    def label(self) -> str:
        """The name it plays under: `bot.vN` (service bot names hold no dot, so this is unique)."""
        return f"{self.bot}.v{self.number}"


@dataclass(frozen=True)
class PlayedSession:
    """What a ladder's and a challenge's session both hold: a mirror of a duplicate block, planned, then
    played (tried `attempts` times) until its result is stored."""

    id: str
    block: int
    mirror: int
    seed: str
    status: str
    """`planned`, `running` or `finished`."""
    attempts: int
    balances: tuple[Amount, ...] | None
    """By seat, exact; None until its result."""
    faults: tuple[int, ...] | None
    history_path: str | None
    """Relative to the data folder; None until its result."""
    finished_at: str | None


@dataclass(frozen=True)
class LadderSession(PlayedSession):
    reason: str
    """Why its table was chosen (`_ladder.choose_table`)."""
    seating: tuple[int, ...]
    """Version ids, seat 0 first."""
    created_at: str
    fault_reasons: tuple[tuple[FaultReason, ...], ...] | None = None
    """By seat, each distinct fault with the arena's reason (a crash's quotes the bot's stderr: its
    author's and the organisers' to read); None when not recorded (played before they were)."""
    adjusted: tuple[Amount, ...] | None = None
    """By seat, the adjusted result the ladder chose tables from (docs/ratings.md); None when not
    recorded (played before it was): the raw `balances` stood in."""
    luck: tuple[Amount, ...] | None = None
    """By seat, the deals' luck (`SessionTerms.luck`) the deal control variate weighed; None when not
    recorded (played before it was: its adjusted result has no control variate)."""

    @property
    def ranked(self) -> tuple[Amount, ...] | None:
        """The balances the ladder's choice of tables counts finishing orders by: adjusted when recorded."""
        return self.adjusted if self.adjusted is not None else self.balances


@dataclass(frozen=True)
class Challenge:
    """An author's unrated challenge: its players (the challenger first) in duplicate blocks."""

    id: int
    author: str
    players: tuple[str, ...]
    """Each a version id (as text) or `sample:NAME`, the challenger's version first."""
    blocks: int
    secret: str
    created_at: str
    failed: str | None = None
    """Why it ended unplayed (its bots' own failure, or a refusal that cannot change); None unless it did."""
    failed_at: str | None = None


@dataclass(frozen=True)
class ChallengeResume:
    """A failed challenge an organiser put back in play: the failure it was resumed from, by whom, when."""

    failed: str
    failed_at: str
    resumed_by: str
    resumed_at: str


@dataclass(frozen=True)
class ChallengeSession(PlayedSession):
    """One session of a challenge, planned when the challenge is made."""

    challenge: int
    seating: tuple[str, ...]
    """Players (as `Challenge.players`), seat 0 first."""
    failures: int = 0
    """Its tries that failed by its bots' own doing (the arena's failures are not counted)."""


@dataclass(frozen=True)
class SessionRow:
    """A finished ladder, challenge or scheduled tournament's session, as the results API lists it."""

    kind: str
    """`ladder`, `challenge` or `tournament`."""
    id: str
    challenge: int | None
    seating: tuple[str, ...]
    """Its players, seat 0 first: version ids as text, (a challenge's) `sample:NAME`, or (a tournament's)
    bot names."""
    balances: tuple[Amount, ...]
    faults: tuple[int, ...]
    finished_at: str
    tournament: str | None = None
    """The scheduled run a tournament session belongs to (its id is unique only within it)."""


@dataclass(frozen=True)
class FinishedSession:
    """A ladder session's result, as `record_finished_blocks` stores it."""

    seating: tuple[int, ...]
    balances: tuple[Amount, ...]
    faults: tuple[int, ...]
    history_path: str
    fault_reasons: tuple[tuple[FaultReason, ...], ...] | None = None


@dataclass(frozen=True)
class LadderProgress:
    """How the ladder is going (`ServiceStore.ladder_progress`)."""

    last_hour: int
    """Sessions finished in the hour before the reading: the ladder's pace, in sessions per hour."""
    finished: int
    """Sessions finished in all."""
    last_at: str | None
    """When the last one finished (None before the first)."""


@dataclass(frozen=True)
class LadderSnapshot:
    """The ladder's results at one moment (`ServiceStore.ladder_snapshot`), in rows that grow with the
    kinds of block and the blocks in play, not with the sessions."""

    finished: int
    """Finished sessions: the generation of the results."""
    current: tuple[VersionRecord, ...]
    """Who plays now (`current_versions`)."""
    kinds: tuple[tuple[BlockResults, int], ...]
    """The finished blocks: each kind (`block_results`) once, with how many blocks had it."""
    sessions: tuple[LadderSession, ...]
    """The finished sessions of the blocks not finished yet (in play, or set aside), in play order (but the
    damaged ones)."""
    damaged: tuple[tuple[str, str], ...] = ()
    """The sessions read here whose stored values are damaged, left out: each one's id and the problem."""


@dataclass(frozen=True)
class LadderStanding:
    """What the ladder chooses its next table from, read from the aggregates (never every session)."""

    blocks: Mapping[str, int]
    """Blocks each player (a version id, as text) was seated in."""
    pairs: PairResults
    """Every pair's results, as `arena.ratings.pair_results` counts them from the sessions."""


@dataclass(frozen=True)
class LadderFailure:
    """A ladder block whose play raised: retried, or set aside until an organiser puts it back."""

    block: int
    failures: int
    """Failed tries in a row (a block that finishes has no record)."""
    error: str
    """The last failure's type and message."""
    failed_at: str
    set_aside_at: str | None
    """When the ladder stopped retrying it (after `ladder.max_failures` tries), else None."""

    @property
    def set_aside(self) -> bool:
        return self.set_aside_at is not None


@dataclass(frozen=True)
class ScheduleRecord:
    name: str
    cron: str
    settings: Mapping[str, Any]
    last_due: str
    created_at: str


@dataclass(frozen=True)
class RunRecord:
    id: int
    schedule: str
    due_at: str
    name: str
    definition: str | None
    status: str
    message: str | None
    started_at: str | None
    finished_at: str | None


def iso(seconds: float, *, precise: bool = False) -> str:
    """ISO 8601 UTC text of a clock reading, as the store keeps times (to the microsecond if `precise`)."""
    return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="microseconds" if precise else "seconds")


def from_iso(text: str) -> float:
    """The clock reading of a time the store kept."""
    return datetime.fromisoformat(text).timestamp()


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class ServiceStore:
    """The service's SQLite file; methods may be called from any one thread at a time (a lock)."""

    def __init__(self, connection: sqlite3.Connection, path: Path, clock: Callable[[], float]) -> None:
        self._connection = connection
        self._lock = threading.RLock()
        self.clock = clock
        """Seconds since the epoch (injectable, for the scheduler's tests)."""
        self.path = path

    @classmethod
    def open(cls, path: Path, *, clock: Callable[[], float] = time.time) -> ServiceStore:
        """Open (creating it, 0600, and its folder if needed) and bring the schema up to date.

        A file that is there is used only if it is a service store: one that is empty, not SQLite,
        or another store's is refused and left as it is (taking it for a new store would lose every
        author, token and version, and the new ladder would overwrite the old one's histories).

        Raises:
            StorageError: not a service store (empty, not SQLite, another schema), written by a newer
                version, or cannot use WAL.
            DiskFullError: no space left to create it.
        """
        where = str(path)
        now = lambda: iso(clock())  # noqa: E731
        if not path.exists():
            create_store_file(path, SERVICE_STORE, now)
        refuse_empty(where, SERVICE_STORE)
        try:
            make_private(path)
            connection = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=30.0)
        except (OSError, sqlite3.Error) as error:
            raise StorageError(f"cannot use service store {path}: {error}") from error
        try:
            connection.execute("PRAGMA busy_timeout = 30000")
            verify_schema(connection, where, SERVICE_STORE, upgrade=now)
            mode = connection.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise StorageError(f"service store {path} cannot use write-ahead logging (journal mode {mode})")
            connection.execute("PRAGMA synchronous = FULL")
            connection.execute("PRAGMA foreign_keys = ON")
        except sqlite3.Error as error:
            connection.close()
            if is_disk_full(error):
                raise DiskFullError(path.parent, f"opening {path.name}") from error
            raise StorageError(f"cannot use service store {path}: {error}") from error
        except BaseException:
            connection.close()
            raise
        store = cls(connection, path, clock)
        if not store._read("SELECT 1 FROM ladder_totals"):
            with store._write("building the ladder's aggregates") as writing:
                _rebuild_ladder_aggregates(writing)
        if not store._read("SELECT 1 FROM ladder_totals WHERE kinds_tallied = 1"):
            with store._write("tallying the ladder's finished blocks") as writing:
                _rebuild_block_kinds(writing)
        return store

    @classmethod
    def open_reader(cls, path: Path) -> ServiceStore:
        """Open an existing store read-only, as is (a process that only reads: the leaderboard's fit).

        Raises:
            StorageError: it cannot be opened.
        """
        try:
            connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, isolation_level=None,
                                         check_same_thread=False, timeout=30.0)
            connection.execute("PRAGMA busy_timeout = 30000")
            connection.execute("SELECT finished FROM ladder_totals").fetchone()
        except sqlite3.Error as error:
            raise StorageError(f"cannot read service file {path}: {error}") from error
        return cls(connection, path, time.time)

    def close(self) -> None:
        with self._lock:
            self._connection.close()

    @contextmanager
    def _write(self, doing: str) -> Iterator[sqlite3.Connection]:
        with self._lock, write_transaction(self._connection, lambda error: self._failure(error, doing)) as connection:
            yield connection

    def _failure(self, error: sqlite3.Error, doing: str) -> StorageError:
        if is_disk_full(error):
            return DiskFullError(self.path.parent, doing)
        return StorageError(f"cannot write {self.path} ({doing}): {error}")

    def _read(self, sql: str, parameters: Sequence[object] = ()) -> list[sqlite3.Row]:
        with self._lock:
            cursor = self._connection.cursor()
            cursor.row_factory = sqlite3.Row
            return list(cursor.execute(sql, parameters))

    def now(self) -> str:
        return iso(self.clock())

    # --- tokens --------------------------------------------------------------------------------

    def create_token(self, author: str, *, organiser: bool = False, expires_at: float | None = None) -> str:
        """A new token for `author` (created if new), valid until `expires_at` (a clock reading; None:
        until revoked); only its hash is stored."""
        token = secrets.token_urlsafe(_TOKEN_BYTES)
        with self._write("creating a token") as connection:
            connection.execute("INSERT OR IGNORE INTO authors (name, created_at) VALUES (?, ?)", (author, self.now()))
            connection.execute("INSERT INTO tokens (hash, author, organiser, created_at, expires_at) "
                               "VALUES (?, ?, ?, ?, ?)", (hash_token(token), author, int(organiser), self.now(),
                                                          None if expires_at is None else iso(expires_at)))
        return token

    def authenticate(self, token: str) -> Author:
        """Who holds `token`.

        Raises:
            TokenRefusedError: the service never gave it, or it was revoked, or it has expired.
        """
        rows = self._read("SELECT * FROM tokens WHERE hash = ?", (hash_token(token),))
        if not rows:
            raise TokenRefusedError("this token is not valid (an organiser gives one with `seka-arena token`)")
        record = _token(rows[0])
        if record.revoked_at is not None:
            raise TokenRefusedError(f"this token was revoked on {record.revoked_at}: ask an organiser for a new one")
        if record.expires_at is not None and from_iso(record.expires_at) <= self.clock():
            raise TokenRefusedError(f"this token expired on {record.expires_at}: ask an organiser for a new one")
        return Author(record.author, record.organiser)

    def author(self, token: str) -> Author | None:
        """Who holds `token`, or None for a token that is not valid now (see `authenticate`)."""
        try:
            return self.authenticate(token)
        except TokenRefusedError:
            return None

    def token_record(self, token: str) -> TokenRecord | None:
        rows = self._read("SELECT * FROM tokens WHERE hash = ?", (hash_token(token),))
        return _token(rows[0]) if rows else None

    def tokens(self) -> list[TokenRecord]:
        """Every token given, oldest first."""
        return [_token(row) for row in self._read("SELECT * FROM tokens ORDER BY created_at, author, hash")]

    def revoke_token(self, which: str) -> TokenRecord:
        """Revoke a token, named by its id (`TokenRecord.id`, or any longer start of its hash) or by
        the token itself; revoking it again keeps the first time.

        Raises:
            StorageError: no token, or more than one, is named so.
        """
        key = which.strip().lower()
        named = ([hash_token(which.strip())] if not re.fullmatch(r"[0-9a-f]{12,64}", key) else
                 [row["hash"] for row in self._read("SELECT hash FROM tokens WHERE substr(hash, 1, ?) = ?",
                                                    (len(key), key))])
        named = [value for value in named if self._read("SELECT 1 FROM tokens WHERE hash = ?", (value,))]
        if len(named) != 1:
            raise StorageError(f"{'no' if not named else 'more than one'} token has the id {which.strip()[:64]!r} "
                               "(`seka-arena token CONFIG --list` shows them)")
        with self._write("revoking a token") as connection:
            connection.execute("UPDATE tokens SET revoked_at = coalesce(revoked_at, ?) WHERE hash = ?",
                               (self.now(), named[0]))
        return _token(self._read("SELECT * FROM tokens WHERE hash = ?", (named[0],))[0])

    # --- bots and versions ---------------------------------------------------------------------

    def add_version(self, bot: str, author: str, *, sha256: str, kind: str, size: int, command: str,
                    language: str | None, description: str | None, tree_sha256: str | None = None,
                    unpacked_bytes: int | None = None) -> VersionRecord:
        """Record a new `pending` version, creating the bot (owned by `author`) on its first one.

        Raises:
            NotYourBotError: the bot belongs to another author.
        """
        with self._write(f"adding a version of {bot}") as connection:
            owner = connection.execute("SELECT author FROM bots WHERE name = ?", (bot,)).fetchone()
            connection.execute("INSERT OR IGNORE INTO authors (name, created_at) VALUES (?, ?)", (author, self.now()))
            if owner is None:
                connection.execute("INSERT INTO bots (name, author, created_at) VALUES (?, ?, ?)",
                                   (bot, author, self.now()))
            elif owner[0] != author:
                raise NotYourBotError(f"bot {bot!r} belongs to another author")
            number = connection.execute("SELECT coalesce(max(number), 0) + 1 FROM versions WHERE bot = ?",
                                        (bot,)).fetchone()[0]
            cursor = connection.execute(
                "INSERT INTO versions (bot, number, sha256, kind, size, command, language, description, created_at, "
                "tree_sha256, unpacked_bytes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (bot, number, sha256, kind, size, command, language, description, self.now(), tree_sha256,
                 unpacked_bytes))
            version_id = cursor.lastrowid
        assert version_id is not None
        return self.version_by_id(version_id)

    def finish_check(self, version_id: int, *, accepted: bool, report: str, stderr: str) -> None:
        """Store a version's check report and its verdict."""
        with self._write(f"recording the check of version {version_id}") as connection:
            connection.execute("UPDATE versions SET status = ?, report = ?, stderr = ?, checked_at = ? WHERE id = ?",
                               ("accepted" if accepted else "refused", report, stderr, self.now(), version_id))

    def version_by_id(self, version_id: int) -> VersionRecord:
        rows = self._read("SELECT * FROM versions WHERE id = ?", (version_id,))
        if not rows:
            raise StorageError(f"no version {version_id}")
        return _version(rows[0])

    def version(self, bot: str, which: str) -> VersionRecord | None:
        """Version `which` (its number, or `latest`) of a bot, or None."""
        if which == "latest":
            rows = self._read("SELECT * FROM versions WHERE bot = ? ORDER BY number DESC LIMIT 1", (bot,))
        elif which.isdigit():
            rows = self._read("SELECT * FROM versions WHERE bot = ? AND number = ?", (bot, int(which)))
        else:
            return None
        return _version(rows[0]) if rows else None

    def versions(self, bot: str | None = None, *, status: VersionStatus | None = None) -> list[VersionRecord]:
        """Versions, oldest first (of one bot, in one status)."""
        rows = self._read("SELECT * FROM versions WHERE (? IS NULL OR bot = ?) AND (? IS NULL OR status = ?) "
                          "ORDER BY id", (bot, bot, status and status.value, status and status.value))
        return [_version(row) for row in rows]

    def submission_times(self, author: str, *, since: float) -> list[str]:
        """When each of an author's versions made after `since` (a clock reading) was submitted, oldest first."""
        return [row[0] for row in self._read(
            "SELECT v.created_at FROM versions v JOIN bots b ON b.name = v.bot WHERE b.author = ? AND "
            "v.created_at > ? ORDER BY v.created_at", (author, iso(since)))]

    def stored_bytes(self, author: str) -> int:
        """The bytes an author's versions take: their archives and unpacked files."""
        return int(self._read("SELECT coalesce(sum(v.size + coalesce(v.unpacked_bytes, 0)), 0) FROM versions v "
                              "JOIN bots b ON b.name = v.bot WHERE b.author = ?", (author,))[0][0])

    def uses_archive(self, sha256: str) -> bool:
        """Whether any version was submitted as the archive of this SHA-256 (its unpacked folder is in use)."""
        return bool(self._read("SELECT 1 FROM versions WHERE sha256 = ? LIMIT 1", (sha256,)))

    def bot(self, name: str) -> BotRecord | None:
        rows = self._read("SELECT * FROM bots WHERE name = ?", (name,))
        return BotRecord(**dict(rows[0])) if rows else None

    def bots(self, author: str | None = None) -> list[BotRecord]:
        rows = self._read("SELECT * FROM bots WHERE (? IS NULL OR author = ?) ORDER BY name", (author, author))
        return [BotRecord(**dict(row)) for row in rows]

    def current_versions(self) -> list[VersionRecord]:
        """The latest accepted version of every bot not disqualified: who plays now, by bot name."""
        rows = self._read("""SELECT v.* FROM versions v JOIN bots b ON b.name = v.bot
                             WHERE v.status = 'accepted' AND b.disqualified IS NULL AND v.number = (
                                 SELECT max(number) FROM versions WHERE bot = v.bot AND status = 'accepted')
                             ORDER BY v.bot""")
        return [_version(row) for row in rows]

    def disqualify(self, bot: str, reason: str) -> None:
        """Take a bot out of the ladder and of future tournaments; its results stay."""
        with self._write(f"disqualifying {bot}") as connection:
            if connection.execute("UPDATE bots SET disqualified = ? WHERE name = ?", (reason, bot)).rowcount == 0:
                raise StorageError(f"no bot {bot!r}")

    def reinstate(self, bot: str) -> None:
        """Put a disqualified bot back: its latest accepted version plays again."""
        with self._write(f"reinstating {bot}") as connection:
            if connection.execute("UPDATE bots SET disqualified = NULL WHERE name = ?", (bot,)).rowcount == 0:
                raise StorageError(f"no bot {bot!r}")

    # --- settings ------------------------------------------------------------------------------

    def setting(self, key: str) -> str | None:
        rows = self._read("SELECT value FROM settings WHERE key = ?", (key,))
        return str(rows[0]["value"]) if rows else None

    def set_setting(self, key: str, value: str) -> None:
        with self._write(f"setting {key}") as connection:
            connection.execute("INSERT INTO settings (key, value) VALUES (?, ?) "
                               "ON CONFLICT (key) DO UPDATE SET value = excluded.value", (key, value))

    def setting_once(self, key: str, value: str) -> bool:
        """Store `value` under `key` unless a value is there already (the first stays); whether it was stored."""
        with self._write(f"setting {key}") as connection:
            return connection.execute("INSERT OR IGNORE INTO settings (key, value) VALUES (?, ?)",
                                      (key, value)).rowcount == 1

    def settings_under(self, prefix: str) -> dict[str, str]:
        """Every setting whose key starts with `prefix`, by key (in key order)."""
        rows = self._read("SELECT key, value FROM settings WHERE substr(key, 1, ?) = ? ORDER BY key",
                          (len(prefix), prefix))
        return {str(row["key"]): str(row["value"]) for row in rows}

    def secret(self, key: str, *, beside: Mapping[str, str] | None = None) -> str:
        """A random secret stored under `key` on first use (the ladder's deals derive from one), and with it,
        in the same transaction, the settings `beside` (what its commitment binds besides it)."""
        with self._write(f"drawing {key}") as connection:
            drawn = connection.execute("INSERT OR IGNORE INTO settings (key, value) VALUES (?, ?)",
                                       (key, secrets.token_hex(16))).rowcount == 1
            if drawn:
                connection.executemany("INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)",
                                       list((beside or {}).items()))
            return str(connection.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()[0])

    # --- the ladder ----------------------------------------------------------------------------

    def plan_block(self, seatings: Sequence[Sequence[int]], *, seed: Callable[[int], str],
                   reason: str, at: float | None = None) -> list[LadderSession]:
        """Store a duplicate block (its mirrors, in order) as planned; return its sessions.

        Args:
            seed: the deal seed of the block, from its number.
            at: the clock reading it is planned at (default: now): its seed's secret is that time's.
        """
        with self._write("planning a ladder block") as connection:
            [block] = _plan_blocks(connection, [seatings], seed=seed, reason=reason,
                                   now=self.now() if at is None else iso(at))
        return self.ladder_sessions(block=block)

    def record_finished_blocks(self, blocks: Sequence[Sequence[FinishedSession]], *, seed: Callable[[int], str],
                               reason: str) -> None:
        """Store whole finished blocks in one transaction, as `plan_block` then `record_ladder_result`
        for each session would (results brought in bulk: a benchmark's ladder of 10^5 sessions)."""
        with self._write(f"recording {len(blocks)} finished ladder blocks") as connection:
            now = self.now()
            numbers = _plan_blocks(connection, [[session.seating for session in sessions] for sessions in blocks],
                                   seed=seed, reason=reason, now=now)
            connection.executemany(
                "UPDATE ladder_sessions SET status = 'finished', attempts = 1, balances = ?, faults = ?, "
                "fault_reasons = ?, history_path = ?, finished_at = ? WHERE id = ?",
                [(_amounts_json(session.balances), json.dumps(list(session.faults)),
                  _reasons_json(session.fault_reasons), session.history_path, now, f"L{block:06d}-{mirror}")
                 for block, sessions in zip(numbers, blocks, strict=True)
                 for mirror, session in enumerate(sessions, start=1)])
            _add_results(connection, [(session.seating, tuple(session.balances)) for sessions in blocks
                                      for session in sessions])
            _tally_blocks(connection, numbers)

    def ladder_sessions(self, *, block: int | None = None, unfinished: bool = False) -> list[LadderSession]:
        """Ladder sessions in play order (of one block, or the unfinished ones)."""
        if block is not None:
            rows = self._read("SELECT * FROM ladder_sessions WHERE block = ? ORDER BY mirror", (block,))
        elif unfinished:  # by the status index: a page asks for them (the secrets a period holds back)
            rows = self._read("SELECT * FROM ladder_sessions WHERE status IN ('planned', 'running') "
                              "ORDER BY block, mirror")
        else:
            rows = self._read("SELECT * FROM ladder_sessions ORDER BY block, mirror")
        return [_ladder(row) for row in rows]

    def sessions_of(self, versions: Collection[int], *, newest: int) -> list[LadderSession]:
        """The `newest` ladder sessions any of `versions` sat in, newest first (read by index)."""
        marks = ", ".join("?" * len(versions))
        rows = self._read(f"SELECT s.* FROM ladder_sessions s JOIN (SELECT DISTINCT block, mirror FROM ladder_seats "
                          f"WHERE version IN ({marks}) ORDER BY block DESC, mirror DESC LIMIT ?) t "
                          "ON s.block = t.block AND s.mirror = t.mirror ORDER BY s.block DESC, s.mirror DESC",
                          (*versions, newest))
        sessions, damaged = _readable(rows)
        for session_id, problem in damaged:
            note_damaged(session_id, problem)
        return sessions

    def sessions_played(self, versions: Collection[int]) -> dict[int, int]:
        """Each of `versions`' finished ladder sessions, counted as results land (absent: none yet)."""
        marks = ", ".join("?" * len(versions))
        rows = self._read(f"SELECT version, sessions FROM ladder_players WHERE version IN ({marks})", tuple(versions))
        return {row["version"]: row["sessions"] for row in rows if row["sessions"]}

    def ladder_progress(self) -> LadderProgress:
        """Sessions finished in the last hour and in all, and when the last one finished (read by index)."""
        last_hour = self._read("SELECT count(*) AS n FROM ladder_sessions WHERE finished_at >= ?",
                               (iso(self.clock() - 3600),))
        last = self._read("SELECT max(finished_at) AS at FROM ladder_sessions")
        return LadderProgress(int(last_hour[0]["n"]), self.finished_ladder_sessions(), last[0]["at"])

    def last_finished_ladder_session(self) -> str | None:
        """The id of the ladder session that finished last (read by index), or None before the first."""
        rows = self._read("SELECT id FROM ladder_sessions WHERE finished_at IS NOT NULL "
                          "ORDER BY finished_at DESC, id DESC LIMIT 1")
        return str(rows[0]["id"]) if rows else None

    def finished_ladder_sessions(self) -> int:
        """How many ladder sessions have a result: the leaderboard's generation (one row, kept as they land)."""
        return int(self._read("SELECT finished FROM ladder_totals")[0]["finished"])

    def ladder_standing(self, *, exclude_blocks: Collection[int] = ()) -> LadderStanding:
        """Blocks played by each version and the pairs' finishing orders, from the aggregates kept as
        results land, less the blocks in `exclude_blocks` (a few: read session by session)."""
        with self._lock:
            blocks = {str(row["version"]): row["blocks"] for row in self._read("SELECT * FROM ladder_players")}
            counts = {(row["low"], row["high"], row["seats"]): [row["low_wins"], row["draws"], row["high_wins"]]
                      for row in self._read("SELECT * FROM ladder_pairs")}
            for block in exclude_blocks:
                sessions = self.ladder_sessions(block=block)
                for version in sessions[0].seating if sessions else ():
                    blocks[str(version)] -= 1
                for key, wins in _pair_counts([(s.seating, s.ranked) for s in sessions if s.ranked]).items():
                    counts[key] = [have - less for have, less in zip(counts[key], wins, strict=True)]
        pairs: dict[tuple[str, str], tuple[Fraction, Fraction]] = {}
        for (low, high, seats), (low_wins, draws, high_wins) in counts.items():
            if low_wins + draws + high_wins == 0:
                continue
            weight = Fraction(1, seats - 1)
            first, second = sorted((str(low), str(high)))
            score = (low_wins + Fraction(draws, 2)) * weight if first == str(low) else \
                (high_wins + Fraction(draws, 2)) * weight
            games = (low_wins + draws + high_wins) * weight
            had_score, had_games = pairs.get((first, second), (Fraction(0), Fraction(0)))
            pairs[(first, second)] = (had_score + score, had_games + games)
        return LadderStanding({version: count for version, count in blocks.items() if count}, pairs)

    def ladder_snapshot(self) -> LadderSnapshot:
        """The finished blocks' kinds, the finished sessions of the other blocks and who plays now, read in one
        transaction (so they agree); the other blocks are found by the status index."""
        with self._lock:
            self._connection.execute("BEGIN")
            try:
                finished = self.finished_ladder_sessions()
                current = self.current_versions()
                kinds = [(_kind(row["results"]), int(row["blocks"]))
                         for row in self._read("SELECT results, blocks FROM ladder_block_kinds")]
                rows = self._read("SELECT * FROM ladder_sessions WHERE status = 'finished' AND block IN (SELECT "
                                  "block FROM ladder_sessions WHERE status IN ('planned', 'running')) "
                                  "ORDER BY block, mirror")
            finally:
                self._connection.execute("COMMIT")
        sessions, damaged = _readable(rows)
        return LadderSnapshot(finished, tuple(current), tuple(kinds), tuple(sessions), tuple(damaged))

    def ladder_started(self) -> bool:
        """Whether the ladder has planned a block yet."""
        return bool(self._read("SELECT 1 FROM ladder_sessions LIMIT 1"))

    def ladder_session(self, session_id: str) -> LadderSession | None:
        rows = self._read("SELECT * FROM ladder_sessions WHERE id = ?", (session_id,))
        return _ladder(rows[0]) if rows else None

    def mark_ladder_running(self, session_id: str) -> None:
        with self._write(f"starting {session_id}") as connection:
            connection.execute("UPDATE ladder_sessions SET status = 'running', attempts = attempts + 1 WHERE id = ?",
                               (session_id,))

    def record_ladder_result(self, session_id: str, balances: Sequence[Amount], faults: Sequence[int],
                             history_path: str,
                             fault_reasons: Sequence[Sequence[FaultReason]] | None = None,
                             adjusted: Sequence[Amount] | None = None, luck: Sequence[Amount] | None = None) -> None:
        """Store a session's result: balances, fault counts and (when given) reasons and adjusted result, by
        seat; the ladder's choice of tables counts finishing orders by the adjusted result when given.

        Args:
            adjusted: the balances less the terms of known mean zero (`SessionTerms.known`).
            luck: the deals' luck by seat (`SessionTerms.luck`): with it, the deal control variate is taken off
                `adjusted` too (`arena.ratings.controlled`), each seat's coefficient fitted on the finished
                sessions of its version at this table size in the other half of the blocks (`block_half`),
                never on this block; the session then joins its own half's sums.
        """
        if sum(balances) != 0 or (adjusted is not None and sum(adjusted) != 0):
            raise StorageError(f"ladder session {session_id}: balances must sum to zero")
        if luck is not None and (adjusted is None or len(luck) != len(adjusted)):
            raise StorageError(f"ladder session {session_id}: luck needs the adjusted result, seat by seat")
        with self._write(f"recording {session_id}") as connection:
            known = adjusted
            if adjusted is not None and luck is not None:
                adjusted = _control_variate(connection, session_id, adjusted, luck)
            updated = connection.execute(
                "UPDATE ladder_sessions SET status = 'finished', balances = ?, faults = ?, fault_reasons = ?, "
                "history_path = ?, finished_at = ?, adjusted = ?, luck = ? WHERE id = ? AND status != 'finished' "
                "RETURNING seating",
                (_amounts_json(balances), json.dumps(list(faults)), _reasons_json(fault_reasons), history_path,
                 self.now(), None if adjusted is None else _amounts_json(adjusted),
                 None if luck is None else _amounts_json(luck), session_id)).fetchall()
            if updated and known is not None and luck is not None:
                _add_luck(connection, session_id, known, luck)
            if updated:  # counted once: a result recorded again changes nothing
                _add_results(connection, [(tuple(json.loads(updated[0][0])),
                                           tuple(balances if adjusted is None else adjusted))])
                _tally_blocks(connection, [block for (block,) in connection.execute(
                    "SELECT block FROM ladder_sessions WHERE id = ? AND NOT EXISTS (SELECT 1 FROM ladder_sessions "
                    "WHERE block = (SELECT block FROM ladder_sessions WHERE id = ?) AND status != 'finished')",
                    (session_id, session_id))])
            # The block's last result clears its failures in the same transaction: a finished block has none.
            connection.execute(
                "DELETE FROM ladder_failures WHERE block = (SELECT block FROM ladder_sessions WHERE id = ?) "
                "AND NOT EXISTS (SELECT 1 FROM ladder_sessions WHERE status != 'finished' AND block = "
                "(SELECT block FROM ladder_sessions WHERE id = ?))", (session_id, session_id))

    def record_ladder_failure(self, block: int, error: str, *, max_failures: int) -> LadderFailure:
        """Count one more failed try of `block`, setting it aside at the `max_failures`-th in a row (its
        record goes with the result of its last session)."""
        with self._write(f"recording the failure of ladder block {block}") as connection:
            connection.execute(
                "INSERT INTO ladder_failures (block, failures, error, failed_at) VALUES (?, 1, ?, ?) "
                "ON CONFLICT (block) DO UPDATE SET failures = failures + 1, error = excluded.error, "
                "failed_at = excluded.failed_at", (block, error, self.now()))
            connection.execute("UPDATE ladder_failures SET set_aside_at = ? WHERE block = ? AND failures >= ? "
                               "AND set_aside_at IS NULL", (self.now(), block, max_failures))
        return self.ladder_failures(block=block)[0]

    def ladder_failures(self, *, block: int | None = None) -> list[LadderFailure]:
        """Blocks that failed and have not finished since (of one block), set aside first, by block."""
        rows = self._read("SELECT * FROM ladder_failures WHERE (? IS NULL OR block = ?) "
                          "ORDER BY set_aside_at IS NULL, block", (block, block))
        return [LadderFailure(**dict(row)) for row in rows]

    def resume_ladder_block(self, block: int) -> None:
        """Put a set-aside block back in play, its count of failures from zero.

        Raises:
            StorageError: the block is not set aside.
        """
        with self._write(f"resuming ladder block {block}") as connection:
            if connection.execute("DELETE FROM ladder_failures WHERE block = ? AND set_aside_at IS NOT NULL",
                                  (block,)).rowcount == 0:
                raise StorageError(f"ladder block {block} is not set aside")

    # --- challenges ----------------------------------------------------------------------------

    def create_challenge(self, author: str, players: Sequence[str], *, blocks: int, secret: str,
                         seatings: Callable[[int], Sequence[Sequence[str]]],
                         seed: Callable[[int], str]) -> Challenge:
        """Store a challenge and every session of its `blocks` duplicate blocks, planned, in one transaction.

        Args:
            seatings: the seatings of a block (its mirrors), from the block's number.
            seed: the deal seed of a block, from its number.
        """
        with self._write(f"storing a challenge of {author}") as connection:
            cursor = connection.execute("INSERT INTO challenges (author, players, blocks, secret, created_at) "
                                        "VALUES (?, ?, ?, ?, ?)",
                                        (author, json.dumps(list(players)), blocks, secret, self.now()))
            number = cursor.lastrowid
            assert number is not None
            connection.executemany(
                "INSERT INTO challenge_sessions (id, challenge, block, mirror, seating, seed) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                [(f"C{number:06d}-{block}-{mirror}", number, block, mirror, json.dumps(list(seating)), seed(block))
                 for block in range(1, blocks + 1)
                 for mirror, seating in enumerate(seatings(block), start=1)])
        found = self.challenge(number)
        assert found is not None
        return found

    def challenge(self, number: int) -> Challenge | None:
        rows = self._read("SELECT * FROM challenges WHERE id = ?", (number,))
        return _challenge(rows[0]) if rows else None

    def challenges(self, author: str, *, newest: int) -> list[Challenge]:
        """An author's `newest` challenges, newest first."""
        rows = self._read("SELECT * FROM challenges WHERE author = ? ORDER BY created_at DESC, id DESC LIMIT ?",
                          (author, newest))
        return [_challenge(row) for row in rows]

    def challenge_times(self, author: str, *, since: float) -> list[str]:
        """When each of an author's challenges made after `since` (a clock reading) was made, oldest first."""
        return [row[0] for row in self._read("SELECT created_at FROM challenges WHERE author = ? AND created_at > ? "
                                             "ORDER BY created_at", (author, iso(since)))]

    def challenge_sessions(self, number: int) -> list[ChallengeSession]:
        """A challenge's sessions in play order."""
        rows = self._read("SELECT * FROM challenge_sessions WHERE challenge = ? ORDER BY block, mirror", (number,))
        return [_challenge_session(row) for row in rows]

    def challenge_session(self, session_id: str) -> ChallengeSession | None:
        rows = self._read("SELECT * FROM challenge_sessions WHERE id = ?", (session_id,))
        return _challenge_session(rows[0]) if rows else None

    def next_challenge_block(self, *, skip: Collection[tuple[int, int]] = ()) -> list[ChallengeSession] | None:
        """The oldest challenge block with a session left to play, not in `skip` ((challenge, block) pairs
        played or waiting for a retry), as its sessions in play order; or None."""
        rows = self._read("SELECT DISTINCT s.challenge, s.block FROM challenge_sessions s JOIN challenges c "
                          "ON c.id = s.challenge WHERE s.status IN ('planned', 'running') AND c.failed IS NULL "
                          "ORDER BY s.challenge, s.block")
        for row in rows:
            if (row["challenge"], row["block"]) not in skip:
                found = self._read("SELECT * FROM challenge_sessions WHERE challenge = ? AND block = ? "
                                   "ORDER BY mirror", (row["challenge"], row["block"]))
                return [_challenge_session(session) for session in found]
        return None

    def mark_challenge_running(self, session_id: str) -> None:
        with self._write(f"starting {session_id}") as connection:
            connection.execute("UPDATE challenge_sessions SET status = 'running', attempts = attempts + 1 "
                               "WHERE id = ?", (session_id,))

    def record_challenge_result(self, session_id: str, balances: Sequence[Amount], faults: Sequence[int],
                                history_path: str) -> None:
        if sum(balances) != 0:
            raise StorageError(f"challenge session {session_id}: balances must sum to zero")
        with self._write(f"recording {session_id}") as connection:
            connection.execute(
                "UPDATE challenge_sessions SET status = 'finished', balances = ?, faults = ?, history_path = ?, "
                "finished_at = ? WHERE id = ? AND status != 'finished'",
                (_amounts_json(balances), json.dumps(list(faults)), history_path, self.now(), session_id))

    def record_challenge_failure(self, session_id: str, reason: str, *, final: bool, most: int) -> Challenge:
        """Count one try of `session_id` failed by its bots' own doing; its challenge ends, failed with `reason`,
        at the `most`-th such try of the session, or at once if `final` (a refusal that cannot change)."""
        with self._write(f"recording the failure of {session_id}") as connection:
            connection.execute("UPDATE challenge_sessions SET failures = failures + 1 WHERE id = ?", (session_id,))
            connection.execute(
                "UPDATE challenges SET failed = ?, failed_at = ? WHERE failed IS NULL AND id = (SELECT challenge "
                "FROM challenge_sessions WHERE id = ? AND (? OR failures >= ?))",
                (reason, self.now(), session_id, int(final), most))
            number = connection.execute("SELECT challenge FROM challenge_sessions WHERE id = ?",
                                        (session_id,)).fetchone()[0]
        found = self.challenge(number)
        assert found is not None
        return found

    def failed_challenges(self) -> list[Challenge]:
        """Every challenge that ended failed (and was not resumed since), oldest failure first."""
        return [_challenge(row) for row in self._read("SELECT * FROM challenges WHERE failed IS NOT NULL "
                                                       "ORDER BY failed_at, id")]

    def resume_challenge(self, number: int, organiser: str) -> Challenge:
        """Put failed challenge `number` back in play, its sessions' failures from zero; its failure is kept
        (`challenge_resumes`) with `organiser`'s name and the time.

        Raises:
            StorageError: the challenge has not failed (or does not exist).
        """
        with self._write(f"resuming challenge {number}") as connection:
            row = connection.execute("SELECT failed, failed_at FROM challenges WHERE id = ? AND failed IS NOT NULL",
                                     (number,)).fetchone()
            if row is None:
                raise StorageError(f"challenge {number} has not failed: only a failed challenge is resumed")
            connection.execute("INSERT INTO challenge_resumes (challenge, failed, failed_at, resumed_by, resumed_at) "
                               "VALUES (?, ?, ?, ?, ?)", (number, row[0], row[1], organiser, self.now()))
            connection.execute("UPDATE challenges SET failed = NULL, failed_at = NULL WHERE id = ?", (number,))
            connection.execute("UPDATE challenge_sessions SET failures = 0 WHERE challenge = ?", (number,))
        found = self.challenge(number)
        assert found is not None
        return found

    def challenge_resumes(self, number: int) -> list[ChallengeResume]:
        """The times challenge `number` was resumed, oldest first."""
        return [ChallengeResume(row["failed"], row["failed_at"], row["resumed_by"], row["resumed_at"])
                for row in self._read("SELECT * FROM challenge_resumes WHERE challenge = ? ORDER BY resumed_at, rowid",
                                      (number,))]

    def finished_sessions(self, *, versions: Collection[int] | None, challenges_of: str | None, everything: bool,
                          since: str | None, before: tuple[str, str] | None, limit: int) -> list[SessionRow]:
        """Finished ladder and challenge sessions, newest first (by finish time, then id): those `versions`
        sat in (None: any), finished at or after `since`, before the cursor `before` (finish time, id);
        challenge sessions only of the challenges `challenges_of` made, or every one if `everything`."""
        marks = ", ".join("?" * len(versions)) if versions is not None else ""
        ladder_seat = ("" if versions is None else
                       f"AND EXISTS (SELECT 1 FROM ladder_seats t WHERE t.block = s.block AND t.mirror = s.mirror "
                       f"AND t.version IN ({marks}))")
        challenge_seat = ("" if versions is None else
                          f"AND EXISTS (SELECT 1 FROM json_each(s.seating) seat WHERE seat.value IN ({marks}))")
        keys = [] if versions is None else list(versions)
        texts = [str(key) for key in keys]
        window = ("AND (? IS NULL OR s.finished_at >= ?) "
                  "AND (? IS NULL OR s.finished_at < ? OR (s.finished_at = ? AND s.id < ?))")
        cut = [since, since, *([None] * 4 if before is None else [before[0], before[0], before[0], before[1]])]
        rows = self._read(
            f"SELECT * FROM (SELECT 'ladder' AS kind, s.id, NULL AS challenge, s.seating, s.balances, s.faults, "
            f"s.finished_at FROM ladder_sessions s WHERE s.status = 'finished' {ladder_seat} {window} "
            f"UNION ALL SELECT 'challenge', s.id, s.challenge, s.seating, s.balances, s.faults, s.finished_at "
            f"FROM challenge_sessions s JOIN challenges c ON c.id = s.challenge WHERE s.status = 'finished' "
            f"AND (? OR c.author = ?) {challenge_seat} {window}) ORDER BY finished_at DESC, id DESC LIMIT ?",
            (*keys, *cut, int(everything), challenges_of, *texts, *cut, limit))
        return [SessionRow(kind=row["kind"], id=row["id"], challenge=row["challenge"],
                           seating=tuple(str(seat) for seat in json.loads(row["seating"])),
                           balances=_amounts(row["balances"]), faults=_counts(row["faults"]),
                           finished_at=row["finished_at"]) for row in rows]

    # --- schedules -----------------------------------------------------------------------------

    def ensure_schedule(self, name: str, cron: str, settings: Mapping[str, Any]) -> ScheduleRecord:
        """Add a schedule (its first firing is the first after now), or update an existing one's
        expression and settings, keeping what it already fired; a deleted one comes back, firing from now."""
        with self._write(f"storing schedule {name}") as connection:
            connection.execute(
                "INSERT INTO schedules (name, cron, settings, last_due, created_at) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT (name) DO UPDATE SET cron = excluded.cron, settings = excluded.settings, "
                "last_due = CASE WHEN deleted_at IS NULL THEN last_due ELSE excluded.last_due END, deleted_at = NULL",
                (name, cron, json.dumps(dict(settings), sort_keys=True), self.now(), self.now()))
        found = [schedule for schedule in self.schedules() if schedule.name == name]
        return found[0]

    def schedules(self) -> list[ScheduleRecord]:
        """The schedules in force (not deleted), by name."""
        return [ScheduleRecord(row["name"], row["cron"], json.loads(row["settings"]), row["last_due"],
                               row["created_at"])
                for row in self._read("SELECT * FROM schedules WHERE deleted_at IS NULL ORDER BY name")]

    def delete_schedule(self, name: str) -> None:
        """Stop a schedule from firing; its past runs and their results stay."""
        with self._write(f"deleting schedule {name}") as connection:
            connection.execute("UPDATE schedules SET deleted_at = ? WHERE name = ? AND deleted_at IS NULL",
                               (self.now(), name))

    def claim_firing(self, schedule: str, due_at: str, *, name: str) -> RunRecord | None:
        """Record the firing of `schedule` due at `due_at`, once: None if it was already claimed, or
        an earlier firing than the last one claimed."""
        with self._write(f"firing {schedule}") as connection:
            last = connection.execute("SELECT last_due FROM schedules WHERE name = ?", (schedule,)).fetchone()
            if last is None or from_iso(last[0]) >= from_iso(due_at):
                return None
            connection.execute("UPDATE schedules SET last_due = ? WHERE name = ?", (due_at, schedule))
            cursor = connection.execute(
                "INSERT OR IGNORE INTO scheduled_runs (schedule, due_at, name) VALUES (?, ?, ?)",
                (schedule, due_at, name))
            if cursor.rowcount == 0:
                return None
            run_id = cursor.lastrowid
        assert run_id is not None
        return self.run(run_id)

    def claim_manual_firing(self, schedule: str, now: float, *, name: str) -> RunRecord | None:
        """Record a firing of `schedule` an organiser asked for at `now`: None while one of its runs is
        still due or running. It leaves the schedule's cron firings alone (claimed by their due times),
        so it works whatever the clock did; its run is named `name`, or `name-2`, `name-3`... if taken.
        """
        with self._write(f"firing {schedule} now") as connection:
            if connection.execute("SELECT 1 FROM scheduled_runs WHERE schedule = ? AND status IN ('due', 'running')",
                                  (schedule,)).fetchone() is not None:
                return None
            names = {row[0] for row in connection.execute(
                "SELECT name FROM scheduled_runs WHERE name = ? OR name LIKE ?", (name, f"{name}-%"))}
            free = next(candidate for candidate in (name, *(f"{name}-{n}" for n in range(2, len(names) + 3)))
                        if candidate not in names)
            dues = {row[0] for row in connection.execute("SELECT due_at FROM scheduled_runs WHERE schedule = ?",
                                                         (schedule,))}
            # Another run at this very instant (a clock set back onto it): the next free microsecond.
            due = next(text for step in range(len(dues) + 1)
                       if (text := iso(now + step * 1e-6, precise=True)) not in dues)
            cursor = connection.execute("INSERT INTO scheduled_runs (schedule, due_at, name) VALUES (?, ?, ?)",
                                        (schedule, due, free))
            run_id = cursor.lastrowid
        assert run_id is not None
        return self.run(run_id)

    def start_run(self, run_id: int, definition: str) -> None:
        with self._write(f"starting run {run_id}") as connection:
            connection.execute("UPDATE scheduled_runs SET status = 'running', definition = ?, started_at = ? "
                               "WHERE id = ?", (definition, self.now(), run_id))

    def finish_run(self, run_id: int, *, status: str, message: str | None = None) -> None:
        with self._write(f"finishing run {run_id}") as connection:
            connection.execute("UPDATE scheduled_runs SET status = ?, message = ?, finished_at = ? WHERE id = ?",
                               (status, message, self.now(), run_id))

    def run(self, run_id: int) -> RunRecord:
        rows = self._read("SELECT * FROM scheduled_runs WHERE id = ?", (run_id,))
        if not rows:
            raise StorageError(f"no scheduled run {run_id}")
        return RunRecord(**dict(rows[0]))

    def runs(self) -> list[RunRecord]:
        """Every scheduled run, newest first."""
        return [RunRecord(**dict(row)) for row in self._read("SELECT * FROM scheduled_runs ORDER BY due_at DESC, id")]


def _token(row: sqlite3.Row) -> TokenRecord:
    return TokenRecord(id=row["hash"][:12], author=row["author"], organiser=bool(row["organiser"]),
                       created_at=row["created_at"], expires_at=row["expires_at"], revoked_at=row["revoked_at"])


def _plan_blocks(connection: sqlite3.Connection, blocks: Sequence[Sequence[Sequence[int]]], *,
                 seed: Callable[[int], str], reason: str, now: str) -> list[int]:
    # New blocks (each its mirrors' seatings), their seats and their players' counts of blocks; their numbers.
    first = int(connection.execute("SELECT coalesce(max(block), 0) + 1 FROM ladder_sessions").fetchone()[0])
    numbers = list(range(first, first + len(blocks)))
    sessions, seats = [], []
    players: Counter[int] = Counter()
    for block, seatings in zip(numbers, blocks, strict=True):
        seed_text = seed(block)
        for mirror, seating in enumerate(seatings, start=1):
            sessions.append((f"L{block:06d}-{mirror}", block, mirror, reason, json.dumps(list(seating)), seed_text,
                             now))
            seats += [(version, block, mirror) for version in seating]
        players.update({version for seating in seatings for version in seating})
    connection.executemany("INSERT INTO ladder_sessions (id, block, mirror, reason, seating, seed, created_at) "
                           "VALUES (?, ?, ?, ?, ?, ?, ?)", sessions)
    connection.executemany("INSERT INTO ladder_seats (version, block, mirror) VALUES (?, ?, ?)", seats)
    connection.executemany("INSERT INTO ladder_players (version, blocks) VALUES (?, ?) "
                           "ON CONFLICT (version) DO UPDATE SET blocks = blocks + excluded.blocks",
                           sorted(players.items()))
    return numbers


def _pair_counts(results: Sequence[tuple[Sequence[int], Sequence[Amount]]]) -> dict[tuple[int, int, int], list[int]]:
    # Per (low version, high version, seats): sessions low won, drew, lost against high, by balance.
    counts: dict[tuple[int, int, int], list[int]] = {}
    for seating, balances in results:
        by_version = sorted(zip(seating, balances, strict=True))
        for a, (low, low_balance) in enumerate(by_version):
            for high, high_balance in by_version[a + 1:]:
                entry = counts.setdefault((low, high, len(seating)), [0, 0, 0])
                entry[0 if low_balance > high_balance else 1 if low_balance == high_balance else 2] += 1
    return counts


def _luck_place(connection: sqlite3.Connection, session_id: str) -> tuple[list[int], int] | None:
    # A ladder session's versions by seat and its block's half (None for a session the store does not hold).
    row = connection.execute("SELECT seating, block FROM ladder_sessions WHERE id = ?", (session_id,)).fetchone()
    return None if row is None else ([int(seat) for seat in json.loads(row[0])], block_half(str(row[1])))


def _control_variate(connection: sqlite3.Connection, session_id: str, known: Sequence[Amount],
                     luck: Sequence[Amount]) -> tuple[Amount, ...]:
    # Each seat's coefficient from its version's sums in the other half of the blocks: fitted on other
    # blocks' deals than this one's, so c·luck keeps mean zero (docs/ratings.md, "Why it is unbiased").
    place = _luck_place(connection, session_id)
    if place is None:
        return tuple(known)
    versions, half = place
    sums = {row[0]: row[1:] for row in connection.execute(
        "SELECT version, n, sx, sy, sxx, sxy FROM ladder_luck_sums WHERE seats = ? AND half = ?",
        (len(versions), 1 - half))}
    return controlled(known, luck, [control_coefficient(*sums[version]) if version in sums else Fraction(0)
                                    for version in versions])


def _add_luck(connection: sqlite3.Connection, session_id: str, known: Sequence[Amount],
              luck: Sequence[Amount]) -> None:
    # The session into its own half's sums (floats: the coefficient is kept to 1/1000 and the sums of exact
    # results with a mix's denominators would grow without bound).
    place = _luck_place(connection, session_id)
    assert place is not None  # its result was just recorded
    versions, half = place
    connection.executemany(
        "INSERT INTO ladder_luck_sums (version, seats, half, n, sx, sy, sxx, sxy) VALUES (?, ?, ?, 1, ?, ?, ?, ?) "
        "ON CONFLICT (version, seats, half) DO UPDATE SET n = n + 1, sx = sx + excluded.sx, sy = sy + excluded.sy, "
        "sxx = sxx + excluded.sxx, sxy = sxy + excluded.sxy",
        [(version, len(versions), half, float(x), float(y), float(x) * float(x), float(x) * float(y))
         for version, x, y in zip(versions, luck, known, strict=True)])


def _add_results(connection: sqlite3.Connection, results: Sequence[tuple[Sequence[int], Sequence[Amount]]]) -> None:
    # Newly finished sessions (seating, balances) into the aggregates, in the transaction that records them.
    connection.executemany(
        "INSERT INTO ladder_pairs (low, high, seats, low_wins, draws, high_wins) VALUES (?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (low, high, seats) DO UPDATE SET low_wins = low_wins + excluded.low_wins, "
        "draws = draws + excluded.draws, high_wins = high_wins + excluded.high_wins",
        [(*key, *wins) for key, wins in _pair_counts(results).items()])
    sessions = Counter(version for seating, _ in results for version in seating)
    connection.executemany("INSERT INTO ladder_players (version, sessions) VALUES (?, ?) "
                           "ON CONFLICT (version) DO UPDATE SET sessions = sessions + excluded.sessions",
                           sorted(sessions.items()))
    connection.execute("UPDATE ladder_totals SET finished = finished + ?", (len(results),))


def _rebuild_ladder_aggregates(connection: sqlite3.Connection) -> None:
    # The aggregates from every session, when `ladder_totals` has no row (a store from before them).
    for table in ("ladder_seats", "ladder_players", "ladder_pairs", "ladder_totals"):
        connection.execute(f"DELETE FROM {table}")
    connection.execute("INSERT INTO ladder_totals (id, finished) VALUES (1, 0)")
    connection.execute("INSERT INTO ladder_seats (version, block, mirror) SELECT DISTINCT CAST(seat.value AS INTEGER), "
                       "s.block, s.mirror FROM ladder_sessions s, json_each(s.seating) seat")
    connection.execute("INSERT INTO ladder_players (version, blocks) SELECT version, count(DISTINCT block) "
                       "FROM ladder_seats GROUP BY version")
    finished = [(tuple(json.loads(seating)), _amounts(balances))
                for seating, balances in connection.execute(
                    "SELECT seating, COALESCE(adjusted, balances) FROM ladder_sessions WHERE status = 'finished'")]
    _add_results(connection, finished)


def _tally_blocks(connection: sqlite3.Connection, blocks: Sequence[int]) -> None:
    # Newly finished blocks into `ladder_block_kinds`, in the transaction that records their last results.
    kinds: Counter[str] = Counter()
    for block in blocks:
        kinds.update(_block_kinds(_rows(connection, "SELECT * FROM ladder_sessions WHERE block = ? ORDER BY mirror",
                                        (block,))))
    _add_kinds(connection, kinds)


def _rebuild_block_kinds(connection: sqlite3.Connection) -> None:
    # Every finished block into `ladder_block_kinds` (a store from before it), reading the sessions a block at a time.
    connection.execute("DELETE FROM ladder_block_kinds")
    rows = _rows(connection, "SELECT * FROM ladder_sessions WHERE block NOT IN (SELECT block FROM ladder_sessions "
                 "WHERE status != 'finished') ORDER BY block, mirror", ())
    _add_kinds(connection, Counter(_block_kinds(rows)))
    connection.execute("UPDATE ladder_totals SET kinds_tallied = 1")


def _block_kinds(rows: Iterable[sqlite3.Row]) -> Iterator[str]:
    # The kind of each finished block of `rows` (in block order) as stored; a damaged session is left out,
    # logged (`note_damaged`), as the fit left it out when it read every session.
    for _, block_rows in itertools.groupby(rows, key=lambda row: row["block"]):
        sessions, damaged = _readable(block_rows)
        for session_id, problem in damaged:
            note_damaged(session_id, problem)
        outcomes = []
        for session in sessions:
            try:
                outcomes.append(SessionOutcome(tuple(str(seat) for seat in session.seating),
                                               tuple(session.balances or ()), f"b{session.block}"))
            except RatingError as error:
                note_damaged(session.id, f"ladder session {session.id}: a stored value is damaged ({error}); "
                             "nothing was changed: restore the service store from a backup")
        if outcomes:
            yield json.dumps([[a, b, str(score), str(weight)] for a, b, score, weight in block_results(outcomes)])


def _rows(connection: sqlite3.Connection, sql: str, parameters: Sequence[object]) -> Iterator[sqlite3.Row]:
    cursor = connection.cursor()
    cursor.row_factory = sqlite3.Row
    return iter(cursor.execute(sql, parameters))


def _add_kinds(connection: sqlite3.Connection, kinds: Mapping[str, int]) -> None:
    connection.executemany("INSERT INTO ladder_block_kinds (results, blocks) VALUES (?, ?) ON CONFLICT (results) "
                           "DO UPDATE SET blocks = blocks + excluded.blocks", sorted(kinds.items()))


def _kind(text: str) -> BlockResults:
    return tuple((str(a), str(b), Fraction(score), Fraction(weight)) for a, b, score, weight in json.loads(text))


def _amounts_json(amounts: Sequence[Amount]) -> str:
    return json.dumps([format_amount(amount) for amount in amounts])


def _reasons_json(reasons: Sequence[Sequence[FaultReason]] | None) -> str | None:
    if reasons is None:
        return None
    return json.dumps([[[reason.kind, reason.reason, reason.count] for reason in seat] for seat in reasons])


def _reasons(text: str | None) -> tuple[tuple[FaultReason, ...], ...] | None:
    if text is None:
        return None
    return tuple(tuple(FaultReason(str(kind), str(reason), int(count)) for kind, reason, count in seat)
                 for seat in json.loads(text))


def _version(row: sqlite3.Row) -> VersionRecord:
    values = dict(row)
    values["status"] = VersionStatus(values["status"])
    return VersionRecord(**values)


_NOTED: set[str] = set()


def note_damaged(session_id: str, problem: str) -> None:
    """Log a damaged ladder row's problem, once per row and process: the readers that show results
    (pages, the leaderboard's fit) leave the row out and go on, and would otherwise say it on every request."""
    if session_id not in _NOTED:
        _NOTED.add(session_id)
        LOGGER.error("%s", problem)


def _readable(rows: Iterable[sqlite3.Row]) -> tuple[list[LadderSession], list[tuple[str, str]]]:
    """The sessions of `rows` that can be read, and the id and problem of each that cannot."""
    sessions, damaged = [], []
    for row in rows:
        try:
            sessions.append(_ladder(row))
        except StorageError as error:
            damaged.append((row["id"], str(error)))
    return sessions, damaged


def _ladder(row: sqlite3.Row) -> LadderSession:
    with _reading(f"ladder session {row['id']}"):
        return LadderSession(
            id=row["id"], block=row["block"], mirror=row["mirror"], reason=row["reason"],
            seating=tuple(int(seat) for seat in json.loads(row["seating"])), seed=row["seed"], status=row["status"],
            attempts=row["attempts"], balances=_optional(_amounts, row["balances"]),
            faults=_optional(_counts, row["faults"]), history_path=row["history_path"],
            created_at=row["created_at"], finished_at=row["finished_at"], fault_reasons=_reasons(row["fault_reasons"]),
            adjusted=_optional(_amounts, row["adjusted"]), luck=_optional(_amounts, row["luck"]))


@contextmanager
def _reading(what: str) -> Iterator[None]:
    # A session row's values as the service wrote them, else a StorageError naming the row (never a bare
    # ValueError from deep in a page).
    try:
        yield
    except (ValueError, TypeError) as error:  # not what the service wrote: a damaged file, a hand edit
        raise StorageError(f"{what}: a stored value is damaged ({error}); nothing was changed: restore the service "
                           "store from a backup") from None


def _amounts(text: str) -> tuple[Amount, ...]:
    """Exact amounts as `_amounts_json` writes them."""
    return tuple(parse_amount(amount) for amount in json.loads(text))


def _counts(text: str) -> tuple[int, ...]:
    return tuple(int(count) for count in json.loads(text))


def _optional(parse: Callable[[str], _T], text: str | None) -> _T | None:
    # A column that is NULL until the session's result (its balances, faults, adjusted result).
    return None if text is None else parse(text)


def _challenge(row: sqlite3.Row) -> Challenge:
    return Challenge(id=row["id"], author=row["author"], players=tuple(str(player) for player in
                                                                       json.loads(row["players"])),
                     blocks=row["blocks"], secret=row["secret"], created_at=row["created_at"],
                     failed=row["failed"], failed_at=row["failed_at"])


def _challenge_session(row: sqlite3.Row) -> ChallengeSession:
    with _reading(f"challenge session {row['id']}"):
        return ChallengeSession(
            id=row["id"], challenge=row["challenge"], block=row["block"], mirror=row["mirror"],
            seating=tuple(str(seat) for seat in json.loads(row["seating"])), seed=row["seed"], status=row["status"],
            attempts=row["attempts"], balances=_optional(_amounts, row["balances"]),
            faults=_optional(_counts, row["faults"]), history_path=row["history_path"],
            finished_at=row["finished_at"], failures=row["failures"])
