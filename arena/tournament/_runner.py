"""Running a tournament: the planned sessions in flight under a limit, each result stored as it ends.

Theory of operation: the store is the source of truth. Starting (or restarting) a run takes the
results folder's lock (a second arena on the same folder is refused, naming the holder's pid),
loads the definition, stores it with the secret's commitment on the first run (or reads the
stored secret on a resume), and plays every session that is not finished yet: a session that was
running when the arena died is played again from its start. The plan is stored as play reaches it,
a chunk at a time (checked against what a first run stored), after its last session, which is
stored first so that a partly stored plan never looks finished. A session's history
file is written atomically and synced before its result row, and the result row is one
transaction, so an interruption at any moment loses at most the sessions in flight, and a stored
result always points to the history it was computed from: only unfinished sessions are played,
and only the lock holder writes. When every session is finished the secret is revealed and the
standings are written.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import os
import shutil
import statistics
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import trio

from ..engine import Amount, ArenaError, format_amount
from ..executor import (
    ClusterCertificates,
    DaskExecutor,
    JobOutcome,
    LocalExecutor,
    SessionExecutor,
    SessionJob,
    is_remote,
)
from ..history import write_resources
from ..isolation import (
    Isolation,
    SandboxError,
    arena_lag,
    default_isolation,
    ensure_open_files,
    verify_bot_folders,
    verify_isolation,
)
from ..match import SeatReport, public_session_id
from ..ratings import VALUE_FUNCTION, SessionOutcome, Standing, standings, value_function_digest
from ..storage import (
    AlreadyWrittenError,
    FaultReason,
    FolderBusyError,
    FolderLock,
    FolderReadOnlyError,
    SessionRecord,
    SessionStatus,
    StorageError,
    Store,
    TournamentRecord,
    ValueFunction,
    commitment_of,
    discard_partial_files,
    make_way_for_replay,
    write_atomically,
)
from ..transport import BotSpec
from ._config import RESULT_NEUTRAL, BotProcesses, Participant, TournamentConfig
from ._deals import BOOK_NAME, DealBook
from ._loader import load_config
from ._schedule import Plan, PlannedSession, block_size, plan

# Seconds between looks at the event loop's lateness, and the least lateness worth a warning (at
# least a tenth of the shortest decision limit).
_LAG_WATCH = 5.0
_LAG_WARNING = 0.1

RESAMPLES = 1000
"""Bootstrap resamples behind every interval in the standings."""
_CHUNK = 1000
"""Sessions of the plan stored at a time, just before they are played."""


@dataclass(frozen=True)
class Progress:
    """What the runner tells its display after each finished session."""

    done: int
    total: int
    faults: int
    last: SessionRecord | None
    warning: str | None = None
    """Something whoever runs the tournament should know now (the machine is overloaded)."""


def results_dir(out: Path, name: str) -> Path:
    """Where a tournament's store, standings, crosstable, histories and logs live."""
    return out / "results" / name


def live_folder(directory: Path) -> Path:
    """Where the sessions of the results folder `directory` in play are appended as they go (a live run)."""
    return directory / "live"


def bot_spec(participant: Participant, isolation: Isolation) -> BotSpec:
    """The transport's view of a participant: how to reach it, what it is allowed and how it is fenced in."""
    return BotSpec(name=participant.name, command=participant.command, address=participant.address,
                   cwd=str(participant.cwd) if participant.cwd else None, env=dict(participant.env),
                   limit=participant.limits.time, process=participant.limits.process, isolation=isolation,
                   confined=participant.confined)


def verify_hidden(config: TournamentConfig, hidden: Sequence[Path], *, isolation: Isolation) -> None:
    """Refuse, before anything runs, a sandboxed participant whose command would show it any part of `hidden`.

    Raises:
        SandboxError: naming the participant and what its command would show it.
    """
    if isolation is not Isolation.SANDBOX:
        return
    for participant in config.participants:
        if participant.command is not None and not participant.confined:  # confined: shown only its cwd
            try:
                verify_bot_folders(participant.command, cwd=Path(participant.cwd or os.getcwd()),
                                   env=participant.env, hidden=hidden)
            except SandboxError as error:
                raise SandboxError(f"bot {participant.name!r}: {error}") from None


