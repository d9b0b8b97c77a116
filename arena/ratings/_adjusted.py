"""The variance-reduced (adjusted) result of a session: its raw balances less terms of known mean zero.

Theory of operation (docs/ratings.md, "Adjusted results"). Q, the value function, gives every seat a
value at each point of a session between a decision and the deal it may lead to:

- once a pot is resolved, the balances it left;
- while a svara is pending (offers asked, the replay not dealt), the balances plus the pot shared
  equally by the tied players and the entrants so far (a replay is a chance node that treats them
  alike);
- during betting, the balances plus the pot shared as if the hands still in were compared now
  (equal values share it: a svara, or a split, treats them alike).

Values sum to zero over the seats (balances plus the pot), and the session's end is its balances. A
session is replayed with the engine; at every decision whose probabilities are known (a mix) the
term Q(after the action) − Σ_a π(a)·Q(after a) is summed, each Q(after a) valued on a fork of the
state; at every svara replay's deal, Q(after the deal) − E over deals of Q, which is the pot times
(the seat's share now − 1/players), since every seat of a replay is dealt from one shuffled deck
alike. Ordinary deals give the same kind of term, `luck`, which the deal control variate weighs with
a coefficient per bot fitted on the other half of the blocks (`adjust`).
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from ..engine import (
    Acted,
    Action,
    Amount,
    Bet,
    Call,
    DarkBet,
    Dealt,
    Entered,
    Event,
    Fault,
    Fold,
    Look,
    Looked,
    Mix,
    MultiwayOpen,
    Open,
    Phase,
    PotSplit,
    PotWon,
    Raise,
    Rules,
    SessionStarted,
    SessionState,
    Show,
    Support,
    SvaraAnswer,
    SvaraDeclared,
    profile,
)
from ._outcome import RatingError, SessionOutcome

VALUE_FUNCTION = "hindsight/1"
"""The identity of Q, committed with a tournament's seed commitment together with `value_function_digest()`."""

_COEFFICIENT_DENOMINATOR = 1000
"""The control variate's fitted coefficient is kept exact to 1/1000: its sampling noise is far larger,
and an exact coefficient keeps every adjusted result an exact Fraction."""


@dataclass(frozen=True)
class SessionTerms:
    """One session's raw balances and the terms of known mean zero the adjusted result subtracts, by seat."""

    raw: tuple[Amount, ...]
    """The balances the session ended with."""
    decisions: tuple[Amount, ...]
    """Σ over decisions with known probabilities of Q(after the action) − Σ_a π(a)·Q(after a)."""
    redeals: tuple[Amount, ...]
    """Σ over svara replays' deals of Q(after the deal) − E over deals of Q."""
    luck: tuple[Amount, ...]
    """The same over ordinary deals: the deal control variate's covariate (weighed by a fitted coefficient)."""

    @property
    def known(self) -> tuple[Amount, ...]:
        """The raw result less the decision and re-deal terms: the adjusted result before the control variate."""
        return tuple(r - d - s for r, d, s in zip(self.raw, self.decisions, self.redeals, strict=True))


def _share(pot: Amount, players: int) -> Amount:
    """`pot / players`, exact; Fraction arithmetic only when it is needed (it is slow, and a benchmark
    values hundreds of thousands of sessions)."""
    return pot // players if type(pot) is int and pot % players == 0 else Fraction(pot) / players


def _betting_value(state: SessionState) -> list[Amount]:
    """Q during betting: the balances plus the pot, shared by the best hands still in."""
    values = state.balances.copy()
    in_deal = state.in_deal
    evaluate = state.hand_value
    hands = [evaluate(seat) for seat in in_deal]
    best = max(hands)
    leaders = [seat for seat, hand in zip(in_deal, hands, strict=True) if hand == best]
    share = _share(state.pot, len(leaders))
    for seat in leaders:
        values[seat] += share
    return values


