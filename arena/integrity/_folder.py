"""The collusion report of a tournament's results folder: every finished session's history, replayed."""

from __future__ import annotations

from pathlib import Path

from ..history import HistoryError
from ..replay import replay_file
from ..storage import SessionStatus, Store
from ._collusion import Aggregate, CollusionReport, report_of
from ._evidence import session_evidence


def folder_collusion(path: str | Path, *, alpha: float = 0.01) -> CollusionReport:
    """Replay every finished session of a results folder (read-only) and test every pair of its bots.

    Raises:
        StorageError: the results file cannot be read.
        HistoryError: a history does not replay (`seka-arena replay --results` says more).
    """
    given = Path(path)
    database = given / "tournament.sqlite" if given.is_dir() else given
    with Store.open(database, read_only=True) as store:
        sessions = [s for s in store.sessions() if s.status is SessionStatus.FINISHED]
    aggregate = Aggregate()
    blocks: dict[str, list[str]] = {}
    for session in sessions:
        blocks.setdefault(session.block, []).append(session.id)
    by_id = {session.id: session for session in sessions}
    for block in sorted(blocks):
        mirrors = []
        for session_id in blocks[block]:
            record = by_id[session_id]
            if record.history_path is None:
                raise HistoryError(str(database), 0, f"{record.id}: finished, but the store names no history")
            state = replay_file(database.parent / record.history_path).state
            mirrors.append(session_evidence(state.events, state.rules.evaluator, session=record.id, block=block))
        aggregate.add_block(mirrors)
    return report_of(aggregate, alpha=alpha)