MIRRORS_UNPROTECTED = "deals not protected between mirrors"
"""What the standings and the run's output say when a duplicate tournament's bots ran below `sandbox`."""


def fenced(spec: BotSpec) -> str:
    """How a bot is fenced in, as recorded with each session: its isolation level, or `address` for
    a bot the arena reaches at an address without launching it (none of the arena's fences)."""
    return "address" if spec.address is not None else spec.isolation.value


def mirror_warning(levels: Sequence[str], *, sessions: int | None = None, of: int | None = None) -> str:
    """The warning for a duplicate tournament whose bots ran under `levels`, not all `sandbox`.

    Below `sandbox` a bot's copy in one mirror of a block can pass the cards it was dealt (through
    a file, for instance) to its copy in another mirror, which then knows its opponents' cards.
    """
    who = f"{sessions} of {of} sessions had bots" if sessions is not None else "the bots run"
    shown = ", ".join(f"`{level}`" for level in sorted(set(levels)))
    return (f"{MIRRORS_UNPROTECTED}: {who} under isolation {shown}, not `sandbox`, so a bot in one mirror of a "
            "block could pass the cards it was dealt to its copy in another")


def _isolation_levels(record: SessionRecord) -> list[str]:
    # Sessions recorded before the level was kept count as unprotected: nothing shows they were.
    return [str((entry or {}).get("isolation", "unrecorded")) for entry in (record.telemetry or {}).values()]


_LAUNCH_CHAIN = ("prlimit: ", "setpriv: ", "bwrap: ", "sh: ", "/bin/sh: ")
"""How the programs that start a bot (`arena.isolation`) begin their error lines: such a line in a
bot's stderr before it was ready is the launch failing, before the bot's own command ran."""


def arena_launch_failure(seats: Sequence[SeatReport]) -> str | None:
    """The reason every bot of a session (its `seats`) failed to start, when it is one and the arena's own
    (an error line of the launch chain: prlimit, setpriv, bubblewrap, the shell joining the control
    group), else None. `run` stops on it, the service's ladder pauses.

    One reason shared by every seat points at the arena or the machine: charging it to the bots as
    crashes would rate them on the arena's fault, and every later session would fail alike.
    """
    reasons = set()
    for seat in seats:
        lines = [line for kind, reason, _ in seat.fault_reasons if kind == "crash"
                 and reason.startswith("exited before it was ready")
                 for line in reason.splitlines()[1:]  # the lines of its stderr the reason quotes
                 if line.startswith(_LAUNCH_CHAIN)]
        if not lines:
            return None
        reasons.add(lines[0])
    return reasons.pop() if len(seats) > 1 and len(reasons) == 1 else None


def _faults_by_bot(outcome: JobOutcome) -> dict[str, dict[str, int]]:
    return {seat.bot: dict(seat.telemetry["faults"]) for seat in outcome.seats}


def _outcome(record: SessionRecord) -> SessionOutcome:
    assert record.balances is not None
    faults = {bot: sum(kinds.values()) for bot, kinds in (record.faults or {}).items()}
    return SessionOutcome(record.table, tuple(record.balances[bot] for bot in record.table), record.block,
                          faults=faults)


def _keep_deal_book(directory: Path, book: DealBook, record: TournamentRecord) -> None:
    """Check that a resumed tournament's deal book is the one it began with (the commitment binds it),
    and keep a copy with the results for `replay --results` (written once: never replaced)."""
    if commitment_of(record.secret, book.sha256, record.value_function) != record.commitment:
        raise ArenaError(f"the deal book {book.path} is not the one this tournament began with (its SHA-256 "
                         f"{book.sha256} is not in the commitment {record.commitment}): restore that book to resume")
    try:
        write_atomically(directory / BOOK_NAME, book.data, once=True)
    except AlreadyWrittenError:
        raise ArenaError(f"{directory / BOOK_NAME} is not the tournament's deal book {book.path}: it was changed "
                         "after the tournament began; restore it from the book") from None


