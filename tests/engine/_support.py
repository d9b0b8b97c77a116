"""Helpers shared by the engine tests: stacked tables, state snapshots, an independent hand scorer
and a referee that re-checks an event stream against the rule text.

Nothing here imports the engine's hand evaluator: `rule_key` scores hands from the rule text
alone, so tests that compare it with `georgian_value` compare two independent readings.
"""

from __future__ import annotations

import copy
import math
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from arena.engine import (
    DECK_36,
    GEORGIAN,
    Acted,
    AntePaid,
    Card,
    Dealt,
    Entered,
    Event,
    Fault,
    Phase,
    PotWon,
    Revealed,
    Rules,
    SessionEnded,
    SessionStarted,
    SessionState,
    ShowdownHeld,
    SvaraDeclared,
    deck_order,
    parse_cards,
    seeded_shuffler,
    stacked_shuffler,
)

Amount = int | Fraction

NAMES = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot")

# ------------------------------------------------------------------ an independent scorer

# Section 02 of the normative rules, read directly: A=11, K/Q/J/10=10, numerals face value;
# a seka (three of one rank) beats every non-seka hand and sekas rank A K Q J 10 9 8 7 6;
# without a seka two aces count 22 whatever the suits; otherwise the greatest one-suit sum,
# where a lone card may be that sum. Equal totals tie: the key holds nothing else.
_RULE_POINTS = {"6": 6, "7": 7, "8": 8, "9": 9, "T": 10, "J": 10, "Q": 10, "K": 10, "A": 11}
_SEKA_ORDER = "6789TJQKA"  # weakest to strongest seka


def rule_key(cards: Iterable[Card | str]) -> tuple[int, int]:
    """(1, seka rank order) for a seka, (0, total) otherwise; compare keys to compare hands."""
    names = [str(card) for card in cards]
    assert len(names) == 3 and len(set(names)) == 3, names
    ranks = [name[0] for name in names]
    if ranks[0] == ranks[1] == ranks[2]:
        return (1, _SEKA_ORDER.index(ranks[0]))
    if ranks.count("A") == 2:
        return (0, 22)
    totals: dict[str, int] = {}
    for name in names:
        totals[name[1]] = totals.get(name[1], 0) + _RULE_POINTS[name[0]]
    return (0, max(totals.values()))


# ------------------------------------------------------------------ building tables

def hands_of(spec: Mapping[int, str]) -> dict[int, tuple[Card, ...]]:
    return {seat: parse_cards(text) for seat, text in spec.items()}


def table(
    seats: int,
    *,
    first_dealer: int,
    deals: Mapping[tuple[int, int], Mapping[int, str]] | None = None,
    rules: Rules = GEORGIAN,
    seed: str = "table",
) -> SessionState:
    """A session whose chosen deals give chosen seats chosen cards (text like "Ah As 7d")."""
    stacked = {key: hands_of(spec) for key, spec in (deals or {}).items()}
    shuffler = stacked_shuffler(stacked, seeded_shuffler(seed, rules.deck))
    return SessionState(rules, bots=list(NAMES[:seats]), seed=seed, first_dealer=first_dealer, shuffler=shuffler)


def jsons(events: Iterable[Event]) -> list[dict[str, Any]]:
    return [event.to_json() for event in events]


