"""Collusion measures over many sessions: per ordered pair of bots, five one-sided tests; three flag.

Theory of operation (docs/integrity.md). For a giver A and a receiver B:

- soft play: does A fold more heads-up against B than heads-up against others with the same hand?
  Strata by hindsight equity (A holds the better hand of the two, or not), whether B had paid in
  the deal before the decision, the deal's last payment, and A's hand strength.
  The Mantel–Haenszel score (observed minus expected folds against B, over the variance of the
  hypergeometric tables) is normal under "A folds alike whoever it faces". A soft player folds
  winners to its partner; a card-sharer folds to its partner's better hands, which it sees and
  others do not. Only heads-up decisions count: a fold among several has no one addressee.
- soft raise: does A, holding the better hand heads-up, stay in without raising more often against B
  than against others (a passive colluder pays its partner the least)? The same strata and score,
  over A's stays with the better hand.
- chip dumping: does A, holding the worse hand heads-up, stay in (call or raise) more often against
  B than against others (a dumper pays into its partner's winners)? Over A's decisions with the worse
  hand. Each of the three compares B with each of A's most-met other opponents (`_COMPARISONS`) and
  keeps the weakest comparison (an intersection-union test), its variance counting a deal once.
- chip flow: chips A lost to B in pots where A was dealt the stronger of the two hands, per pot
  both were dealt in, against the same for A and every other opponent (Welch's z). Earned flow
  (the better hand winning) is left out, so skill at reading hands weighs little.
- duplicate-paired: for each pot both were dealt in, the chips A lost to B less the chips the same
  two hands moved in the block's other mirrors (other bots held them), against the same for A
  and every other opponent (Welch's z): the deal's luck cancels, as in duplicate scoring.

Each test with too few observations gives p = 1. Only soft play, soft raise and chip dumping flag
(`FLAGGING`): their p-values over every ordered pair are corrected together by Holm's step-down
method, which keeps the family-wise error rate (the chance of flagging any honest pair) at most
`alpha` whatever the tests' dependence. The two flow tests (`EVIDENCE_ONLY`) are reported as
evidence with their z, p and a Holm-adjusted p over every pair, each test on its own, and never
flag: their normal null is not calibrated (honest bots' styles interact, so honest pairs reach
large z; docs/integrity.md has the measured shares).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from statistics import NormalDist

from ._evidence import Decision, SessionEvidence

_NORMAL = NormalDist()
_MIN_SAMPLES = 20
"""Observations each side (or concerned decisions) below which a test says nothing (p = 1)."""
_EVIDENCE = 10
"""Evidence items kept per test: the largest contributions."""
_COMPARISONS = 5
"""Other opponents a flagging test compares the receiver with: the giver's most met."""

_Deal = tuple[str, int]
"""A deal: the session and the event index of its cards."""
_Cell = tuple[int, bool, Fraction, int]
"""A soft-play stratum: (1 if the giver's hand is the better else 0, whether the opponent had paid, the deal's
last payment, strength)."""

TESTS = ("soft_play", "soft_raise", "chip_dumping", "chip_flow", "duplicate_paired")
"""The tests run on every ordered pair, in report order."""
FLAGGING = ("soft_play", "soft_raise", "chip_dumping")
"""The tests whose Holm-adjusted p-values flag a pair, corrected together (docs/integrity.md)."""
EVIDENCE_ONLY = tuple(test for test in TESTS if test not in FLAGGING)
"""The tests that never flag (their null is not calibrated), each Holm-corrected over the pairs on its own."""


@dataclass(frozen=True)
class Evidence:
    """Where a test's signal comes from: a session and the event index (line - 1) in its history."""

    session: str
    index: int
    what: str


@dataclass(frozen=True)
class PairTest:
    """One test of one ordered pair (giver, receiver)."""

    giver: str
    receiver: str
    test: str
    statistic: float
    """The z-score (positive: towards collusion)."""
    p_value: float
    """One-sided, uncorrected."""
    adjusted: float | None = None
    """Holm-adjusted over the test's family: the flagging tests of every pair together; an evidence-only test
    (`EVIDENCE_ONLY`) over every pair on its own. None before `report_of` corrects it."""
    observations: int = 0
    evidence: tuple[Evidence, ...] = field(default=(), compare=False)

    def as_json(self) -> dict[str, object]:
        return {"giver": self.giver, "receiver": self.receiver, "test": self.test,
                "z": round(self.statistic, 3), "p": self.p_value, "p_holm": self.adjusted,
                "flags": self.test in FLAGGING,
                "observations": self.observations,
                "evidence": [{"session": e.session, "event": e.index, "what": e.what} for e in self.evidence]}