class TournamentRunner:
    """One tournament's run from its YAML file to its standings, resumable at any point."""

    def __init__(self, config: TournamentConfig, *, out: Path, cluster: str | None = None,
                 certificates: ClusterCertificates | None = None, live: bool = False) -> None:
        """`cluster` (`--cluster`): where to play the sessions, instead of the file's `executor`;
        `certificates`: the driver's for that cluster, if it is `tls://`; `live`: sessions played in
        this process append their history to `live/<session id>.jsonl` as they go (`live_folder`)."""
        self.cluster = cluster if cluster is not None else config.cluster
        certificates = certificates if cluster is not None else config.cluster_certificates
        """None (sessions in this process), `local:N` or a Dask scheduler's address."""
        remote = self.cluster is not None and is_remote(self.cluster)
        self.isolation_warning: str | None = None
        """Why the bots run below `sandbox` when the file named no level, for the run's output."""
        if remote:  # bots run on other machines, which check the level themselves
            self.isolation = config.isolation or Isolation.SANDBOX
        elif config.isolation is None:
            self.isolation, self.isolation_warning = default_isolation()
        else:
            verify_isolation(config.isolation)  # before anything is stored: say what the machine lacks
            self.isolation = config.isolation
        self.directory = results_dir(out, config.name)
        book = config.deals.path if config.deals is not None else None
        self.hidden = [self.directory, *(path for path in (config.path, book) if path is not None)]
        """What no sandboxed bot may be shown: the results (the store among them), the tournament file and
        its deal book."""
        verify_hidden(config, self.hidden, isolation=self.isolation)
        if self.cluster is not None and config.bot_processes is BotProcesses.REUSE:
            raise ArenaError("bot_processes: reuse runs with the local executor only (warm bot processes live "
                             f"beside the arena that leases them), not on the cluster {self.cluster}: leave out "
                             "the cluster, or use bot_processes: fresh")
        self.executor: SessionExecutor = (
            LocalExecutor(logs=self.directory / "logs", hidden=self.hidden, concurrency=config.concurrency,
                          sessions_per_process=config.sessions_per_process, seats=config.table_size,
                          live=live_folder(self.directory) if live else None)
            if self.cluster is None else
            DaskExecutor(self.cluster, isolation=self.isolation, concurrency=config.concurrency,
                         certificates=certificates))
        """Where sessions are played: in this process (`local`), or on a cluster's workers (`dask`)."""
        if self.cluster is None:  # bots run beside the arena, each costing it a few descriptors
            ensure_open_files(config.table_size * self.executor.limit)
        self.executor.verify([bot_spec(participant, self.isolation) for participant in config.participants])
        self._folder = FolderLock.acquire(self.directory, purpose="run")  # held until close()
        try:
            discard_partial_files(self.directory)  # what a killed run was writing
            if live:  # a killed run's sessions in play: not in play any more
                shutil.rmtree(live_folder(self.directory), ignore_errors=True)
            database = self.directory / "tournament.sqlite"
            if not database.exists():
                self._refuse_orphaned_histories(database)
            self.store = Store.open(database)
            try:
                if self.store.tournament() is None:
                    self._refuse_orphaned_histories(database)
                deals = config.deals.sha256 if config.deals is not None else None
                q = value_function()
                record = self.store.init_tournament(name=config.name, definition=config.source, secret=config.seed,
                                                    commitment=commitment_of(config.seed, deals, q),
                                                    deals_sha256=deals, may_change=RESULT_NEUTRAL, value_function=q)
                _verify_value_function(record, q)
                if config.deals is not None:
                    _keep_deal_book(self.directory, config.deals, record)
                self.commitment = record.commitment
                self.commitment_binds = commitment_binds(record.value_function, deals)
                """What the commitment is the SHA-256 of, in words, for the run's output."""
                assert record.session_key is not None  # drawn by init_tournament
                self.session_key = record.session_key
                """The key of the session ids bots are told: random, stored with the results, never the secret."""
                self.config = config.with_seed(record.secret)
                self.plan: Plan = plan(self.config)  # lazy: a session is computed when it is stored or played
                self.store.record_plan([self.plan[-1]], total=len(self.plan))  # the rest is stored as play reaches it
            except BaseException:
                self.store.close()
                raise
        except BaseException:
            self._folder.release()
            raise
        self.specs = {participant.name: bot_spec(participant, self.isolation)
                      for participant in self.config.participants}
        self._crashed: set[str] = set()
        smallest = min(participant.limits.time.decision_ms for participant in self.config.participants)
        self._lag_warning = max(_LAG_WARNING, smallest / 1000 / 10)

    def _refuse_orphaned_histories(self, database: Path) -> None:
        # Called when there is no tournament stored: histories then belong to a results file that
        # was lost or replaced, and starting afresh would overwrite them with other games.
        histories = self.directory / "histories"
        if histories.is_dir() and any(histories.glob("*.jsonl")):
            raise StorageError(f"{histories} holds histories, but {database} holds no tournament: they belong "
                               "to a results file that is gone; restore it to resume, or move the folder away "
                               "to start afresh")

    @classmethod
    def from_file(cls, path: str | os.PathLike[str], *, out: Path, cluster: str | None = None,
                  certificates: ClusterCertificates | None = None) -> TournamentRunner:
        return cls(load_config(path), out=out, cluster=cluster, certificates=certificates)

    def close(self) -> None:
        """Close the store and let another arena use the results folder."""
        try:
            self.store.close()
        finally:
            self._folder.release()

    def _lag_advice(self, in_flight: int) -> str:
        """What whoever runs the tournament can do about a late loop: only what they can set, and where."""
        where = f"at the top of {self.config.path}" if self.config.path is not None else "in the tournament file"
        if self.config.concurrency is not None:
            return (f"lower `concurrency: {self.config.concurrency}` {where}, or leave it out to let the arena "
                    "choose")
        if in_flight > 1:
            return (f"the arena chose {in_flight} at a time itself; to play fewer, set `concurrency:` below "
                    f"{in_flight} {where}")
        return "one at a time already: other programs keep this machine busy"

    async def run(self, *, on_progress: Callable[[Progress], None] = lambda progress: None,
                  stop: trio.Event | None = None) -> bool:
        """Play every unfinished session; True when the tournament is complete.

        Once `stop` is set (a first Ctrl-C), no session starts and the run returns when those in
        flight are stored. When cancelled (a second one), sessions in flight are abandoned, their
        bots stopped, and the next run replays them from their start.
        """
        async with self.executor:
            await self.executor.prepare(list(self.specs.values()))
            return await self._run(self.executor, on_progress, stop if stop is not None else trio.Event())

    async def _run(self, executor: SessionExecutor, on_progress: Callable[[Progress], None],
                   stop: trio.Event) -> bool:
        finished, faults = self.store.tally()
        on_progress(Progress(finished, len(self.plan), faults, None))
        in_flight = 0
        # The deal seeds in play. Two sessions that share one (the mirrors of a duplicate block) are
        # never played at the same time: copies of one bot in both could tell each other the cards
        # through whatever the machine shares between sandboxes (see docs/isolation.md).
        dealing: set[str] = set()
        ended = trio.lowlevel.ParkingLot()

        async def play(record: SessionRecord, last_of_block: bool) -> None:
            nonlocal finished, faults, in_flight
            try:
                outcome = await self._play(record, executor, last_of_block=last_of_block)
            finally:
                in_flight -= 1
                dealing.discard(record.seed)
                ended.unpark_all()
            if outcome is None:  # stored already: a session played twice counts once
                return
            finished += 1
            faults += sum(sum(kinds.values()) for kinds in _faults_by_bot(outcome).values())
            on_progress(Progress(finished, len(self.plan), faults, self.store.session(record.id), warning=(
                f"session {record.id} was played again from its seed (attempt {outcome.attempt}, on "
                f"{outcome.worker}): a worker was lost with it" if outcome.attempt > 1 else None)))

        async def watch_the_loop() -> None:
            # The arena's lateness is not charged to bots (see arena.isolation), but it says the
            # machine is busier than it can serve: worth a word to whoever runs the tournament.
            lag = arena_lag()
            while True:
                await trio.sleep(_LAG_WATCH)
                if (worst := lag.take_worst()) >= self._lag_warning:
                    on_progress(Progress(finished, len(self.plan), faults, None, warning=(
                        f"the arena's event loop ran {worst * 1000:.0f} ms late: this machine is busier than it "
                        f"can serve ({in_flight} session{'' if in_flight == 1 else 's'} in flight; "
                        f"{self._lag_advice(in_flight)}). Bots are not charged for it.")))

        async def wake_on_stop() -> None:
            await stop.wait()
            ended.unpark_all()

        planned = iter(self.plan)
        todo: list[SessionRecord] = []  # stored, unfinished and not started, in plan order
        more = True  # whether some of the plan is still to be stored
        stored = 0  # the plan's sessions stored so far (its first ones)
        mirrors = block_size(self.config.table_size) if self.config.duplicate else 1
        async with trio.open_nursery() as sessions:
            sessions.start_soon(watch_the_loop)
            sessions.start_soon(wake_on_stop)
            while True:  # in plan order, as many at a time as the executor allows, one per deal seed
                while in_flight >= executor.limit and not stop.is_set():
                    await ended.park()
                record = None
                while not stop.is_set() and (record := next((record for record in todo
                                                             if record.seed not in dealing), None)) is None:
                    if more:
                        chunk = await trio.to_thread.run_sync(self._store_chunk, planned)
                        more = chunk is not None
                        if chunk is not None:
                            stored, unfinished = chunk
                            todo += unfinished
                    elif todo:
                        await ended.park()
                    else:
                        break
                if record is None:
                    break
                todo.remove(record)
                dealing.add(record.seed)
                in_flight += 1
                # Its bots' processes may stay warm after it only when no later session deals its cards:
                # none left to start, and its block's last session stored (blocks are contiguous in the plan).
                last_of_block = (record.index - record.mirror + mirrors - 1 <= stored
                                 and all(other.seed != record.seed for other in todo))
                sessions.start_soon(play, record, last_of_block)
            while in_flight:
                await ended.park()
            sessions.cancel_scope.cancel()  # the loop's watch and the stop's
        return finished == len(self.plan)

    def _store_chunk(self, planned: Iterator[PlannedSession]) -> tuple[int, list[SessionRecord]] | None:
        # The next chunk of the plan, stored (or checked against the stored one): the index of its
        # last session and its unfinished sessions, or None after the last. Memory and start-up
        # time do not grow with the plan.
        chunk = list(itertools.islice(planned, _CHUNK))
        if not chunk:
            return None
        self.store.record_plan(chunk, total=len(self.plan))
        return chunk[-1].index, self.store.unfinished(first=chunk[0].index, last=chunk[-1].index)

    def job(self, record: SessionRecord, *, last_of_block: bool = False) -> SessionJob:
        """The session `record` as a job for an executor (`last_of_block`: see `SessionJob`)."""
        return SessionJob(session_id=record.id, seed=record.seed,
                          # Keyed by the run's random key (not the secret, which a bot could search for through
                          # the ids if it were weak): nothing a bot is told names its block or its seed.
                          public_id=public_session_id(self.session_key, record.id), rules=self.config.rules,
                          bots=tuple(self._spec_for(name) for name in record.table), last_of_block=last_of_block)

    def history_path(self, record: SessionRecord) -> Path:
        """Where a session's history is written (once: never replaced)."""
        return self.directory / "histories" / f"{record.id}.jsonl"

    async def _play(self, record: SessionRecord, executor: SessionExecutor, *,
                    last_of_block: bool) -> JobOutcome | None:
        # A history there already was written by an attempt killed before its result: kept aside.
        await trio.to_thread.run_sync(lambda: make_way_for_replay(self.history_path(record),
                                                                  interrupted=record.attempts > 0))
        await trio.to_thread.run_sync(self.store.mark_running, record.id)
        outcome = await executor.play(self.job(record, last_of_block=last_of_block))
        return outcome if await trio.to_thread.run_sync(self.record, record, outcome) else None

    def record(self, record: SessionRecord, outcome: JobOutcome) -> bool:
        """Store a played session's outcome with its history (and its bots' logs, when they were
        written elsewhere): the driver is their only writer. False, writing nothing, when the
        session is stored already (played twice: a retry, a result thought lost)."""
        if outcome.session_id != record.id:
            raise ArenaError(f"the executor returned session {outcome.session_id} for {record.id}")
        if self.store.session(record.id).status is SessionStatus.FINISHED:
            return False
        if (reason := arena_launch_failure(outcome.seats)) is not None:  # nothing is charged to the bots
            raise ArenaError(f"every bot of session {record.id} failed to start for the same reason, the arena's "
                             f"own, not theirs: {reason}; the session is not stored: fix the cause and run the "
                             "same command again (the tournament resumes there)")
        for name, data in outcome.logs.items():
            if Path(name).name != name or not name.endswith(".log"):
                raise ArenaError(f"session {record.id}: a worker returned the log file {name!r}, not a *.log name")
            write_atomically(self.directory / "logs" / record.id / name, data)
        history = write_atomically(self.history_path(record), outcome.history, once=True)
        write_resources(history, outcome.resources)
        for bot in outcome.crashed:
            self._crashed.add(bot)
        balances = {record.table[seat]: balance for seat, balance in enumerate(outcome.balances)}
        # With how each bot was fenced in (the standings say when mirrors could share cards), and
        # where and at which attempt the session was played.
        telemetry = {seat.bot: {**seat.telemetry, "isolation": fenced(self.specs[seat.bot]),
                                "worker": outcome.worker, "attempt": outcome.attempt} for seat in outcome.seats}
        self.store.record_result(
            record.id, balances, [record.table[seat] for seat in outcome.winners], faults=_faults_by_bot(outcome),
            telemetry=telemetry, history_path=os.path.relpath(history, self.directory),
            fault_reasons={seat.bot: [FaultReason(kind, reason, count) for kind, reason, count in seat.fault_reasons]
                           for seat in outcome.seats if seat.fault_reasons})
        return True

    def mirror_warning(self) -> str | None:
        """What the run's output says before it starts when its duplicate blocks' mirrors could share
        cards (some bot runs below `sandbox`), or None."""
        levels = [fenced(spec) for spec in self.specs.values()]
        if not self.config.duplicate or set(levels) <= {"sandbox"}:
            return None
        return mirror_warning([level for level in levels if level != "sandbox"])

    def _spec_for(self, name: str) -> BotSpec:
        spec = self.specs[name]
        if name in self._crashed and not self.config.restart_crashed:
            return BotSpec(name=name, address="unix:/nonexistent", limit=spec.limit,
                           disabled="crashed in an earlier session and restart_crashed is false")
        return spec

    # ------------------------------------------------------------ results

    def write_results(self) -> Path:
        """Compute the standings from storage and write standings.json and crosstable.csv."""
        return write_results(self.store, self.directory)