def _pending_value(state: SessionState, players: Iterable[int]) -> list[Amount]:
    """Q while a svara is pending: the balances plus the pot, shared equally by its players."""
    values = state.balances.copy()
    players = tuple(players)
    share = _share(state.pot, len(players))
    for seat in players:
        values[seat] += share
    return values


def _svara_players(state: SessionState) -> list[int]:
    """The tied seats and the entrants so far of the svara whose offers are being asked."""
    svara = state.svara
    assert svara is not None
    players = list(svara.tied)
    for event in reversed(state.events):
        if isinstance(event, SvaraDeclared):
            break
        if isinstance(event, Entered) and event.accepted:
            players.append(event.seat)
    return players


def _settled_value(state: SessionState, events: Sequence[Event]) -> list[Amount]:
    """Q right after a decision whose events are `events`, before any deal they led to."""
    for event in events:
        if isinstance(event, PotWon | PotSplit):
            return list(event.balances)
        if isinstance(event, Dealt):  # a svara's replay, dealt at once: value it before its cards
            return _pending_value(state, event.hands)
    if state.phase is Phase.SVARA_OFFER:
        return _pending_value(state, _svara_players(state))
    return _betting_value(state)


def _deal_term(state: SessionState) -> list[Amount]:
    """Q(after the deal) − E over deals of Q, at a deal just made: the pot times (share now − 1/players)."""
    values = _betting_value(state)
    players = state.in_deal
    fair = _share(state.pot, len(players))
    balances = state.balances
    return [values[seat] - balances[seat] - fair if seat in players else 0 for seat in range(state.seats)]


def _decision(event: Event) -> tuple[Action | None, Fault | None]:
    """The decision a recorded event is (a fault: the arena's fold or decline for the seat)."""
    match event:
        case Acted(fault=fault) if fault is not None:
            return None, fault
        case Entered(fault=fault) if fault is not None:
            return None, fault
        case Entered(accepted=accepted):
            return SvaraAnswer(accepted), None
        case Looked():
            return Look(), None
        case Acted(kind="fold"):
            return Fold(), None
        case Acted(kind="bet", amount=amount):
            return Bet(amount), None
        case Acted(kind="dark_bet", amount=amount):
            return DarkBet(amount), None
        case Acted(kind="raise", stake=stake) if stake is not None:
            return Raise(stake), None
        case Acted(kind=kind) if kind in _PLAIN:
            return _PLAIN[kind], None
    raise RatingError(f"not a decision of a seat: {event!r}")


_PLAIN: dict[str, Action] = {"show": Show(), "support": Support(), "open": Open(), "call": Call(),
                             "multiway_open": MultiwayOpen()}


def session_terms(rules: Rules, events: Sequence[Event]) -> SessionTerms:
    """Replay a seeded session's events with the engine and sum its terms of known mean zero by seat.

    A decision answered with a distribution (an `action` event with its `mix`, history format 3) is
    replayed by drawing from its mix again, so its draw is checked too; the other decisions are the bots'
    own, and nothing is known of how they were chosen.

    Args:
        rules: the rules the session was played under.
        events: the session's whole history, as the engine emitted it.

    Raises:
        RatingError: the events are not a seeded session these rules replay to the same events.
    """
    start = events[0] if events else None
    if not isinstance(start, SessionStarted) or start.dealing != "seeded":
        raise RatingError("only a whole history of a seeded session can be replayed for its adjusted result")
    state = SessionState(rules, bots=start.bots, seed=start.seed, session=start.session,
                         first_dealer=start.first_dealer)
    seats = state.seats
    decisions: list[Amount] = [0] * seats
    redeals: list[Amount] = [0] * seats
    luck = _deal_term(state)
    cursor = len(state.events)
    while cursor < len(events):
        if state.is_finished:
            raise RatingError(f"the history goes on after its session's end (event {cursor})")
        event = events[cursor]
        mix = event.mix if isinstance(event, Acted) else None
        if mix is not None:
            expected = _expected_value(state, mix)
        try:
            if mix is not None:
                new = state.apply_mix(mix)
            else:
                action, fault = _decision(event)
                new = state.apply(action, fault=fault)
        except ValueError as error:
            raise RatingError(f"event {cursor} does not replay: {error}") from None
        if tuple(new) != tuple(events[cursor:cursor + len(new)]):
            raise RatingError(f"event {cursor} does not replay to the recorded events")
        cursor += len(new)
        if mix is not None:
            after = _settled_value(state, new)
            decisions = [d + a - e for d, a, e in zip(decisions, after, expected, strict=True)]
        dealt = next((item for item in new if isinstance(item, Dealt)), None)
        if dealt is not None:
            term = _deal_term(state)
            if dealt.replay:
                redeals = [r + t for r, t in zip(redeals, term, strict=True)]
            else:
                luck = [r + t for r, t in zip(luck, term, strict=True)]
    if not state.is_finished:
        raise RatingError("the history stops before its session's end")
    return SessionTerms(tuple(state.balances), tuple(decisions), tuple(redeals), tuple(luck))