def antes_first(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Put the antes of each ordinary pot before its deal record, the order the rules' text uses.

    The history lists an ordinary deal's `ante` records right after its `deal` record (see
    docs/history.md); tests that pin whole event lists are written in the rules' order and
    compare through this function.
    """
    result = list(records)
    index = 0
    while index < len(result):
        record = result[index]
        if record["event"] == "deal" and record["replay"] == 0:
            end = index + 1
            while end < len(result) and result[end]["event"] == "ante":
                end += 1
            result[index:end] = result[index + 1 : end] + [record]
            index = end
        else:
            index += 1
    return result


def snapshot(state: SessionState) -> dict[str, Any]:
    """Every attribute of the state (public and private), deep-copied, plus derived queries.

    Callables (the shuffler, the evaluator lookup) and the frozen rules are compared by identity.
    """
    shot: dict[str, Any] = {}
    for name, value in vars(state).items():
        if callable(value) or isinstance(value, Rules):
            shot[name] = ("identity", id(value))
        else:
            shot[name] = copy.deepcopy(value)
    shot["#events"] = len(state.events)
    shot["#phase"] = state.phase
    shot["#is_finished"] = state.is_finished
    shot["#legal"] = state.legal_actions() if state.phase is Phase.BETTING else None
    return shot


def clockwise_from_left_of(dealer: int, seats: Iterable[int], count: int) -> list[int]:
    return sorted(seats, key=lambda seat: (seat - dealer - 1) % count)


def next_clockwise(seat: int, among: Iterable[int], count: int) -> int:
    candidates = set(among)
    for step in range(1, count + 1):
        if (seat + step) % count in candidates:
            return (seat + step) % count
    raise AssertionError(f"nobody of {candidates} after seat {seat}")


def pot_nets(events: Sequence[Event], seats: int) -> dict[int, list[Amount]]:
    """Net chips of every seat in every ordinary pot (its replays included), from the events."""
    nets: dict[int, list[Amount]] = {}
    current: list[Amount] = [0] * seats
    pot_number = 0
    for event in events:
        if isinstance(event, Dealt) and event.replay == 0:
            pot_number = event.pot
        if isinstance(event, (AntePaid, Acted, Entered)):
            current[event.seat] -= event.amount
        elif isinstance(event, PotWon):
            assert event.pot == pot_number
            current[event.seat] += event.amount
            nets[event.pot] = current
            current = [0] * seats
    return nets


# ------------------------------------------------------------------ the referee

class Referee:
    """Re-reads an event stream with its own bookkeeping, written from the rule text.

    It checks who may act, every payment's bounds, the pot, showdowns, reveals at the action
    cap, svara prices and eligibility, replay dealers, dealer rotation, deals (against
    `deck_order` when the session is seeded) and the session's end. `agree_with(state)` then
    compares its bookkeeping with the engine's public attributes.
    """

    def __init__(self, rules: Rules, *, seed: str | None = None) -> None:
        self.rules = rules
        self.seed = seed
        """When set, every deal must be `deck_order(seed, pot, replay)`, seat s at 3s..3s+2."""
        self.read = 0
        self.seats = 0
        self.expect = "session_start"
        """What must come next: session_start, new_pot, turn, showdown, reveal, pot_won, svara, offer,
        replay_deal, session_end, done."""
        self.balances: list[Amount] = []
        self.pot: Amount = 0
        self.resolved = 0
        self.pot_number = 0
        self.replay = 0
        self.first_dealer = -1
        self.pot_dealer = -1
        self.dealer = -1
        self.in_deal: list[int] = []
        self.hands: dict[int, tuple[Card, ...]] = {}
        self.previous_bet: Amount | None = None
        self.actions = 0
        self.to_act: int | None = None
        self.antes_paid: set[int] = set()
        self.dealt = False
        self.winner: int | None = None
        self.shown = False
        self.contenders: list[int] = []
        self.tied: list[int] = []
        self.offers: list[int] = []
        self.entrants: list[int] = []
        self.price: Amount = 0
        self.stats = {"svaras": 0, "nested": 0, "reveals": 0, "showdowns": 0, "unseen": 0, "entries": 0,
                      "fraction_prices": 0, "faults": 0}

    # -------------------------------------------------------------- reading

    def check(self, events: Sequence[Event]) -> None:
        """Read the events not read yet."""
        for event in events[self.read :]:
            self._read(event)
            self.read += 1

    def agree_with(self, state: SessionState) -> None:
        self.check(state.events)
        assert sum(state.balances) + state.pot == 0
        assert state.balances == self.balances
        assert state.pot == self.pot
        assert state.pot_number == self.pot_number
        assert state.replay == self.replay
        assert state.dealer == self.dealer
        assert state.pot_dealer == self.pot_dealer
        if self.expect == "done":
            assert state.phase is Phase.FINISHED and state.to_act is None
        elif self.expect == "offer":
            assert state.phase is Phase.SVARA_OFFER and state.to_act == self.offers[0]
        else:
            assert self.expect == "turn", self.expect
            assert state.phase is Phase.BETTING
            assert state.to_act == self.to_act
            assert state.in_deal == sorted(self.in_deal)
            assert state.previous_bet == self.previous_bet
            assert state.actions_in_deal == self.actions
            legal = state.legal_actions()
            assert legal.seat == self.to_act
            assert legal.min_bet == (self.rules.opening_stake if self.previous_bet is None else self.previous_bet)
            assert legal.max_bet == self.rules.max_bet
            heads_up = len(self.in_deal) == 2 and self.previous_bet is not None
            assert legal.show_amount == (self.previous_bet if heads_up else None)

    def _pay(self, seat: int, amount: Amount) -> None:
        assert isinstance(amount, (int, Fraction)) and not isinstance(amount, bool), amount
        assert amount >= 0
        self.balances[seat] -= amount
        self.pot += amount

    def _read(self, event: Event) -> None:
        handler = getattr(self, "_on_" + type(event).__name__)
        handler(event)

    # -------------------------------------------------------------- session and deals

    def _on_SessionStarted(self, event: SessionStarted) -> None:
        assert self.expect == "session_start"
        rules = self.rules
        assert (event.ante, event.opening_stake, event.max_bet) == (rules.ante, rules.opening_stake, rules.max_bet)
        assert (event.pots, event.max_actions, event.profile) == (rules.pots_per_session, rules.max_actions, rules.name)
        self.seats = len(event.bots)
        assert rules.min_seats <= self.seats <= rules.max_seats
        assert 0 <= event.first_dealer < self.seats
        if self.seed is not None:
            assert event.seed == self.seed
        self.first_dealer = event.first_dealer
        self.balances = [0] * self.seats
        self.expect = "new_pot"
        self.antes_paid = set()
        self.dealt = False

    def _check_cards(self, event: Dealt) -> None:
        cards = [card for hand in event.hands.values() for card in hand]
        assert all(len(hand) == 3 for hand in event.hands.values())
        assert all(isinstance(card, Card) and card in self.rules.deck for card in cards)
        assert len(set(cards)) == len(cards), "hands of one deal must be disjoint"
        if self.seed is not None:
            order = deck_order(self.seed, event.pot, event.replay, self.rules.deck)
            assert sorted(order) == sorted(self.rules.deck)
            for seat, hand in event.hands.items():
                assert tuple(hand) == tuple(order[3 * seat : 3 * seat + 3])

    def _on_Dealt(self, event: Dealt) -> None:
        self._check_cards(event)
        if event.replay == 0:
            assert self.expect == "new_pot" and not self.dealt
            assert event.pot == self.resolved + 1
            expected_dealer = self.first_dealer if event.pot == 1 else (self.pot_dealer + 1) % self.seats
            assert event.dealer == expected_dealer, "the deal passes one seat clockwise per ordinary pot"
            assert sorted(event.hands) == list(range(self.seats))
            self.pot_number = event.pot
            self.replay = 0
            self.pot_dealer = self.dealer = event.dealer
            self.dealt = True
        else:
            assert self.expect == "replay_deal"
            assert event.pot == self.pot_number and event.replay == self.replay + 1
            players = set(self.tied) | set(self.entrants)
            assert set(event.hands) == players
            assert event.dealer == next_clockwise(self.dealer, players, self.seats), "replay dealer"
            self.replay = event.replay
            self.dealer = event.dealer
        self.hands = {seat: tuple(hand) for seat, hand in event.hands.items()}
        self.in_deal = sorted(event.hands)
        self.previous_bet = None
        self.actions = 0
        self._maybe_start_betting()

    def _on_AntePaid(self, event: AntePaid) -> None:
        assert self.expect == "new_pot", "antes only before an ordinary pot, never in a replay"
        assert event.seat not in self.antes_paid
        assert event.amount == self.rules.ante
        self.antes_paid.add(event.seat)
        self._pay(event.seat, event.amount)
        self._maybe_start_betting()

    def _maybe_start_betting(self) -> None:
        if self.expect == "new_pot" and not (self.dealt and len(self.antes_paid) == self.seats):
            return
        self.expect = "turn"
        self.to_act = next_clockwise(self.dealer, self.in_deal, self.seats)

    # -------------------------------------------------------------- betting

    def _on_Acted(self, event: Acted) -> None:
        assert self.expect == "turn" and event.seat == self.to_act
        self.actions += 1
        assert self.actions <= self.rules.max_actions
        if event.fault is not None:
            assert isinstance(event.fault, Fault) and event.kind == "fold"
            self.stats["faults"] += 1
        if event.kind == "bet":
            low = self.rules.opening_stake if self.previous_bet is None else self.previous_bet
            assert low <= event.amount <= self.rules.max_bet
            self._pay(event.seat, event.amount)
            self.previous_bet = event.amount
        elif event.kind == "fold":
            assert event.amount == 0
            self.in_deal.remove(event.seat)
        else:
            assert event.kind == "show"
            assert len(self.in_deal) == 2 and self.previous_bet is not None
            assert event.amount == self.previous_bet
            self._pay(event.seat, event.amount)
            other = next(seat for seat in self.in_deal if seat != event.seat)
            self.contenders = [event.seat, other]
            self.expect = "showdown"
            return
        if len(self.in_deal) == 1:
            self.winner, self.shown = self.in_deal[0], False
            self.expect = "pot_won"
        elif self.actions == self.rules.max_actions:
            self.contenders = clockwise_from_left_of(self.dealer, self.in_deal, self.seats)
            self.expect = "reveal"
        else:
            self.to_act = next_clockwise(event.seat, self.in_deal, self.seats)

    def _compare(self, event: ShowdownHeld | Revealed) -> None:
        assert (event.pot, event.replay) == (self.pot_number, self.replay)
        assert list(event.seats) == self.contenders
        assert {seat: tuple(hand) for seat, hand in event.hands.items()} == {s: self.hands[s] for s in self.contenders}
        keys = {seat: rule_key(self.hands[seat]) for seat in self.contenders}
        for a in self.contenders:
            for b in self.contenders:
                assert (event.values[a] < event.values[b]) == (keys[a] < keys[b])
                assert (event.values[a] == event.values[b]) == (keys[a] == keys[b])
        best = max(keys.values())
        leaders = [seat for seat in self.contenders if keys[seat] == best]
        if len(leaders) == 1:
            assert event.winner == leaders[0]
            self.winner, self.shown = leaders[0], True
            self.expect = "pot_won"
        else:
            assert event.winner is None
            self.tied = leaders
            self.expect = "svara"

    def _on_ShowdownHeld(self, event: ShowdownHeld) -> None:
        assert self.expect == "showdown"
        self.stats["showdowns"] += 1
        self._compare(event)

    def _on_Revealed(self, event: Revealed) -> None:
        assert self.expect == "reveal"
        self.stats["reveals"] += 1
        self._compare(event)

    # -------------------------------------------------------------- svara

    def _on_SvaraDeclared(self, event: SvaraDeclared) -> None:
        assert self.expect == "svara"
        self.stats["svaras"] += 1
        if self.replay:
            self.stats["nested"] += 1
        assert sorted(event.tied) == sorted(self.tied)
        assert event.frozen_pot == self.pot
        assert event.price == Fraction(self.pot) / 2
        if Fraction(event.price).denominator != 1:
            self.stats["fraction_prices"] += 1
        others = [seat for seat in range(self.seats) if seat not in self.tied]
        assert list(event.eligible) == clockwise_from_left_of(self.dealer, others, self.seats)
        self.price = event.price
        self.offers = list(event.eligible)
        self.entrants = []
        self.expect = "offer" if self.offers else "replay_deal"

    def _on_Entered(self, event: Entered) -> None:
        assert self.expect == "offer"
        assert event.seat == self.offers.pop(0)
        if event.accepted:
            assert event.fault is None and event.amount == self.price
            self._pay(event.seat, event.amount)
            self.entrants.append(event.seat)
            self.stats["entries"] += 1
        else:
            assert event.amount == 0
            if event.fault is not None:
                self.stats["faults"] += 1
        if not self.offers:
            self.expect = "replay_deal"

    # -------------------------------------------------------------- resolution

    def _on_PotWon(self, event: PotWon) -> None:
        assert self.expect == "pot_won"
        assert (event.pot, event.seat, event.shown) == (self.pot_number, self.winner, self.shown)
        assert event.amount == self.pot
        if not event.shown:
            self.stats["unseen"] += 1
        self.balances[event.seat] += self.pot
        assert list(event.balances) == self.balances
        self.pot = 0
        self.resolved += 1
        self.tied, self.entrants, self.offers = [], [], []
        self.dealt, self.antes_paid = False, set()
        self.expect = "session_end" if self.resolved == self.rules.pots_per_session else "new_pot"

    def _on_SessionEnded(self, event: SessionEnded) -> None:
        assert self.expect == "session_end"
        assert list(event.balances) == self.balances
        assert sum(event.balances) == 0
        best = max(self.balances)
        assert list(event.winners) == [seat for seat in range(self.seats) if self.balances[seat] == best]
        self.to_act = None
        self.expect = "done"


# ------------------------------------------------------------------ random legal play

@dataclass(frozen=True)
class Style:
    """How a random policy leans; hypothesis draws these to reach rare paths."""

    fold: float = 0.2
    show: float = 0.5
    raise_: float = 0.3
    accept: float = 0.5
    fault: float = 0.02
    fraction: float = 0.05


def random_step(state: SessionState, rng: random.Random, style: Style = Style()) -> tuple[Any, ...]:
    """Make one random legal decision for the seat to act; return it as a plain tuple."""
    if state.phase is Phase.SVARA_OFFER:
        if rng.random() < style.fault:
            fault = rng.choice(list(Fault))
            state.answer_svara(True, fault=fault)
            return ("answer", True, fault)
        accept = rng.random() < style.accept
        state.answer_svara(accept)
        return ("answer", accept, None)
    legal = state.legal_actions()
    roll = rng.random()
    if roll < style.fault:
        fault = rng.choice(list(Fault))
        state.fold(fault=fault)
        return ("fold", fault)
    if roll < style.fault + style.fold:
        state.fold()
        return ("fold", None)
    if legal.can_show and rng.random() < style.show:
        state.show()
        return ("show",)
    amount: Amount = legal.min_bet
    if rng.random() < style.raise_:
        amount = rng.randint(math.ceil(legal.min_bet), math.floor(legal.max_bet))
    if rng.random() < style.fraction:
        amount = Fraction(rng.randint(int(2 * legal.min_bet), int(2 * legal.max_bet)), 2)
        amount = max(legal.min_bet, min(amount, legal.max_bet))
    state.bet(amount)
    return ("bet", amount)


def play_out(state: SessionState, rng: random.Random, style: Style = Style(), *,
             referee: Referee | None = None, limit: int = 100_000) -> list[tuple[Any, ...]]:
    """Random legal decisions until the session finishes; the referee checks every step."""
    decisions = []
    for _ in range(limit):
        if state.is_finished:
            break
        decisions.append(random_step(state, rng, style))
        if referee is not None:
            referee.agree_with(state)
    assert state.is_finished
    return decisions


def deck_text(cards: Sequence[Card]) -> str:
    return " ".join(str(card) for card in cards)

__all__ = [
    "DECK_36", "NAMES", "Referee", "Style", "antes_first", "clockwise_from_left_of", "deck_text", "hands_of",
    "jsons", "next_clockwise", "play_out", "pot_nets", "random_step", "rule_key", "snapshot", "table",
]