@dataclass(frozen=True)
class TournamentResults:
    """A tournament's standings and crosstable, as its results folder holds them."""

    standings: dict[str, Any]
    """The document written to standings.json."""
    crosstable: str
    """The text written to crosstable.csv."""


def tournament_results(store: Store, *, resamples: int = RESAMPLES) -> TournamentResults:
    """Standings and crosstable from a store's finished sessions, read without writing anything.

    The secret is shown once every session is finished (or it was revealed by force).
    """
    records = store.finished_results()
    if not records:
        raise ArenaError(f"{Path(store.path).parent}: no finished session to rate yet")
    complete = not store.unfinished()
    tournament = store.tournament()
    assert tournament is not None
    rows = standings([_outcome(record) for record in records], resamples=resamples)
    faults: dict[str, Counter[str]] = defaultdict(Counter)
    for record in records:
        for bot, kinds in (record.faults or {}).items():
            faults[bot].update(kinds)
    reasons = store.fault_reasons()
    launches: dict[str, list[float]] = defaultdict(list)
    for record in records:
        for bot, entry in (record.telemetry or {}).items():
            if isinstance(entry, dict) and isinstance(launch := entry.get("launch"), dict) \
                    and isinstance(ready := launch.get("ready_ms"), (int, float)):
                launches[bot].append(float(ready))
    levels = sorted({level for record in records for level in _isolation_levels(record)})
    warnings = []
    if any(record.mirror > 0 for record in store.sessions()):  # duplicate blocks
        unprotected = [record for record in records if set(_isolation_levels(record)) - {"sandbox"}]
        if unprotected:
            below = [level for record in unprotected for level in _isolation_levels(record) if level != "sandbox"]
            warnings.append(mirror_warning(below, sessions=len(unprotected), of=len(records)))
    document: dict[str, Any] = {
        "tournament": tournament.name,
        "complete": complete,
        "sessions": len(records),
        "seed_commitment": tournament.commitment,
        "value_function": None if tournament.value_function is None else tournament.value_function.as_json(),
        "secret": tournament.secret if complete or tournament.secret_revealed else None,
        "isolation": levels,
        "warnings": warnings,
        "standings": [_standing_json(row, faults[row.name], reasons.get(row.name, []), launches.get(row.name, []))
                      for row in rows],
    }
    return TournamentResults(document, crosstable_csv(records, [row.name for row in rows]))


