"""`seka-arena sprt`: a new bot against an old one in heads-up duplicate pairs until the SPRT decides."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import trio

from ..engine import Rules
from ..history import write_history, write_resources
from ..match import public_session_id, run_session, session_key
from ..ratings import Sprt, pair_score, session_terms
from ..transport import BotSpec


@dataclass(frozen=True)
class PairResult:
    number: int
    score: float
    """The new bot's score on the pair: 1, ½ or 0."""
    chips: object
    """The new bot's net chips over both sessions."""
    adjusted: object = None
    """With `adjusted`: the new bot's adjusted result over both sessions, which the score was given on."""


async def run_sprt(new: BotSpec, old: BotSpec, *, rules: Rules, sprt: Sprt, seed: str, max_pairs: int,
                   concurrency: int, out: Path, on_pair: Callable[[PairResult, Sprt], None],
                   adjusted: bool = False) -> Sprt:
    """Play pairs (same cards, seats swapped) until `sprt.decision` or `max_pairs`; returns the test.

    Pairs run `concurrency` at a time and are recorded in the order they finish; no new pair is
    started once the test has decided. With `adjusted`, a pair is scored on the sessions' adjusted
    results (docs/ratings.md) less their svara re-deal and decision terms; the deal control variate is
    left out because on a heads-up pair, the same deals with the seats swapped, it cancels exactly.
    """
    limiter = trio.Semaphore(concurrency)
    key = session_key()  # the bots learn neither the pair nor the mirror they play

    async def pair(number: int, cancel: trio.CancelScope) -> None:
        async with limiter:
            if sprt.decision is not None:
                return
            pair_seed = f"{seed}-pair-{number}"
            balances = []
            known = []
            for mirror, seating in enumerate(((new, old), (old, new))):
                session_id = f"p{number:04d}-{mirror}"
                result = await run_session(rules, list(seating), seed=pair_seed, session_id=session_id,
                                           public_id=public_session_id(key, session_id),
                                           log_dir=out / "logs" / session_id, hidden=[out / "histories"])
                write_resources(write_history(out / "histories" / f"{session_id}.jsonl", result.events),
                                result.resources())
                balances.append(result.balances)
                if adjusted:
                    known.append(session_terms(rules, result.events).known)
        if sprt.decision is not None:
            return
        scored = known if adjusted else balances
        score = pair_score(scored[0], scored[1])
        sprt.record(score)
        on_pair(PairResult(number, score, balances[0][0] + balances[1][1],
                           scored[0][0] + scored[1][1] if adjusted else None), sprt)
        if sprt.decision is not None:
            cancel.cancel()

    async with trio.open_nursery() as nursery:
        for number in range(1, max_pairs + 1):
            nursery.start_soon(pair, number, nursery.cancel_scope)
    return sprt