@dataclass(frozen=True)
class CollusionReport:
    """Every pair's tests and the flagged pairs."""

    alpha: float
    tests: tuple[PairTest, ...]
    shared_sessions: dict[tuple[str, str], int]
    """Sessions each unordered pair (names in order) sat in together."""

    @property
    def flagged(self) -> tuple[PairTest, ...]:
        """The flagging tests (`FLAGGING`) whose Holm-adjusted p-value is at most `alpha`, strongest first."""
        flagged = [t for t in self.tests if t.test in FLAGGING and t.adjusted is not None and t.adjusted <= self.alpha]
        return tuple(sorted(flagged, key=lambda t: (t.adjusted or 0.0, t.giver, t.receiver)))

    @property
    def flagged_pairs(self) -> set[frozenset[str]]:
        return {frozenset((t.giver, t.receiver)) for t in self.flagged}

    def as_json(self) -> dict[str, object]:
        return {"alpha": self.alpha, "tests_run": len(self.tests),
                "pairs": len(self.shared_sessions),
                "flagged": [t.as_json() for t in self.flagged],
                "tests": [t.as_json() for t in self.tests]}


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values (each at most 1, monotone in the p-values' order).

    >>> holm([0.01, 0.04, 0.03])
    [0.03, 0.06, 0.06]
    """
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    adjusted = [1.0] * len(p_values)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(p_values) - rank) * p_values[i]))
        adjusted[i] = round(running, 15)
    return adjusted


def _upper(z: float) -> float:
    return 1.0 - _NORMAL.cdf(z) if z < 8 else math.erfc(z / math.sqrt(2)) / 2


@dataclass
class _Moments:
    # Count, sum and sum of squares: a mean and variance that subtract (all of a giver's less one pair's).
    count: int = 0
    total: float = 0.0
    squares: float = 0.0

    def add(self, value: float) -> None:
        self.count += 1
        self.total += value
        self.squares += value * value

    def minus(self, other: _Moments) -> _Moments:
        return _Moments(self.count - other.count, self.total - other.total, self.squares - other.squares)

    def mean(self) -> float:
        return self.total / self.count

    def variance(self) -> float:
        return max(0.0, (self.squares - self.total * self.total / self.count) / (self.count - 1))


@dataclass
class _Counts:
    # Decisions, folds and raises.
    decisions: int = 0
    folds: int = 0
    raises: int = 0


@dataclass
class _Flows:
    # A test's moments per ordered pair and per giver, by the giver's hand strength, and the pair's
    # largest items as evidence.
    top: defaultdict[tuple[str, str], list[tuple[float, str, int]]] = field(default_factory=lambda: defaultdict(list))
    strata: defaultdict[tuple[str, str, int], _Moments] = field(default_factory=lambda: defaultdict(_Moments))
    giver_strata: defaultdict[tuple[str, int], _Moments] = field(default_factory=lambda: defaultdict(_Moments))

    def add(self, key: tuple[str, str], value: float, session: str, index: int, stratum: int) -> None:
        self.strata[(*key, stratum)].add(value)
        self.giver_strata[(key[0], stratum)].add(value)
        if value > 0:
            top = self.top[key]
            top.append((value, session, index))
            if len(top) > 4 * _EVIDENCE:
                top.sort(key=lambda row: -row[0])
                del top[_EVIDENCE:]


@dataclass
class Aggregate:
    """Sessions aggregated per ordered pair (giver, receiver) for the three tests (`collect`)."""

    exposed: defaultdict[tuple[str, str], defaultdict[_Cell, defaultdict[_Deal, _Counts]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(lambda: defaultdict(_Counts))))
    """By (giver, receiver), then stratum (`_Cell`), then deal: the giver's heads-up decisions against the
    receiver (by deal, as a deal's decisions are not independent: a bot that raises keeps raising)."""
    kept: defaultdict[tuple[str, str, str], defaultdict[_Cell, list[Evidence]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(list)))
    """By (giver, receiver, flagging test), then stratum: the first decisions the test counts, as evidence."""
    unearned: _Flows = field(default_factory=_Flows)
    paired: _Flows = field(default_factory=_Flows)
    shared: defaultdict[tuple[str, str], int] = field(default_factory=lambda: defaultdict(int))

    def add_block(self, mirrors: Sequence[SessionEvidence]) -> None:
        """Add the sessions of one block (the paired test compares a block's mirrors)."""
        _collect_block(self, mirrors)


def collect(sessions: Iterable[SessionEvidence]) -> Aggregate:
    """Aggregate sessions, grouped by block."""
    pairs = Aggregate()
    by_block: dict[str, list[SessionEvidence]] = defaultdict(list)
    for evidence in sessions:
        by_block[evidence.block].append(evidence)
    for block in sorted(by_block):
        pairs.add_block(by_block[block])
    return pairs


def _collect_block(pairs: Aggregate, mirrors: Sequence[SessionEvidence]) -> None:
    # The chips each pair of hands (by their cards) moved in each mirror, for the paired test.
    moved: dict[tuple[int, tuple[str, ...], tuple[str, ...]], list[float]] = defaultdict(list)
    for evidence in mirrors:
        for pot in evidence.pots:
            for a in pot.hands:
                for b in pot.hands:
                    if a != b:
                        moved[(pot.pot, pot.hands[a], pot.hands[b])].append(pot.flow.get((a, b), 0.0))
    for evidence in mirrors:
        bots = evidence.bots
        for x in range(len(bots)):
            for y in range(x + 1, len(bots)):
                pairs.shared[(min(bots[x], bots[y]), max(bots[x], bots[y]))] += 1
        for d in evidence.decisions:
            me = bots[d.seat]
            # Who a decision concerns is clear only heads-up (the one opponent left): a fold among
            # several could be meant for any of them, and a colluder's folds for its partner would
            # be charged to whoever else is in (flagging honest bots), so those are not counted.
            if len(d.in_deal) != 2:
                continue
            stratum = int(d.winning)
            for seat in d.in_deal:
                if seat == d.seat:
                    continue
                key = (me, bots[seat])
                cell = (stratum, d.facing, d.price, d.strength)
                counts = pairs.exposed[key][cell][(evidence.session, d.deal)]
                counts.decisions += 1
                counts.folds += d.folded
                counts.raises += d.raised
                for test in FLAGGING:
                    what = _counted(test, d)
                    kept = pairs.kept[(*key, test)][cell]
                    if what and len(kept) < _EVIDENCE:
                        kept.append(Evidence(evidence.session, d.index, what))
        for pot in evidence.pots:
            for a in pot.hands:
                for b in pot.hands:
                    if a == b:
                        continue
                    key = (bots[a], bots[b])
                    lost = pot.flow.get((a, b), 0.0)
                    pairs.unearned.add(key, lost if pot.stronger[(a, b)] else 0.0, evidence.session, pot.index,
                                       pot.strengths[a])
                    same = moved[(pot.pot, pot.hands[a], pot.hands[b])]
                    if len(same) > 1:
                        elsewhere = (math.fsum(same) - lost) / (len(same) - 1)
                        pairs.paired.add(key, lost - elsewhere, evidence.session, pot.index, pot.strengths[a])


def _counted(test: str, d: Decision) -> str:
    # What a flagging test counts of a heads-up decision, as evidence text ("": not counted).
    hand = f"the {'better' if d.winning else 'worse'} hand of strength {d.strength} heads-up" + (
        ", facing a bet" if d.facing else "")
    if test == "soft_play":
        return f"folded {hand}" if d.folded else ""
    if test == "soft_raise":
        return f"stayed in without raising, holding {hand}" if d.winning and not d.folded and not d.raised else ""
    if not d.winning and not d.folded:
        return f"{'raised' if d.raised else 'stayed in'} holding {hand}"
    return ""


_Table = dict[_Cell, tuple[int, int, dict[_Deal, tuple[int, int]]]]
"""A flagging test's view of a giver's decisions against one opponent: by stratum, the decisions it reads and
the ones it counts, in all and by deal."""


def _table(test: str, cells: Mapping[_Cell, Mapping[_Deal, _Counts]]) -> _Table:
    # soft play counts folds among all decisions; soft raise, stays without a raise among the better
    # hand's stays; chip dumping, stays among the worse hand's decisions.
    table: _Table = {}
    for cell, deals in cells.items():
        if (test == "soft_raise" and not cell[0]) or (test == "chip_dumping" and cell[0]):
            continue
        by_deal = {}
        for deal, c in deals.items():
            read, counted = ((c.decisions, c.folds) if test == "soft_play" else
                             (c.decisions - c.folds, c.decisions - c.folds - c.raises) if test == "soft_raise" else
                             (c.decisions, c.decisions - c.folds))
            if read:
                by_deal[deal] = (read, counted)
        if by_deal:
            table[cell] = (sum(r for r, _ in by_deal.values()), sum(c for _, c in by_deal.values()), by_deal)
    return table


def _conditional(test: str, giver: str, receiver: str, tables: Mapping[tuple[str, str], _Table],
                 ranked: Mapping[str, list[tuple[int, str]]], kept: Mapping[_Cell, list[Evidence]]) -> PairTest:
    # An intersection-union test: the giver's counted decisions are more frequent against the receiver
    # than against each other opponent it met heads-up often enough, each comparison a stratified
    # (Mantel-Haenszel) score with a variance robust to dependence within deals; the pair's p is the
    # largest. Against the pooled others instead, a colluder's oddity against its partner (a dumper
    # staying in) would make every honest opponent look favoured.
    mine = tables[(giver, receiver)]
    observations = sum(read for read, _, _ in mine.values())
    # The opponents met most often (most decisions, ties by name), `_COMPARISONS` at most: any of them
    # alone is a valid comparison under the null, and a large ladder's hundreds would cost hours.
    met = [(size, r) for size, r in ranked[giver] if r != receiver][:_COMPARISONS]
    others = [tables[(giver, r)] for size, r in met if -size >= _MIN_SAMPLES]
    if observations < _MIN_SAMPLES or not others:
        return PairTest(giver, receiver, test, 0.0, 1.0, observations=observations)
    scores = [_stratified_score(mine, table) for table in others]
    if None in scores:  # against some opponent the decisions tell nothing: no excess shown over it
        return PairTest(giver, receiver, test, 0.0, 1.0, observations=observations)
    z = min(score for score in scores if score is not None)
    return PairTest(giver, receiver, test, z, _upper(z), observations=observations,
                    evidence=_evidence_of(mine, others, kept))


def _evidence_of(mine: _Table, others: Sequence[_Table], kept: Mapping[_Cell, list[Evidence]]) -> tuple[Evidence, ...]:
    # The counted decisions of the strata where they were most more frequent against the receiver than
    # against the giver's other opponents: the decisions worth reading first.
    def excess(cell: _Cell) -> float:
        counted = sum(table[cell][1] for table in others if cell in table)
        read = sum(table[cell][0] for table in others if cell in table)
        return mine[cell][1] / mine[cell][0] - (counted / read if read else 0.0)

    cells = sorted((cell for cell in kept if cell in mine and excess(cell) > 0), key=lambda cell: (-excess(cell), cell))
    return tuple(item for cell in cells for item in kept[cell])[:_EVIDENCE]


def _stratified_score(mine: _Table, theirs: _Table) -> float | None:
    # The z of "more counted decisions in `mine` than in `theirs`" over the strata both hold: the
    # Mantel-Haenszel score (observed minus expected), over the larger of the hypergeometric variance
    # (decisions independent) and the deal-clustered (sandwich) variance of the same score, so that a
    # deal's correlated decisions (a dumper raising at every turn) count as one; None when no stratum
    # varies.
    score = hypergeometric = 0.0
    residuals: defaultdict[_Deal, float] = defaultdict(float)
    for cell, (n_mine, counted_mine, deals_mine) in mine.items():
        other = theirs.get(cell)
        if other is None:
            continue
        n_theirs, counted_theirs, deals_theirs = other
        total, counted = n_mine + n_theirs, counted_mine + counted_theirs
        if counted in (0, total):
            continue
        rate = counted / total
        score += counted_mine - n_mine * rate
        hypergeometric += n_mine * n_theirs * counted * (total - counted) / (total * total * (total - 1))
        weight_mine, weight_theirs = n_theirs / total, -n_mine / total
        for deal, (read, hits) in deals_mine.items():
            residuals[deal] += weight_mine * (hits - read * rate)
        for deal, (read, hits) in deals_theirs.items():
            residuals[deal] += weight_theirs * (hits - read * rate)
    variance = max(hypergeometric, math.fsum(r * r for r in residuals.values()))
    return score / math.sqrt(variance) if variance > 0.0 else None


def _by_pair(flows: _Flows) -> dict[tuple[str, str], list[tuple[int, _Moments]]]:
    # Each ordered pair's strata, in the order they were added: a test reads its own pair's, not every
    # pair's (10^4 pairs scanning all strata each took hours).
    index: dict[tuple[str, str], list[tuple[int, _Moments]]] = defaultdict(list)
    for (g, r, stratum), mine in flows.strata.items():
        index[(g, r)].append((stratum, mine))
    return index


def _flow_test(name: str, giver: str, receiver: str, flows: _Flows,
               strata: Mapping[tuple[str, str], list[tuple[int, _Moments]]], what: str) -> PairTest:
    # Stratified by the giver's own hand (its strength): in each stratum the pair's flows against
    # the giver's mean over its other opponents in that stratum, summed (a stratified difference of
    # means, as Mantel-Haenszel's for folds), so that which hands the giver happened to hold against
    # whom, and how it plays them, cancel.
    numerator = variance = 0.0
    observations = 0
    for stratum, mine in strata.get((giver, receiver), []):
        others = flows.giver_strata[(giver, stratum)].minus(mine)
        if others.count < 2:
            continue
        numerator += mine.total - mine.count * others.mean()
        variance += mine.count * others.variance() * (1 + mine.count / others.count)
        observations += mine.count
    if observations < _MIN_SAMPLES or variance <= 0.0:
        return PairTest(giver, receiver, name, 0.0, 1.0, observations=observations)
    z = numerator / math.sqrt(variance)
    top = sorted(flows.top.get((giver, receiver), []), key=lambda row: -row[0])[:_EVIDENCE]
    return PairTest(giver, receiver, name, z, _upper(z), observations=observations,
                    evidence=tuple(Evidence(row[1], row[2], f"{what}: {row[0]:.4g} chips") for row in top))


def collusion_report(sessions: Iterable[SessionEvidence], *, alpha: float = 0.01) -> CollusionReport:
    """Run the tests on every ordered pair of bots that shared a session; Holm-correct each family."""
    return report_of(collect(sessions), alpha=alpha)


def report_of(pairs: Aggregate, *, alpha: float = 0.01) -> CollusionReport:
    """The tests of aggregated sessions (`collect`): the flagging tests Holm-corrected together, each
    evidence-only test over the pairs on its own."""
    tests: list[PairTest] = []
    tables = {test: {key: _table(test, cells) for key, cells in pairs.exposed.items()} for test in FLAGGING}
    # By test, each giver's opponents, most decisions first (minus the count, then the name).
    ranked: dict[str, defaultdict[str, list[tuple[int, str]]]] = {test: defaultdict(list) for test in FLAGGING}
    for test, by_pair in tables.items():
        for (giver, receiver), table in by_pair.items():
            ranked[test][giver].append((-sum(read for read, _, _ in table.values()), receiver))
        for opponents in ranked[test].values():
            opponents.sort()
    empty: dict[_Cell, list[Evidence]] = {}
    unearned, paired = _by_pair(pairs.unearned), _by_pair(pairs.paired)
    for low, high in sorted(pairs.shared):
        for giver, receiver in ((low, high), (high, low)):
            for test in FLAGGING:
                if (giver, receiver) in tables[test]:
                    tests.append(_conditional(test, giver, receiver, tables[test], ranked[test],
                                              pairs.kept.get((giver, receiver, test), empty)))
                else:
                    tests.append(PairTest(giver, receiver, test, 0.0, 1.0))
            tests.append(_flow_test("chip_flow", giver, receiver, pairs.unearned, unearned,
                                    "lost holding the stronger hand"))
            tests.append(_flow_test("duplicate_paired", giver, receiver, pairs.paired, paired,
                                    "lost beyond what these hands moved in the other mirrors"))
    for names in (FLAGGING, *((test,) for test in EVIDENCE_ONLY)):
        family = [i for i, t in enumerate(tests) if t.test in names]
        for i, adjusted in zip(family, holm([tests[i].p_value for i in family]), strict=True):
            tests[i] = replace(tests[i], adjusted=adjusted)
    return CollusionReport(alpha, tuple(tests), dict(pairs.shared))