def write_results(store: Store, directory: Path, *, resamples: int = RESAMPLES) -> Path:
    """Standings and crosstable from a store's finished sessions; reveals the secret once all are done."""
    _write_results(store, directory, resamples=resamples)
    return directory / "standings.json"


def _write_results(store: Store, directory: Path, *, resamples: int) -> TournamentResults:
    results = tournament_results(store, resamples=resamples)
    if results.standings["complete"]:
        store.reveal_secret()
    write_atomically(directory / "standings.json", json.dumps(results.standings, indent=2) + "\n")
    write_atomically(directory / "crosstable.csv", results.crosstable)
    return results


def recompute_results(path: Path, *, write: bool = True,
                      resamples: int = RESAMPLES) -> tuple[TournamentResults, str | None]:
    """The standings of a results folder (or its results file), rewritten there when it can be.

    The files are rewritten (and the secret marked revealed once every session is finished) only
    when `write` is true, the folder and its results file can be written, and no arena holds the
    folder; otherwise the results file is only read, and nothing in the folder changes.

    Returns:
        The results, and why standings.json and crosstable.csv were not rewritten (None if they were).
    """
    database = path / "tournament.sqlite" if path.is_dir() else path
    directory = database.parent
    if not database.is_file():
        raise ArenaError(f"no tournament results at {database}")
    kept: str | None = None if write else "asked to print only"
    lock: FolderLock | None = None
    if kept is None and not (os.access(directory, os.W_OK) and os.access(database, os.W_OK)):
        kept = f"{directory} is read-only"
    if kept is None:
        try:
            lock = FolderLock.acquire(directory, purpose="ratings")
        except (FolderBusyError, FolderReadOnlyError) as error:
            kept = str(error)
    try:
        if lock is not None:
            with Store.open(database) as store:
                return _write_results(store, directory, resamples=resamples), None
        with Store.open(database, read_only=True) as store:
            return tournament_results(store, resamples=resamples), kept
    finally:
        if lock is not None:
            lock.release()


