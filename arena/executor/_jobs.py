"""Session jobs and their outcomes: what a driver hands an executor, and what comes back.

Theory of operation: a `SessionJob` holds everything needed to play one session and nothing of
the driver's (no store, no open file, no results folder), so it can be pickled to a worker on
another machine; a `JobOutcome` holds everything the driver stores of the session (exact
balances, winners, each seat's telemetry and faults, the history's bytes, the bots' logs when they
were written elsewhere) and who played it (attempt, worker). The driver alone writes the store and
the files: whoever plays a job only returns its outcome, so a job played twice (a retry, a lost
result) can be stored once.

A job's rules are pickled as their profile's name, options and table settings, not with the
profile's hand-value table (a third of a megabyte): the worker looks the profile up in its own arena.
"""

from __future__ import annotations

import contextlib
import dataclasses
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..engine import Amount, Fault, Rules, RulesError, profile
from ..history import history_text, live_history
from ..match import SeatReport, run_session
from ..transport import BotPool, BotSpec


@dataclass(frozen=True)
class SessionJob:
    """One session to play: who sits where, with which deals, under which limits and isolation."""

    session_id: str
    """The internal id (`s0001`): histories, logs and the store use it; bots never see it."""
    seed: str
    """The deal seed (hex): every deal of the session comes from it, so a replay deals the same cards."""
    public_id: str
    """The id bots are told (`arena.match.public_session_id`)."""
    rules: Rules
    bots: tuple[BotSpec, ...]
    """Seat order; each with its limits and isolation level."""
    bundles: tuple[str | None, ...] = ()
    """Per seat, the SHA-256 of the bot's bundle where the bot is shipped to a worker (see
    `arena.executor.pack_bundle`); empty, or None for a seat, where it runs from its own folder."""
    attempt: int = 1
    """1 for the first time the driver hands the session out, 2 after a lost worker, ..."""
    last_of_block: bool = False
    """No later session of the run deals from `seed`: only then may its bot processes stay warm
    after it (`bot_processes: reuse`; see `arena.transport.BotPool`)."""

    def __reduce__(self) -> tuple[Any, ...]:
        # Rules travel as their profile's name and table settings (see the module docstring), when
        # the profile of that name has the same hand values; whole otherwise.
        values = {item.name: getattr(self, item.name) for item in dataclasses.fields(self) if item.name != "rules"}
        options = dict(self.rules.options)
        try:
            registered = profile(self.rules.name, options).evaluator is self.rules.evaluator
        except RulesError:
            registered = False
        if not registered:
            return (_whole_job, (values, self.rules))
        return (_job, (values, self.rules.name, options, _table_settings(self.rules)))


def _table_settings(rules: Rules) -> dict[str, Any]:
    return {item.name: getattr(rules, item.name) for item in dataclasses.fields(rules)
            if item.name not in ("name", "evaluator")}


def _whole_job(values: dict[str, Any], rules: Rules) -> SessionJob:
    return SessionJob(rules=rules, **values)


def _job(values: dict[str, Any], profile_name: str, options: dict[str, Any], settings: dict[str, Any]) -> SessionJob:
    return SessionJob(rules=profile(profile_name, options).with_table(**settings), **values)


@dataclass(frozen=True)
class JobOutcome:
    """A played session, as the driver stores it; picklable, so a worker can send it back."""

    session_id: str
    balances: tuple[Amount, ...]
    """Net chips per seat, exact."""
    winners: tuple[int, ...]
    """Seats with the highest balance."""
    seats: tuple[SeatReport, ...]
    """Each seat's telemetry, faults and, for a bot that failed for good, how."""
    history: bytes
    """The hand history, JSON Lines (`arena.history`), as the driver writes it."""
    attempt: int
    """The job's attempt that produced this outcome."""
    worker: str
    """Who played it: `local`, or the Dask worker's address."""
    seconds: float
    """Wall time from the first bot's launch to the last one's stop."""
    logs: Mapping[str, bytes] = field(default_factory=dict)
    """The bots' log files by file name, when they were written on another machine (empty when
    they were written in place, in the results folder)."""
    resources: tuple[Mapping[str, Any], ...] = ()
    """The records of the history's resources file: what each decision cost, each bot's peak memory
    (`arena.history.write_resources`)."""

    @property
    def crashed(self) -> list[str]:
        """The bots that crashed for good in this session."""
        return [seat.bot for seat in self.seats if seat.dead_kind is Fault.CRASH]

    def bots_cpu(self) -> float:
        """Seconds of CPU the session's bots used, from launch to stop."""
        return sum(seat.telemetry.get("cpu_ms") or 0 for seat in self.seats) / 1000


async def play_job(job: SessionJob, *, log_dir: Path, hidden: Sequence[Path] = (), worker: str = "local",
                   logs_back: bool = False, pool: BotPool | None = None, live: Path | None = None) -> JobOutcome:
    """Launch the job's bots, play the session and stop them; the outcome, with the history's bytes.

    Args:
        log_dir: where the bots' stdout and stderr go.
        hidden: what no sandboxed bot may be shown (see `arena.match.run_session`).
        worker: how the outcome names who played it.
        logs_back: read the log files into the outcome (a worker on another machine).
        pool: lease the bots from this pool (launched for the session, or warm) instead.
        live: append the history to this file as it is played (`arena.history.live_history`).
    """
    started = time.monotonic()
    with live_history(live) if live is not None else contextlib.nullcontext(None) as on_events:
        result = await run_session(job.rules, job.bots, seed=job.seed, session_id=job.session_id,
                                   public_id=job.public_id, log_dir=log_dir, hidden=hidden, pool=pool,
                                   last_of_block=job.last_of_block, on_events=on_events)
    logs = {path.name: path.read_bytes() for path in sorted(log_dir.glob("*.log"))} if logs_back else {}
    return JobOutcome(session_id=job.session_id, balances=result.balances, winners=result.winners,
                          seats=result.seats, history=history_text(result.events).encode("ascii"),
                          attempt=job.attempt, worker=worker, seconds=time.monotonic() - started, logs=logs,
                          resources=tuple(result.resources()))
