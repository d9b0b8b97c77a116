"""Chip rate, wins and faults per bot, with a bootstrap interval over duplicate blocks."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ._outcome import SessionOutcome
from ._resample import group_blocks, percentile, verify_bootstrap_options

# Resamples summed at once: their (resamples x a bot's blocks) matrices stay near 64 MiB each.
_BATCH_FLOATS = 1 << 23


@dataclass(frozen=True)
class ChipStats:
    """One bot's record over the sessions it played."""

    sessions: int
    """Sessions played."""
    wins: int
    """Sessions where the bot had the highest balance, shared top places included."""
    win_share: Fraction
    """Sum over sessions won of 1/k, where k bots shared the highest balance."""
    chip_rate: Fraction
    """Average balance per session relative to the table's mean balance (which is 0), exact."""
    ci_low: float
    """Lower end of the percentile-bootstrap interval of `chip_rate`."""
    ci_high: float
    """Upper end of the percentile-bootstrap interval of `chip_rate`."""
    faults: int
    """Faults summed over all sessions."""


def chip_rate(outcomes: Iterable[SessionOutcome], *, resamples: int = 1000, rng_seed: int = 0,
              confidence: float = 0.95) -> dict[str, ChipStats]:
    """Each bot's sessions, wins, faults and average balance per session, with a block bootstrap.

    The chip rate is the average over a bot's sessions of its balance minus the table's mean
    balance; balances sum to zero, so that mean is 0 and the chip rate is the plain average
    balance. The interval resamples duplicate blocks (in block-id order, drawn with replacement by
    numpy's PCG64 seeded by `rng_seed`: `integers(0, blocks, size=blocks)` for each resample in turn);
    in each resample a bot's rate is its total balance over its total sessions, and resamples that
    happen to hold none of its sessions are skipped. Every resample is summed at once with numpy.

    Returns:
        Statistics by bot name, in name order.

    >>> from fractions import Fraction
    >>> sessions = [SessionOutcome(("a", "b", "c"), (4, -2, -2), "s1", faults={"c": 1}),
    ...             SessionOutcome(("a", "b"), (Fraction(-1, 2), Fraction(1, 2)), "s2"),
    ...             SessionOutcome(("b", "c"), (0, 0), "s3")]
    >>> stats = chip_rate(sessions, resamples=100)
    >>> stats["a"].chip_rate, stats["b"].wins, stats["b"].win_share, stats["c"].faults
    (Fraction(7, 4), 2, Fraction(3, 2), 1)
    """
    verify_bootstrap_options(resamples=resamples, confidence=confidence)
    blocks = group_blocks(outcomes)
    played: dict[str, int] = {}
    won: dict[str, int] = {}
    share: dict[str, Fraction] = {}
    total: dict[str, Fraction] = {}
    faults: dict[str, int] = {}
    # Per bot: the blocks it played in, and its balance and sessions in each.
    in_blocks: dict[str, list[int]] = {}
    block_balance: dict[str, list[float]] = {}
    block_sessions: dict[str, list[float]] = {}
    for b, block in enumerate(blocks):
        balance_here: dict[str, Fraction] = {}
        sessions_here: dict[str, int] = {}
        for outcome in block:
            top = max(outcome.balances)
            sharing = sum(balance == top for balance in outcome.balances)
            table_mean = Fraction(sum(outcome.balances), len(outcome.balances))  # always 0
            for bot, balance in zip(outcome.bots, outcome.balances, strict=True):
                relative = balance - table_mean
                played[bot] = played.get(bot, 0) + 1
                total[bot] = total.get(bot, Fraction(0)) + relative
                balance_here[bot] = balance_here.get(bot, Fraction(0)) + relative
                sessions_here[bot] = sessions_here.get(bot, 0) + 1
                if balance == top:
                    won[bot] = won.get(bot, 0) + 1
                    share[bot] = share.get(bot, Fraction(0)) + Fraction(1, sharing)
                faults[bot] = faults.get(bot, 0) + outcome.faults.get(bot, 0)
        for bot in sorted(balance_here):
            in_blocks.setdefault(bot, []).append(b)
            block_balance.setdefault(bot, []).append(float(balance_here[bot]))
            block_sessions.setdefault(bot, []).append(float(sessions_here[bot]))

    bots = sorted(played)
    low_q, high_q = (1 - confidence) / 2, (1 + confidence) / 2
    rates = _resampled_rates([in_blocks[bot] for bot in bots], [block_balance[bot] for bot in bots],
                             [block_sessions[bot] for bot in bots], blocks=len(blocks), resamples=resamples,
                             rng_seed=rng_seed)
    result = {}
    for bot, drawn in zip(bots, rates, strict=True):
        ordered = sorted(drawn.tolist())
        low, high = (percentile(ordered, low_q), percentile(ordered, high_q)) if ordered else (math.nan, math.nan)
        result[bot] = ChipStats(sessions=played[bot], wins=won.get(bot, 0), win_share=share.get(bot, Fraction(0)),
                                chip_rate=total[bot] / played[bot], ci_low=low, ci_high=high,
                                faults=faults[bot])
    return result


def _resampled_rates(in_blocks: Sequence[Sequence[int]], balances: Sequence[Sequence[float]],
                     sessions: Sequence[Sequence[float]], *, blocks: int, resamples: int,
                     rng_seed: int) -> list[np.ndarray]:
    # Each bot's rate in each resample that holds one of its sessions: `blocks` block numbers drawn with
    # replacement per resample (numpy's PCG64 seeded by `rng_seed`, resamples in order), counted, and each
    # bot's balances and sessions summed over its blocks by those counts, a batch of resamples at once.
    starts = np.cumsum([0] + [len(mine) for mine in in_blocks[:-1]])
    entry_block = np.concatenate([np.asarray(mine, dtype=np.intp) for mine in in_blocks])
    entry_balance = np.concatenate([np.asarray(mine, dtype=np.float64) for mine in balances])
    entry_sessions = np.concatenate([np.asarray(mine, dtype=np.float64) for mine in sessions])
    rng = np.random.Generator(np.random.PCG64(rng_seed))
    batch = max(1, _BATCH_FLOATS // max(blocks, entry_block.size))
    totals, counts_of = [], []
    for first in range(0, resamples, batch):
        rows = min(batch, resamples - first)
        drawn = rng.integers(0, blocks, size=(rows, blocks))
        counts = np.bincount((drawn + blocks * np.arange(rows)[:, None]).ravel(), minlength=rows * blocks)
        picked = counts.reshape(rows, blocks)[:, entry_block].astype(np.float64)
        totals.append(np.add.reduceat(picked * entry_balance, starts, axis=1))
        counts_of.append(np.add.reduceat(picked * entry_sessions, starts, axis=1))
    balance, played = np.concatenate(totals), np.concatenate(counts_of)
    return [balance[played[:, bot] > 0, bot] / played[played[:, bot] > 0, bot] for bot in range(len(in_blocks))]