def value_function() -> ValueFunction:
    """The value function of the adjusted results, named and fingerprinted (docs/ratings.md): bound by the
    seed commitment before the first session, so it cannot be chosen after the results."""
    return ValueFunction(VALUE_FUNCTION, value_function_digest())


def commitment_binds(value_function: ValueFunction | None, deals_sha256: str | None) -> str:
    """What a seed commitment is the SHA-256 of, in words (`arena.storage.commitment_text` gives the text).

    >>> from arena.storage import ValueFunction
    >>> commitment_binds(ValueFunction("hindsight/1", "ab" * 32), None)
    'SHA-256 of the secret and the value function hindsight/1 (SHA-256 abababababab...)'
    >>> commitment_binds(None, "cd" * 32)
    'SHA-256 of the secret and the deal book cdcdcdcdcdcd... (made before commitments bound the value function)'
    """
    what = ["the secret"]
    if deals_sha256 is not None:
        what.append(f"the deal book {deals_sha256[:12]}...")
    if value_function is not None:
        what.append(f"the value function {value_function.name} (SHA-256 {value_function.sha256[:12]}...)")
    text = f"SHA-256 of {', '.join(what[:-1])} and {what[-1]}" if len(what) > 1 else "SHA-256 of the secret"
    return text if value_function is not None else f"{text} (made before commitments bound the value function)"