def _expected_value(state: SessionState, mix: Mix) -> list[Amount]:
    """Σ_a π(a)·Q(after a), each action decided on a fork of `state` (dealing nothing worth shuffling).

    π(a) = p_a / Σ p, each double taken exactly: the arena draws with these weights. Each p is an
    integer over a power of two, so over the largest of those powers every weight is an integer n_a and
    π(a) = n_a / Σ n: the sum is taken in integers (or Q's own Fractions) and divided once, where a
    Fraction per weight and per seat made this the estimator's costliest step."""
    ratios = [(action, p.as_integer_ratio()) for action, p in mix.entries if p]
    scale = max(denominator for _, (_, denominator) in ratios)
    total: list[Amount] = [0] * state.seats
    deck = state.rules.deck
    for action, (numerator, denominator) in ratios:
        ahead = state.fork(shuffler=lambda pot, replay: deck)
        new = ahead.apply(action)
        weight = numerator * (scale // denominator)
        total = [t + weight * v for t, v in zip(total, _settled_value(ahead, new), strict=True)]
    whole = sum(numerator * (scale // denominator) for _, (numerator, denominator) in ratios)
    return [Fraction(t, whole) for t in total]


def block_half(block: str) -> int:
    """Which half of the blocks (0 or 1) `block` is in for cross-fitting: fixed by its id, whatever else
    is rated, so a block's half never changes as results grow.

    >>> block_half("b0001"), block_half("b0002")
    (1, 0)
    """
    return hashlib.sha256(block.encode()).digest()[0] & 1


def control_coefficient(n: int, sx: Fraction | float, sy: Fraction | float, sxx: Fraction | float,
                        sxy: Fraction | float) -> Fraction:
    """The least-squares slope of y on x from their sums over n points (x: luck, y: the result less the known
    terms), kept exact to 1/1000; 0 without variation in x.

    >>> control_coefficient(3, 0, 0, 2, 1)  # points (-1, -0.5), (0, 0), (1, 0.5)
    Fraction(1, 2)
    >>> control_coefficient(1, 2.0, 1.0, 4.0, 2.0)
    Fraction(0, 1)
    """
    spread = sxx - sx * sx / n if n else 0
    if spread <= 0:
        return Fraction(0)
    return Fraction((sxy - sx * sy / n) / spread).limit_denominator(_COEFFICIENT_DENOMINATOR)


def fit_coefficients(sessions: Iterable[tuple[SessionOutcome, SessionTerms]]) -> dict[tuple[str, int], Fraction]:
    """The deal control variate's coefficient by (bot, table size): the least-squares slope of the bot's
    result less the known terms on its luck, over `sessions` (exact, then to 1/1000); no variation, 0."""
    sums: dict[tuple[str, int], list[Fraction]] = {}
    for outcome, terms in sessions:
        for bot, y, x in zip(outcome.bots, terms.known, terms.luck, strict=True):
            n, sx, sy, sxx, sxy = sums.setdefault((bot, len(outcome.bots)), [Fraction(0)] * 5)
            sums[bot, len(outcome.bots)] = [n + 1, sx + x, sy + y, sxx + x * x, sxy + x * y]
    return {key: control_coefficient(int(n), sx, sy, sxx, sxy) for key, (n, sx, sy, sxx, sxy) in sums.items()}


def adjust(sessions: Sequence[tuple[SessionOutcome, SessionTerms]]) -> list[SessionOutcome]:
    """Every session's outcome with adjusted balances, cross-fitted: each half of the blocks
    (`block_half`) is corrected with the coefficients fitted on the other half.

    A seat's adjusted balance is its raw balance less the decision and re-deal terms and less
    c·luck, where c is its bot's coefficient at that table size; the table's mean of c·luck is added
    back to every seat, so adjusted balances still sum to zero (that mean has expectation zero too).
    """
    halves: tuple[list[tuple[SessionOutcome, SessionTerms]], ...] = ([], [])
    for session in sessions:
        halves[block_half(session[0].block)].append(session)
    fitted = (fit_coefficients(halves[1]), fit_coefficients(halves[0]))  # each half gets the other's
    adjusted = []
    for outcome, terms in sessions:
        coefficients = fitted[block_half(outcome.block)]
        seats = len(outcome.bots)
        balances = controlled(terms.known, terms.luck, [coefficients.get((bot, seats), Fraction(0))
                                                        for bot in outcome.bots])
        adjusted.append(SessionOutcome(outcome.bots, balances, outcome.block, outcome.faults))
    return adjusted


def controlled(known: Sequence[Amount], luck: Sequence[Amount], coefficients: Sequence[Fraction]) -> tuple[Amount, ...]:
    """The adjusted result of a session given each seat's control coefficient: the known result
    (`SessionTerms.known`) less c·luck, plus the table's mean of c·luck (so that it still sums to zero).

    >>> from fractions import Fraction
    >>> controlled([3, -3], [2, -2], [Fraction(1, 2), Fraction(0)])
    (Fraction(5, 2), Fraction(-5, 2))
    """
    control = [c * x for c, x in zip(coefficients, luck, strict=True)]
    mean = sum(control, Fraction(0)) / len(control)
    return tuple(y - c + mean for y, c in zip(known, control, strict=True))


@functools.cache
def value_function_digest() -> str:
    """SHA-256 of Q's values at every decision and deal of fixed reference sessions: what the value
    function computes, so that a changed Q (whatever its name says) changes the digest.

    Committed, with `VALUE_FUNCTION`, beside the seed commitment before a tournament's first session.
    Q reads a profile only through its engine (hand values, pots), so `georgian` at 2, 3 and 6 seats,
    with svaras and with split ties, covers its every branch, and costs no other profile's hand table.
    """
    digest = hashlib.sha256(VALUE_FUNCTION.encode())
    for options, seats in (({}, 2), ({}, 3), ({"tie": "split"}, 6)):
        rules = profile("georgian", options)
        state = SessionState(rules, bots=[f"s{seat}" for seat in range(seats)], seed=f"q-digest-{seats}")
        turn = 0
        while not state.is_finished:
            legal = state.legal_actions() if state.phase is Phase.BETTING else None
            # A fixed, legal walk that reaches showdowns: pay the least when one can, else the first choice.
            if legal is None:
                action: Action = SvaraAnswer(turn % 2 == 0)
            elif not legal.seen:
                action = Look()
            elif legal.can_bet:
                action = Show() if legal.show_amount is not None and turn % 3 else Bet(legal.min_bet)
            else:
                action = (Open() if legal.open_amount is not None else Call() if legal.call_amount is not None
                          else Support())
            new = state.apply(action)
            digest.update(repr(_settled_value(state, new)).encode())
            if any(isinstance(event, Dealt) for event in new) and not state.is_finished:
                digest.update(repr(_deal_term(state)).encode())
            turn += 1
    return digest.hexdigest()
