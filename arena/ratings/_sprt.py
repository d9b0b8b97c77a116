"""Sequential probability ratio test (trinomial GSPRT, as Fishtest and cutechess) for `seka-arena sprt`."""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

from ._outcome import RatingError

# Half a pseudo-result in each class (win, draw, loss), a Jeffreys-style prior: the variance is never
# zero, one lucky result cannot decide, and an unbroken run of wins still ends the test.
_PSEUDO_RESULTS = 0.5


def _score_of(elo: float) -> float:
    # The expected score of a bot `elo` points stronger, on the logistic (400-point) scale.
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def pair_score(balances_a_first: Sequence[Fraction | int], balances_a_second: Sequence[Fraction | int]) -> float:
    """Score bot a on a heads-up duplicate pair: 1 if it gained chips over both sessions, ½ if even, 0 if not.

    Args:
        balances_a_first: the balances by seat of the session where a sat in seat 0.
        balances_a_second: the balances by seat of the session (same cards) where a sat in seat 1.

    >>> pair_score((5, -5), (-3, 3)), pair_score((5, -5), (5, -5))
    (1.0, 0.5)
    >>> from fractions import Fraction
    >>> pair_score((-4, 4), (Fraction(1, 2), Fraction(-1, 2)))
    0.0
    """
    for balances in (balances_a_first, balances_a_second):
        if len(balances) != 2:
            raise RatingError(f"a duplicate pair is scored heads-up: expected two balances, not {balances!r}")
    total = balances_a_first[0] + balances_a_second[1]
    return 1.0 if total > 0 else 0.5 if total == 0 else 0.0


class Sprt:
    """A GSPRT of H0: Elo = elo0 against H1: Elo = elo1, fed one result (1, ½ or 0) at a time.

    The log-likelihood ratio is Fishtest's trinomial approximation
    `N (s1 - s0) (2 m - s0 - s1) / (2 v)`, where m and v are the mean and variance of the scores
    so far and s0, s1 the expected scores at elo0 and elo1. Every class (win, draw, loss) starts
    with half a pseudo-result, so the variance is never zero: a single win cannot accept H1, yet
    a bot that wins every pair is accepted after a handful. Stop at the first decision:
    `decision` follows the current LLR.

    >>> test = Sprt(0, 10)
    >>> for score in [1] * 10 + [0.5] * 4 + [0] * 6:
    ...     test.record(score)
    >>> round(test.llr, 4), round(test.lower, 4), round(test.upper, 4), test.decision
    (0.1405, -2.9444, 2.9444, None)
    """

    def __init__(self, elo0: float, elo1: float, *, alpha: float = 0.05, beta: float = 0.05) -> None:
        if not elo0 < elo1:
            raise RatingError(f"elo0 must be below elo1, not {elo0!r} >= {elo1!r}")
        for name, value in (("alpha", alpha), ("beta", beta)):
            if not 0 < value < 1:
                raise RatingError(f"{name} must lie strictly between 0 and 1, not {value!r}")
        if not alpha + beta < 1:
            raise RatingError(f"alpha + beta must be below 1, not {alpha + beta!r}")
        self.elo0 = elo0
        """The Elo difference of the null hypothesis."""
        self.elo1 = elo1
        """The Elo difference of the alternative."""
        self.alpha = alpha
        """The chance of accepting H1 when H0 holds."""
        self.beta = beta
        """The chance of accepting H0 when H1 holds."""
        self.wins = 0
        """Results scored 1."""
        self.draws = 0
        """Results scored ½."""
        self.losses = 0
        """Results scored 0."""

    def __repr__(self) -> str:
        return (f"Sprt(elo0={self.elo0!r}, elo1={self.elo1!r}, alpha={self.alpha!r}, beta={self.beta!r}; "
                f"W-D-L {self.wins}-{self.draws}-{self.losses}, llr={self.llr:.3f})")

    def record(self, score: float | Fraction) -> None:
        """Add one result of the tested bot: 1 (win), ½ (draw) or 0 (loss)."""
        if score == 1:
            self.wins += 1
        elif score == Fraction(1, 2):
            self.draws += 1
        elif score == 0:
            self.losses += 1
        else:
            raise RatingError(f"a result must score 1, 1/2 or 0, not {score!r}")

    @property
    def games(self) -> int:
        """Results recorded."""
        return self.wins + self.draws + self.losses

    @property
    def lower(self) -> float:
        """Accept H0 once `llr <= lower = log(beta / (1 - alpha))`."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """Accept H1 once `llr >= upper = log((1 - beta) / alpha)`."""
        return math.log((1 - self.beta) / self.alpha)

    @property
    def llr(self) -> float:
        """The approximate generalised log-likelihood ratio of H1 over H0 (0 before any result)."""
        if not self.games:
            return 0.0
        wins, draws, losses = (count + _PSEUDO_RESULTS for count in (self.wins, self.draws, self.losses))
        n = wins + draws + losses
        mean = (wins + draws / 2) / n
        variance = (wins + draws / 4) / n - mean * mean
        s0, s1 = _score_of(self.elo0), _score_of(self.elo1)
        return n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * variance)

    @property
    def decision(self) -> str | None:
        """`"H1"` once `llr` reached `upper`, `"H0"` once it reached `lower`, else None."""
        llr = self.llr
        if llr >= self.upper:
            return "H1"
        if llr <= self.lower:
            return "H0"
        return None
