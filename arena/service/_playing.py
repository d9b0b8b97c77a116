"""Where the ladder's and the challenges' sessions are played: in the ladder's process, or on a Dask cluster.

Theory of operation: each session is handed over as an `arena.executor.SessionJob` and comes back
as a `JobOutcome`, played by the executor's own function: `play_job` in the ladder's process when
the service file names no `cluster:`, else a `DaskExecutor` that plays it with the same function on
a worker (`play_on_worker`) of the service's cluster (`local:N`, started by the ladder's process on
loopback with mutual TLS, or `tls://HOST:PORT` with the service's certificates). Either way the
workers write nothing of the service's: the outcome carries the history's bytes, its resources and,
from a worker, the bots' logs, and `write_files` writes them here, before the caller stores the
result; the service's store has one writer, the ladder's process. A worker lost with its session
(killed, its machine gone) is the executor's to replay from the session's seed on another worker
(attempt + 1, `arena.executor` retries up to its `MAX_ATTEMPTS`): the lost attempt never reaches
the store or a bot's faults. Past that, the play raises, as an arena's failure does, and the
ladder retries the block (`_ladder`).
"""

from __future__ import annotations

from pathlib import Path
from types import TracebackType

from ..engine import ArenaError
from ..executor import DaskExecutor, JobOutcome, SessionJob, play_job
from ..history import write_resources
from ..storage import write_atomically
from ._service import Service


class SessionPlayer:
    """Plays the ladder's and challenges' sessions here or on the service's cluster; entered for the ladder's run."""

    def __init__(self, service: Service) -> None:
        config = service.config
        self.service = service
        self.executor = None if config.cluster is None else DaskExecutor(
            config.cluster, isolation=service.isolation, concurrency=config.ladder.concurrency,
            certificates=config.cluster_certificates)
        """The cluster's executor, or None: sessions are played in this process."""

    async def __aenter__(self) -> SessionPlayer:
        if self.executor is not None:
            await self.executor.__aenter__()
        return self

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None,
                        traceback: TracebackType | None) -> None:
        if self.executor is not None:
            await self.executor.__aexit__(kind, error, traceback)

    def blocks_in_flight(self) -> int:
        """Blocks the ladder plays at once: `ladder.concurrency`, else one here, or on a cluster one per thread of
        its workers (counted as the ladder connects: a cluster that grows later is used once serve restarts).

        A cluster is there to play sessions side by side: one block at a time (the default here, where the
        bots share this machine with the web) would leave all its workers but one idle.
        """
        if (concurrency := self.service.config.ladder.concurrency) is not None:
            return concurrency
        return 1 if self.executor is None else self.executor.limit

    def describe(self) -> str:
        """Where sessions are played, for the service's output."""
        return "in the ladder's process" if self.executor is None else self.executor.describe()

    async def play(self, job: SessionJob, *, folder: Path, live: Path | None = None) -> JobOutcome:
        """Play `job` to its end: here (the bots' logs to `folder/logs/ID`, the history appended to `live` as
        it is played), or on the cluster (the logs in the outcome; nothing is appended as it is played)."""
        if self.executor is None:
            return await play_job(job, log_dir=folder / "logs" / job.session_id,
                                  hidden=self.service.registry.folder.hidden(), live=live)
        await self.executor.prepare(job.bots)  # each version's bundle shipped once, the first time it plays
        return await self.executor.play(job)


def write_files(outcome: JobOutcome, folder: Path) -> Path:
    """Write a played session's files under `folder`: the bots' logs a worker sent back (`logs/ID/`), the
    history (`histories/ID.jsonl`, once: never replaced) and its resources file; the history's path.

    Raises:
        ArenaError: a worker sent back a log file whose name is not a plain `*.log` name.
    """
    for name, data in outcome.logs.items():
        if Path(name).name != name or not name.endswith(".log"):
            raise ArenaError(f"session {outcome.session_id}: a worker returned the log file {name!r}, "
                             "not a *.log name")
        write_atomically(folder / "logs" / outcome.session_id / name, data)
    history = write_atomically(folder / "histories" / f"{outcome.session_id}.jsonl", outcome.history, once=True)
    write_resources(history, outcome.resources)
    return history

