"""The standings' adjusted chip rate: every finished session's history replayed for its terms of known mean
zero (docs/ratings.md, "Adjusted results"), and each bot's chip rate over the adjusted balances."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..history import read_history
from ..ratings import ChipStats, SessionOutcome, adjust, chip_rate, session_terms
from ..replay import replay_records
from ..storage import SessionRecord, SessionStatus


def adjusted_chip_rates(folder: Path, sessions: Sequence[SessionRecord], *, resamples: int = 1000,
                        rng_seed: int = 0) -> dict[str, ChipStats]:
    """Each bot's chip rate and interval over its sessions' adjusted balances (the same block bootstrap as the
    raw chip rate's, `arena.ratings.chip_rate`); the raw results stay what the standings show beside it.

    A history that does not replay (`replay` says why) stops the report: its results cannot be trusted either.
    """
    played = []
    for record in sessions:
        if record.status is not SessionStatus.FINISHED or record.history_path is None:
            continue
        path = folder / record.history_path
        state = replay_records(read_history(path), path=str(path)).state
        terms = session_terms(state.rules, state.events)
        played.append((SessionOutcome(state.bots, terms.raw, record.block), terms))
    return chip_rate(adjust(played), resamples=resamples, rng_seed=rng_seed)