def _verify_value_function(record: TournamentRecord, q: ValueFunction) -> None:
    """Refuse to resume a tournament whose commitment binds another value function than this arena's `q`:
    its adjusted results would not be the committed ones. One from before the commitment bound any (form 1)
    resumes as it began."""
    if record.value_function is not None and record.value_function != q:
        committed = record.value_function
        raise ArenaError(f"this tournament's commitment binds the value function {committed.name} (SHA-256 "
                         f"{committed.sha256}), and this seka-arena computes {q.name} (SHA-256 {q.sha256}): "
                         "its adjusted results would not be the committed ones; resume it with the seka-arena "
                         "version it began with")


def _standing_json(row: Standing, faults: Counter[str], reasons: Sequence[FaultReason],
                   launches: Sequence[float]) -> dict[str, Any]:
    return {
        "name": row.name,
        "rating": round(row.rating, 1),
        "ci_low": round(row.ci_low, 1),
        "ci_high": round(row.ci_high, 1),
        "rank_low": row.rank_low,
        "rank_high": row.rank_high,
        "sessions": row.sessions,
        "wins": row.wins,
        "win_share": format_amount(row.win_share),
        "chip_rate": format_amount(row.chip_rate),
        "chip_rate_float": round(float(row.chip_rate), 4),
        "chip_ci_low": round(row.chip_ci_low, 4),
        "chip_ci_high": round(row.chip_ci_high, 4),
        "faults": sum(faults.values()),
        "fault_kinds": dict(sorted(faults.items())),
        "fault_reasons": [{"kind": reason.kind, "reason": reason.reason, "count": reason.count,
                           "sessions": list(reason.sessions)} for reason in reasons],
        "sequential_elo": round(row.sequential_elo, 1),
        "los": {other: round(value, 4) for other, value in row.los.items()},
        "launch_to_ready_ms": None if not launches else {
            "median": round(statistics.median(launches), 1), "max": round(max(launches), 1), "launches": len(launches)},
    }


