"""Duplicate blocks as the rating bootstrap sees them: each distinct block's pairwise results, counted."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from fractions import Fraction

from ._bradley_terry import pairwise
from ._outcome import RatingError, SessionOutcome

BlockResults = tuple[tuple[str, str, Fraction, Fraction], ...]
"""One block's pairwise results: `(a, b, score of a, weight)` per pair `a < b` of each of its sessions, sorted."""


class BlockTally:
    """Blocks tallied as their sessions arrive, identical blocks kept once with their count.

    Two blocks whose sessions scored the same pairwise results (in any order) are the same to the
    Bradley–Terry fit and to a block bootstrap (drawing n blocks with replacement draws each kind a
    multinomial number of times), so memory and the bootstrap's cost grow with the kinds of block,
    not with the sessions: a heads-up ladder of two mirrors per block has at most 6 kinds per pair of
    bots. Kinds are kept as their sessions' results, not summed, so that tallying a session is no
    exact arithmetic. The sessions of a block must arrive together (as the ladder stores and reads
    them).

    >>> tally = BlockTally()
    >>> for block, balances in (("b1", (2, -2)), ("b1", (-1, 1)), ("b2", (5, -5)), ("b2", (-3, 3))):
    ...     tally.add(SessionOutcome(("x", "y"), balances, block))
    >>> tally.add(SessionOutcome(("y", "x"), (3, -3), "b3")); tally.add(SessionOutcome(("x", "y"), (-1, 1), "b3"))
    >>> sorted(tally.kinds().values()), tally.blocks
    ([1, 2], 3)
    """

    def __init__(self) -> None:
        self._kinds: Counter[BlockResults] = Counter()
        self._block: str | None = None
        self._open: list[tuple[str, str, Fraction, Fraction]] = []
        self._closed: set[str] = set()
        self.blocks = 0
        """Blocks tallied (the open one included)."""

    def add(self, outcome: SessionOutcome) -> None:
        """Tally one session.

        Raises:
            RatingError: the session's block was tallied already, with other sessions between.
        """
        if outcome.block != self._block:
            self._close()
            if outcome.block in self._closed:
                raise RatingError(f"the sessions of block {outcome.block!r} do not arrive together")
            self._block = outcome.block
            self.blocks += 1
        self._open.extend(pairwise(outcome))

    def add_kind(self, results: BlockResults, count: int) -> None:
        """Tally `count` whole blocks of one kind at once (kinds kept elsewhere: the service's store)."""
        if count < 1:
            raise RatingError(f"a kind of block is counted {count} times")
        self._kinds[results] += count
        self.blocks += count

    def kinds(self) -> Counter[BlockResults]:
        """How many blocks had each pairwise result (the block being tallied included)."""
        self._close()
        return Counter(self._kinds)

    def _close(self) -> None:
        if self._block is not None:
            self._kinds[tuple(sorted(self._open))] += 1  # as `block_results` of the block's sessions
            self._closed.add(self._block)
            self._block = None
            self._open = []


def block_results(outcomes: Iterable[SessionOutcome]) -> BlockResults:
    """One block's kind: its sessions' pairwise results, as `BlockTally` keys them (any order of sessions)."""
    return tuple(sorted(entry for outcome in outcomes for entry in pairwise(outcome)))


def tally_blocks(outcomes: Iterable[SessionOutcome]) -> BlockTally:
    """The blocks of `outcomes`, in any order (they are grouped by block first).

    Raises:
        RatingError: no sessions.
    """
    ordered = sorted(outcomes, key=lambda outcome: outcome.block)
    if not ordered:
        raise RatingError("no sessions to rate")
    tally = BlockTally()
    for outcome in ordered:
        tally.add(outcome)
    return tally
