"""One session of Seka as a state machine: it takes decisions and emits events, and never waits.

Theory of operation
-------------------
A session plays `rules.pots_per_session` ordinary pots. The seat to act is always known, and
the caller feeds it decisions until `phase` is FINISHED. Dealing happens inside the transitions
from an injected `Shuffler`, so the same seed and the same decisions give the same events.

    phase        decision                      next
    BETTING      fold / bet(amount) / show()   BETTING, or the deal resolves (below)
    SVARA_OFFER  answer_svara(accept)          SVARA_OFFER (next eligible seat), or a replay: BETTING

A deal resolves when one player is left (he takes the pot unseen), when a heads-up show names a
stronger hand, or when the action cap forces everyone still in to reveal. A tie for the best hand
is a svara: the pot is frozen, the other participants of the ordinary deal are asked in turn to
re-enter at half the frozen pot, and the tied players and the entrants get a replay with new
cards, no ante, the dealer moved on to the next replay player. A resolved pot goes to its winner;
then the next ordinary pot is dealt with the deal passed one seat clockwise, or the session ends.

Every decision has the triad `verify_*` (raises `IllegalActionError`, state untouched),
`can_*` (a bool) and the verb itself (changes the state and returns the new events).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from fractions import Fraction

from ._actions import Action, Bet, Fault, Fold, LegalActions, Show, SvaraAnswer
from ._amounts import Amount, exact
from ._cards import Card
from ._errors import IllegalActionError
from ._events import (
    Acted,
    AntePaid,
    Dealt,
    Entered,
    Event,
    PotWon,
    Revealed,
    SessionEnded,
    SessionStarted,
    ShowdownHeld,
    SvaraDeclared,
)
from ._hands import HandValue
from ._rules import Rules
from ._shuffle import Shuffler, draw_first_dealer, seeded_shuffler


class Phase(enum.Enum):
    BETTING = "betting"
    SVARA_OFFER = "svara_offer"
    FINISHED = "finished"


def _verify_fault(fault: object) -> None:
    if fault is not None and not isinstance(fault, Fault):
        raise IllegalActionError(f"a fault is a Fault ({', '.join(f.name for f in Fault)}), not {fault!r}")


class SessionState:
    """A session in progress. Create it, then feed decisions for `to_act` until FINISHED.

    >>> from arena.engine import GEORGIAN
    >>> state = SessionState(GEORGIAN, bots=["a", "b"], seed="doc")
    >>> state.phase, state.pot_number, state.pot
    (<Phase.BETTING: 'betting'>, 1, 2)
    >>> [event.KIND for event in state.bet(3)], state.pot
    (['action'], 5)
    """

    def __init__(
        self,
        rules: Rules,
        *,
        bots: Sequence[str],
        seed: str,
        session: str = "",
        first_dealer: int | None = None,
        shuffler: Shuffler | None = None,
    ) -> None:
        seats = len(bots)
        if not rules.min_seats <= seats <= rules.max_seats:
            raise IllegalActionError(
                f"profile {rules.name!r} seats {rules.min_seats} to {rules.max_seats} players, not {seats}")
        if first_dealer is None:
            first_dealer = draw_first_dealer(seed, seats)
        elif type(first_dealer) is not int or not 0 <= first_dealer < seats:
            raise IllegalActionError(f"first dealer must be a seat 0..{seats - 1}, not {first_dealer}")
        self.rules = rules
        self.seats = seats
        self.bots: tuple[str, ...] = tuple(bots)
        self._shuffle = shuffler or seeded_shuffler(seed, rules.deck)
        self._evaluate = rules.evaluator.value
        self.events: list[Event] = []
        """Everything that happened, in order: the organiser's complete record."""
        self.balances: list[Amount] = [0] * seats
        """Net chips by seat; with the current pot they always sum to zero."""
        self.phase = Phase.BETTING
        self.pot_number = 0
        self.replay = 0
        self.pot: Amount = 0
        self.pot_dealer = first_dealer
        """The dealer of the current ordinary deal."""
        self.dealer = first_dealer
        """The dealer of the current deal (ordinary or replay)."""
        self.hands: dict[int, tuple[Card, ...]] = {}
        self.in_deal: list[int] = []
        """Seats still in the current deal, in seat order."""
        self.participants: tuple[int, ...] = ()
        """Seats that paid the ante of the current ordinary deal."""
        self.previous_bet: Amount | None = None
        self.actions_in_deal = 0
        self.to_act: int | None = None
        """The seat whose decision is awaited (betting or a svara offer); None when finished."""
        self.svara: SvaraDeclared | None = None
        self.offers_left: list[int] = []
        """Seats still to be asked about the current svara, in order."""
        self._entrants: list[int] = []
        self.deal_start = 0
        """Index in `events` of the current deal's first event."""
        self.pot_start = 0
        """Index in `events` of the current ordinary pot's first event."""
        self._emit(SessionStarted(
            session=session, profile=rules.name, seed=seed, bots=tuple(bots), ante=rules.ante,
            opening_stake=rules.opening_stake, max_bet=rules.max_bet, pots=rules.pots_per_session,
            max_actions=rules.max_actions, first_dealer=first_dealer,
            dealing="seeded" if shuffler is None else "stacked"))
        self._start_ordinary_deal(first_dealer)

    # ---------------------------------------------------------------- queries

    @property
    def is_finished(self) -> bool:
        return self.phase is Phase.FINISHED

    def legal_actions(self) -> LegalActions:
        """The bounds of the betting turn now awaited."""
        if self.phase is not Phase.BETTING:
            raise IllegalActionError(f"no betting turn is awaited (phase {self.phase.value})")
        assert self.to_act is not None
        previous = self.previous_bet
        heads_up_show = previous is not None and len(self.in_deal) == 2
        return LegalActions(
            seat=self.to_act,
            min_bet=self._min_bet(),
            max_bet=self.rules.max_bet,
            show_amount=previous if heads_up_show else None,
        )

    def _min_bet(self) -> Amount:
        previous = self.previous_bet
        return self.rules.opening_stake if previous is None else previous

    def hand_value(self, seat: int) -> HandValue:
        """The value of a seat's current hand (organiser's knowledge, not a player's)."""
        return self._evaluate(self.hands[seat])

    # ---------------------------------------------------------------- betting

    def verify_fold(self, *, fault: Fault | None = None) -> None:
        self._verify_phase(Phase.BETTING, "fold")
        _verify_fault(fault)

    def can_fold(self) -> bool:
        return self.phase is Phase.BETTING

    def fold(self, *, fault: Fault | None = None) -> list[Event]:
        """Leave the deal; with `fault`, the arena folds for a bot that failed."""
        self.verify_fold(fault=fault)
        seat = self._take_turn()
        mark = len(self.events)
        self.in_deal.remove(seat)
        self._emit(Acted(seat, "fold", 0, fault))
        if len(self.in_deal) == 1:
            self._award(self.in_deal[0], shown=False)
        else:
            self._next_turn(seat)
        return self.events[mark:]

    def verify_bet(self, amount: Amount) -> None:
        self._verify_phase(Phase.BETTING, "bet")
        if type(amount) is not int and type(amount) is not Fraction:  # not bool, float, or an int subclass
            raise IllegalActionError(f"a bet is an exact int or Fraction, not {amount!r}")
        # The bounds of `legal_actions()`, without building them: every bot's bet is verified twice.
        low, high = self._min_bet(), self.rules.max_bet
        if not low <= amount <= high:
            raise IllegalActionError(f"seat {self.to_act} may pay {low} to {high}, not {exact(amount)}")

    def can_bet(self, amount: Amount) -> bool:
        try:
            self.verify_bet(amount)
        except IllegalActionError:
            return False
        return True

    def bet(self, amount: Amount) -> list[Event]:
        """Pay a fresh amount from the previous bet (or the opening stake) up to the maximum."""
        self.verify_bet(amount)
        amount = exact(amount)
        seat = self._take_turn()
        mark = len(self.events)
        self._pay(seat, amount)
        self.previous_bet = amount
        self._emit(Acted(seat, "bet", amount))
        self._next_turn(seat)
        return self.events[mark:]

    def verify_show(self) -> None:
        self._verify_phase(Phase.BETTING, "show")
        if len(self.in_deal) != 2:
            raise IllegalActionError(f"a show needs exactly two players in the deal, not {len(self.in_deal)}")
        if self.previous_bet is None:
            raise IllegalActionError("a show needs a previous bet in this deal")

    def can_show(self) -> bool:
        try:
            self.verify_show()
        except IllegalActionError:
            return False
        return True

    def show(self) -> list[Event]:
        """Pay the previous bet once; both hands are compared."""
        self.verify_show()
        seat = self._take_turn()
        mark = len(self.events)
        assert self.previous_bet is not None
        self._pay(seat, self.previous_bet)
        self._emit(Acted(seat, "show", self.previous_bet))
        other = self.in_deal[0] if self.in_deal[1] == seat else self.in_deal[1]
        self._compare((seat, other), ShowdownHeld)
        return self.events[mark:]

    # ---------------------------------------------------------------- svara

    def verify_answer_svara(self, accept: bool, *, fault: Fault | None = None) -> None:
        self._verify_phase(Phase.SVARA_OFFER, "answer a svara offer")
        if not isinstance(accept, bool):
            raise IllegalActionError(f"a svara answer is True or False, not {accept!r}")
        _verify_fault(fault)

    def can_answer_svara(self, accept: bool) -> bool:
        try:
            self.verify_answer_svara(accept)
        except IllegalActionError:
            return False
        return True

    def answer_svara(self, accept: bool, *, fault: Fault | None = None) -> list[Event]:
        """Accept or decline re-entry at the svara price; a fault always declines."""
        self.verify_answer_svara(accept, fault=fault)
        assert self.svara is not None
        mark = len(self.events)
        seat = self.offers_left.pop(0)
        if accept and fault is None:
            self._pay(seat, self.svara.price)
            self._entrants.append(seat)
            self._emit(Entered(seat, True, self.svara.price))
        else:
            self._emit(Entered(seat, False, 0, fault))
        self._offer_or_replay()
        return self.events[mark:]

    # ---------------------------------------------------------------- any decision

    def verify(self, action: Action) -> None:
        """Raise `IllegalActionError` unless `apply(action)` is allowed now; the state is untouched.

        Lets a caller tell a decision the rules refuse from an error while applying one.
        """
        match action:
            case Fold():
                self.verify_fold()
            case Bet(amount):
                self.verify_bet(amount)
            case Show():
                self.verify_show()
            case SvaraAnswer(accept):
                self.verify_answer_svara(accept)
            case _:
                raise IllegalActionError(f"not an action: {action!r}")

    def apply(self, action: Action | None, *, fault: Fault | None = None) -> list[Event]:
        """Dispatch one decision; `fault` turns it into the arena's fold or decline."""
        if fault is not None:
            if self.phase is Phase.SVARA_OFFER:
                return self.answer_svara(False, fault=fault)
            return self.fold(fault=fault)
        match action:
            case Fold():
                return self.fold()
            case Bet(amount):
                return self.bet(amount)
            case Show():
                return self.show()
            case SvaraAnswer(accept):
                return self.answer_svara(accept)
            case _:
                raise IllegalActionError(f"not an action: {action!r}")

    # ---------------------------------------------------------------- transitions

    def _emit(self, event: Event) -> None:
        self.events.append(event)

    def _verify_phase(self, phase: Phase, what: str) -> None:
        if self.phase is not phase:
            raise IllegalActionError(f"cannot {what} now: the session is in phase {self.phase.value}")

    def _take_turn(self) -> int:
        seat = self.to_act
        assert seat is not None
        self.actions_in_deal += 1
        return seat

    def _pay(self, seat: int, amount: Amount) -> None:
        self.balances[seat] -= amount
        self.pot += amount

    def _next_clockwise(self, seat: int, among: Sequence[int]) -> int:
        for step in range(1, self.seats + 1):
            candidate = (seat + step) % self.seats
            if candidate in among:
                return candidate
        raise AssertionError(f"no seat of {among} after {seat}")

    def _clockwise_from_left_of(self, seat: int, seats: Sequence[int]) -> tuple[int, ...]:
        return tuple(sorted(seats, key=lambda s: (s - seat - 1) % self.seats))

    def _deal(self, players: Sequence[int]) -> None:
        self.deal_start = len(self.events)
        order = self._shuffle(self.pot_number, self.replay)
        self.hands = {seat: tuple(order[3 * seat : 3 * seat + 3]) for seat in players}
        self.in_deal = sorted(players)
        self.previous_bet = None
        self.actions_in_deal = 0
        self._emit(Dealt(self.pot_number, self.replay, self.dealer, dict(self.hands)))

    def _start_ordinary_deal(self, dealer: int) -> None:
        self.pot_number += 1
        self.replay = 0
        self.pot_dealer = self.dealer = dealer
        self.pot = 0
        self.pot_start = len(self.events)
        self.participants = tuple(range(self.seats))
        self._deal(self.participants)
        for seat in self.participants:
            self._pay(seat, self.rules.ante)
            self._emit(AntePaid(seat, self.rules.ante))
        self.phase = Phase.BETTING
        self.to_act = self._next_clockwise(dealer, self.in_deal)

    def _next_turn(self, seat: int) -> None:
        if self.actions_in_deal >= self.rules.max_actions:
            self._compare(self._clockwise_from_left_of(self.dealer, self.in_deal), Revealed)
        else:
            self.to_act = self._next_clockwise(seat, self.in_deal)

    def _compare(self, seats: tuple[int, ...], record: type[ShowdownHeld] | type[Revealed]) -> None:
        values = {seat: self._evaluate(self.hands[seat]) for seat in seats}
        best = max(values.values())
        leaders = tuple(seat for seat in seats if values[seat] == best)
        winner = leaders[0] if len(leaders) == 1 else None
        shown = {seat: self.hands[seat] for seat in seats}
        self._emit(record(self.pot_number, self.replay, seats, shown, values, winner))
        if winner is not None:
            self._award(winner, shown=True)
        else:
            self._declare_svara(leaders)

    def _award(self, seat: int, *, shown: bool) -> None:
        self.balances[seat] += self.pot
        self._emit(PotWon(self.pot_number, seat, self.pot, shown, tuple(self.balances)))
        self.pot = 0
        self.svara = None
        if self.pot_number == self.rules.pots_per_session:
            self.phase = Phase.FINISHED
            self.to_act = None
            best = max(self.balances)
            winners = tuple(seat for seat, balance in enumerate(self.balances) if balance == best)
            self._emit(SessionEnded(tuple(self.balances), winners))
        else:
            self._start_ordinary_deal((self.pot_dealer + 1) % self.seats)

    def _declare_svara(self, tied: tuple[int, ...]) -> None:
        tied = self._clockwise_from_left_of(self.dealer, tied)
        others = [seat for seat in self.participants if seat not in tied]
        eligible = self._clockwise_from_left_of(self.dealer, others)
        self.svara = SvaraDeclared(self.pot, tied, exact(Fraction(self.pot) / 2), eligible)
        self._emit(self.svara)
        self.offers_left = list(eligible)
        self._entrants = []
        self._offer_or_replay()

    def _offer_or_replay(self) -> None:
        if self.offers_left:
            self.phase = Phase.SVARA_OFFER
            self.to_act = self.offers_left[0]
            return
        assert self.svara is not None
        players = sorted(self.svara.tied + tuple(self._entrants))
        self.replay += 1
        self.dealer = self._next_clockwise(self.dealer, players)
        self._deal(players)
        self.phase = Phase.BETTING
        self.to_act = self._next_clockwise(self.dealer, players)