def pairwise_scores(records: Sequence[SessionRecord]) -> dict[tuple[str, str], tuple[Fraction, int, Amount]]:
    """For each ordered pair (a, b): a's score against b (ahead 1, level ½), sessions together, a's chips."""
    scores: dict[tuple[str, str], list[Any]] = defaultdict(lambda: [Fraction(0), 0, 0])
    for record in records:
        assert record.balances is not None
        for a in record.table:
            for b in record.table:
                if a == b:
                    continue
                entry = scores[(a, b)]
                difference = record.balances[a] - record.balances[b]
                entry[0] += 1 if difference > 0 else Fraction(1, 2) if difference == 0 else 0
                entry[1] += 1
                entry[2] += record.balances[a]
    return {pair: (entry[0], entry[1], entry[2]) for pair, entry in scores.items()}


def crosstable_csv(records: Sequence[SessionRecord], names: Sequence[str]) -> str:
    """Rows and columns in standings order; a cell is the row bot's score against the column bot."""
    scores = pairwise_scores(records)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["bot", *names])
    for a in names:
        cells = []
        for b in names:
            score = scores.get((a, b))
            cells.append("" if score is None else f"{float(score[0]):g}/{score[1]}")
        writer.writerow([a, *cells])
    return buffer.getvalue()
