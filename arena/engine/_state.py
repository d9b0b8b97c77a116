"""One session of Seka as a state machine: it takes decisions and emits events, and never waits.

Theory of operation
-------------------
A session plays `rules.pots_per_session` ordinary pots. The seat to act is always known, and
the caller feeds it decisions until `phase` is FINISHED. Dealing happens inside the transitions
from an injected `Shuffler`, so the same seed and the same decisions give the same events.

    phase        decision                                      next
    BETTING      fold / bet / show / look / dark_bet / support   BETTING, or the deal resolves (below)
                 / raise_stake / open / call / multiway_open
    SVARA_OFFER  answer_svara(accept)                          SVARA_OFFER (next eligible seat), or a replay

What differs between profiles is asked of the profile (`Rules`): its `betting` (`MaxBet`: fresh
payments up to a maximum and a heads-up show; `CurrentStake`: stacks, a current stake, support,
raise, open or call, short of chips with returned chips, the session cut when an ante cannot be
paid), its `dark` play (`DarkMaxBet`, `DarkStake`), `tie` (svara or split), `multiway_open` and
`cards` per hand. The turn's legal actions are computed once per turn (`legal_actions`) by the
betting model, and every verb checks its decision against them.

A deal resolves when one player is left (he takes the pot unseen), when a heads-up show (or an
open, a call, a short payment) names a stronger hand, or when the action cap forces everyone still
in to reveal. With `tie: split` a tie shares the pot among the tied players instead of a svara. A tie for the best hand
is a svara: the pot is frozen, the other participants of the ordinary deal are asked in turn to
re-enter at half the frozen pot, and the tied players and the entrants get a replay with new
cards, no ante, the dealer moved on to the next replay player. A resolved pot goes to its winner;
then the next ordinary pot is dealt with the deal passed one seat clockwise, or the session ends.

Every decision has the triad `verify_*` (raises `IllegalActionError`, state untouched),
`can_*` (a bool) and the verb itself (changes the state and returns the new events).
"""

from __future__ import annotations

import copy
import enum
import functools
from collections.abc import Callable, Sequence
from fractions import Fraction

from ._actions import (
    Action,
    Bet,
    Call,
    DarkBet,
    Fault,
    Fold,
    LegalActions,
    Look,
    MultiwayOpen,
    Open,
    Raise,
    Show,
    Support,
    SvaraAnswer,
)
from ._amounts import Amount, exact
from ._cards import Card
from ._errors import IllegalActionError
from ._events import (
    Acted,
    AntePaid,
    ChipsReturned,
    Compared,
    Dealt,
    Entered,
    Event,
    Looked,
    PotSplit,
    PotWon,
    Revealed,
    SessionCut,
    SessionEnded,
    SessionStarted,
    ShortOfChips,
    ShowdownHeld,
    SvaraDeclared,
)
from ._hands import HandValue
from ._mix import Mix, choose, mix_draw
from ._rules import CurrentStake, Ending, Rules, Tie, history_format_of_edition
from ._shuffle import Shuffler, draw_first_dealer, seeded_shuffler


class Phase(enum.Enum):
    BETTING = "betting"
    SVARA_OFFER = "svara_offer"
    FINISHED = "finished"


# Enum members as module constants: looking a member up on its class is slow in Python 3.11, and
# the state machine tests its phase at every decision.
_BETTING, _SVARA_OFFER, _FINISHED = Phase.BETTING, Phase.SVARA_OFFER, Phase.FINISHED
_SPLIT, _OPEN, _CALL = Tie.SPLIT, Ending.OPEN, Ending.CALL


def _verify_fault(fault: object) -> None:
    if fault is not None and not isinstance(fault, Fault):
        raise IllegalActionError(f"a fault is a Fault ({', '.join(f.name for f in Fault)}), not {fault!r}")


_action_event = functools.lru_cache(maxsize=4096, typed=True)(Acted)
"""`Acted(seat, kind, amount, fault, stake)`, positional. Events are immutable values, and a few
hundred actions recur in every session: sharing them is five times faster than building each anew."""


def _divided(amount: Amount, factor: int) -> Amount:
    """`amount / factor`, exact; Fraction arithmetic only when it is needed (it is slow)."""
    return amount if factor == 1 else exact(Fraction(amount) / factor)


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
        history_format: int | None = None,
    ) -> None:
        """`history_format`: the format of the history this session writes; by default the one of its rules'
        edition (a replay passes the format of the history it re-checks, which must come out as written)."""
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
        self.history_format = history_format_of_edition(rules.edition) if history_format is None else history_format
        self._mix_key = (seed, session)
        """What every draw of a mixed reply is derived from, with the decision's index (`mix_draw`)."""
        self.actions_taken = 0
        """`action` events so far in the session: the index of the next one's draw (`mix_draw`)."""
        self._pending_mix: tuple[Mix, float] | None = None
        """The mix and draw `apply_mix` hands to the action event it is about to record."""
        self.bots: tuple[str, ...] = tuple(bots)
        self._shuffle = shuffler or seeded_shuffler(seed, rules.deck)
        self._evaluate = rules.evaluator.value
        self._stake_betting = isinstance(rules.betting, CurrentStake)
        self._legal_rule = SessionState._legal_stake if self._stake_betting else SessionState._legal_max_bet
        self._antes = tuple(AntePaid(seat, rules.ante) for seat in range(seats))
        """Every ordinary deal's ante events, built once (events are immutable)."""
        self.events: list[Event] = []
        """Everything that happened, in order: the organiser's complete record."""
        self.balances: list[Amount] = [0] * seats
        """Net chips by seat (stack changes in a stake profile); with the current pot they always sum to zero."""
        self.phase = _BETTING
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
        """The last payment of this deal, or None before the first."""
        self.stake: Amount = rules.opening_stake
        """The current stake of this deal (stake profiles)."""
        self.seen: set[int] = set()
        """Seats of this deal that have seen their cards (all but a possible dark player)."""
        self.dark_seat: int | None = None
        """The seat that bet dark in this deal, or None."""
        self.double_due: Amount | None = None
        """Dark play with a maximum bet: the least next payment by a player who has looked (twice the dark bet)."""
        self.acted: set[int] = set()
        """Seats that have made a betting decision in this deal (an open needs both)."""
        self.payers: list[int] = []
        """Seats in the order they paid in this deal (the multiway open's previous payer)."""
        self.actions_in_deal = 0
        self.deal_actions: list[Acted] = []
        """This deal's actions so far, in order (what every seat's view shows): the `Acted` events since
        `deal_start`, kept as they happen because a view is built at every decision."""
        self.to_act: int | None = None
        """The seat whose decision is awaited (betting or a svara offer); None when finished."""
        self.svara: SvaraDeclared | None = None
        self.offers_left: list[int] = []
        """Seats still to be asked about the current svara, in order."""
        self._entrants: list[int] = []
        self._seen_turns: dict[tuple[int, Amount, int, int | None], LegalActions] = {}
        self._unseen_turns: dict[int, LegalActions] = {}
        self._legal: LegalActions | None = None
        """This turn's legal actions, computed once when the turn starts (`_done`)."""
        self.deal_start = 0
        """Index in `events` of the current deal's first event."""
        self.pot_start = 0
        """Index in `events` of the current ordinary pot's first event."""
        stack = rules.stack
        self._emit(SessionStarted(
            session=session, profile=rules.name, seed=seed, bots=tuple(bots), ante=rules.ante,
            opening_stake=rules.opening_stake, max_bet=rules.max_bet, pots=rules.pots_per_session,
            max_actions=rules.max_actions, first_dealer=first_dealer,
            dealing="seeded" if shuffler is None else "stacked",
            options=() if rules.is_plain_georgian else rules.options,
            stacks=() if stack is None else (stack,) * seats, format=self.history_format))
        self._start_ordinary_deal(first_dealer)
        self._done(0)

    def fork(self, *, shuffler: Shuffler | None = None) -> SessionState:
        """An independent copy to look ahead with: deciding on it leaves this state as it is.

        What an estimator needs to value the choices not taken (arena.ratings, docs/ratings.md). With
        `shuffler`, the copy deals any later deal from it instead (one looking ahead within a deal has no
        use for the next deal's cards, and need not pay for a seeded shuffle).

        >>> from arena.engine import GEORGIAN
        >>> state = SessionState(GEORGIAN, bots=["a", "b"], seed="doc")
        >>> ahead = state.fork()
        >>> _ = ahead.bet(3)
        >>> state.pot, ahead.pot
        (2, 5)
        """
        ahead = copy.copy(self)
        # Every container a decision mutates in place gets its own copy; the rest are replaced, never
        # mutated (hands, participants, svara), or are caches of immutable turns keyed by their inputs.
        ahead.events = self.events.copy()
        ahead.balances = self.balances.copy()
        ahead.in_deal = self.in_deal.copy()
        ahead.seen = self.seen.copy()
        ahead.acted = self.acted.copy()
        ahead.payers = self.payers.copy()
        ahead.deal_actions = self.deal_actions.copy()
        ahead.offers_left = self.offers_left.copy()
        ahead._entrants = self._entrants.copy()
        if shuffler is not None:
            ahead._shuffle = shuffler
        return ahead

    # ---------------------------------------------------------------- queries

    @property
    def is_finished(self) -> bool:
        return self.phase is _FINISHED

    def stack_of(self, seat: int) -> Amount:
        """The chips a seat holds now (stake profiles); a seat's payments in the pot are spent."""
        stack = self.rules.stack
        assert stack is not None, "the profile plays without stacks"
        return exact(stack + self.balances[seat])

    def stacks(self) -> tuple[Amount, ...] | None:
        """Every seat's stack now, or None when the profile plays without stacks."""
        stack = self.rules.stack
        if stack is None:
            return None
        return tuple([exact(stack + balance) for balance in self.balances])

    def legal_actions(self) -> LegalActions:
        """The choices and exact bounds of the betting turn now awaited."""
        legal = self._legal
        if legal is None:
            raise IllegalActionError(f"no betting turn is awaited (phase {self.phase.value})")
        return legal

    def _legal_max_bet(self, seat: int) -> LegalActions:
        rules = self.rules
        if seat not in self.seen:  # the first turn of a deal with dark play: the same for a seat all session
            legal = self._unseen_turns.get(seat)
            if legal is None:
                half = _divided(rules.max_bet, 2)
                can_dark = rules.opening_stake <= half
                legal = self._unseen_turns[seat] = LegalActions(
                    seat, rules.opening_stake, rules.max_bet, None, can_bet=False, seen=False, can_look=True,
                    dark_min=rules.opening_stake if can_dark else None, dark_max=half if can_dark else None)
            return legal
        previous = self.previous_bet
        low = rules.opening_stake if previous is None else previous
        due = self.double_due
        if due is not None and due > low:
            low = due
        if previous is None:
            shape, target = 0, None
        elif len(self.in_deal) == 2:
            shape, target = 1, None
        else:
            shape, target = 2, self._previous_payer(seat) if rules.multiway_open else None
        # A session has few distinct seen turns: each is built once and shared (it is immutable),
        # which is faster than building a named tuple of many fields by keyword.
        key = (seat, low, shape, target)
        legal = self._seen_turns.get(key)
        if legal is None:
            legal = self._seen_turns[key] = LegalActions(
                seat, low, rules.max_bet, low if shape == 1 else None,
                multiway_amount=None if target is None else low, multiway_target=target)
        return legal

    def _previous_payer(self, seat: int) -> int | None:
        for payer in reversed(self.payers):
            if payer != seat and payer in self.in_deal:
                return payer
        return None

    def _unread_dark(self, seat: int) -> bool:
        return seat == self.dark_seat and seat not in self.seen

    def _legal_stake(self, seat: int) -> LegalActions:
        betting = self.rules.betting
        assert isinstance(betting, CurrentStake)
        stake = self.stake
        stack = self.stack_of(seat)
        seen = seat in self.seen
        if not seen and seat != self.dark_seat:
            dark = stake if stack >= stake else None
            return LegalActions(seat, stake, stake, None, can_bet=False, seen=False, can_look=True,
                                dark_min=dark, dark_max=dark)
        other = self.in_deal[0] if self.in_deal[1] == seat else self.in_deal[1]
        factor = 2 if self._unread_dark(other) else 1
        other_factor = 2 if self._unread_dark(seat) else 1
        cost = stake * factor
        short = stack < cost
        pay = stack if short else cost
        raise_min = raise_max = None
        if not short:
            top = min(_divided(stack, factor), _divided(self.stack_of(other), other_factor))
            low = stake + self.rules.opening_stake
            if low <= top:
                raise_min, raise_max = exact(low), top
        both_acted = seat in self.acted and other in self.acted
        return LegalActions(
            seat, stake, stake, None, can_bet=False, seen=seen, can_look=not seen, support_amount=pay,
            raise_min=raise_min, raise_max=raise_max, pay_factor=factor,
            open_amount=pay if betting.ending is _OPEN and both_acted else None,
            call_amount=pay if betting.ending is _CALL and self.payers else None,
            short=short)

    def hand_value(self, seat: int) -> HandValue:
        """The value of a seat's current hand (organiser's knowledge, not a player's)."""
        return self._evaluate(self.hands[seat])

    # ---------------------------------------------------------------- betting

    def _betting_turn(self, what: str) -> LegalActions:
        legal = self._legal  # set exactly while a betting turn is awaited
        if legal is None:
            raise IllegalActionError(f"cannot {what} now: the session is in phase {self.phase.value}")
        return legal

    def _verify_amount(self, what: str, amount: Amount, low: Amount | None, high: Amount | None) -> None:
        if type(amount) is not int and type(amount) is not Fraction:  # not bool, float, or an int subclass
            raise IllegalActionError(f"a {what} is an exact int or Fraction, not {amount!r}")
        if low is None or high is None:
            raise IllegalActionError(f"seat {self.to_act} may not {what} now")
        if not low <= amount <= high:
            raise IllegalActionError(f"seat {self.to_act} may {what} {low} to {high}, not {exact(amount)}")

    def verify_fold(self, *, fault: Fault | None = None) -> None:
        self._verify_phase(_BETTING, "fold")
        if fault is not None:
            _verify_fault(fault)

    def can_fold(self) -> bool:
        return self.phase is _BETTING

    def fold(self, *, fault: Fault | None = None) -> list[Event]:
        """Leave the deal; with `fault`, the arena folds for a bot that failed."""
        self.verify_fold(fault=fault)
        mark = len(self.events)
        seat = self._take_turn("fold", 0, fault)
        self.in_deal.remove(seat)
        if len(self.in_deal) == 1:
            self._award(self.in_deal[0], shown=False)
        else:
            self._next_turn(seat)
        return self._done(mark)

    def verify_bet(self, amount: Amount) -> None:
        legal = self._betting_turn("bet")
        if not legal.can_bet:
            raise IllegalActionError(f"seat {self.to_act} may not bet now"
                                     + ("" if legal.seen else ": it has not seen its cards (look or bet dark)")
                                     + ("" if not self._stake_betting else ": this profile supports and raises"))
        self._verify_amount("pay", amount, legal.min_bet, legal.max_bet)

    def can_bet(self, amount: Amount) -> bool:
        return self._can(self.verify_bet, amount)

    def bet(self, amount: Amount) -> list[Event]:
        """Pay a fresh amount from the previous bet (or the opening stake) up to the maximum."""
        self.verify_bet(amount)
        mark = len(self.events)
        seat = self._take_paying_turn("bet", exact(amount))
        self.double_due = None
        self._next_turn(seat)
        return self._done(mark)

    def verify_show(self) -> None:
        legal = self._betting_turn("show")
        if legal.show_amount is None:
            if len(self.in_deal) != 2:
                raise IllegalActionError(f"a show needs exactly two players in the deal, not {len(self.in_deal)}")
            if self.previous_bet is None:
                raise IllegalActionError("a show needs a previous bet in this deal")
            raise IllegalActionError(f"seat {self.to_act} may not show now")

    def can_show(self) -> bool:
        return self._can(self.verify_show)

    def show(self) -> list[Event]:
        """Pay the least payment (the previous bet) once; both hands are compared."""
        self.verify_show()
        cost = self._betting_turn("show").show_amount
        assert cost is not None
        mark = len(self.events)
        seat = self._take_paying_turn("show", cost)
        self._compare((seat, self._other(seat)), ShowdownHeld)
        return self._done(mark)

    def verify_look(self) -> None:
        if not self._betting_turn("look").can_look:
            raise IllegalActionError(f"seat {self.to_act} has seen its cards already")

    def can_look(self) -> bool:
        return self._can(self.verify_look)

    def look(self) -> list[Event]:
        """See one's own cards; the turn stays with the seat (not an action: the cap does not count it)."""
        self.verify_look()
        seat = self.to_act
        assert seat is not None
        mark = len(self.events)
        self.seen.add(seat)
        self._emit(Looked(seat, self.hands[seat]))
        return self._done(mark)

    def verify_dark_bet(self, amount: Amount) -> None:
        legal = self._betting_turn("bet dark")
        self._verify_amount("bet dark", amount, legal.dark_min, legal.dark_max)

    def can_dark_bet(self, amount: Amount) -> bool:
        return self._can(self.verify_dark_bet, amount)

    def dark_bet(self, amount: Amount) -> list[Event]:
        """Bet without having seen one's cards (dark play)."""
        self.verify_dark_bet(amount)
        amount = exact(amount)
        mark = len(self.events)
        seat = self._take_paying_turn("dark_bet", amount)
        self.dark_seat = seat
        if not self._stake_betting:
            self.double_due = 2 * amount
        self._next_turn(seat)
        return self._done(mark)

    def verify_support(self) -> None:
        if self._betting_turn("support").support_amount is None:
            raise IllegalActionError(f"seat {self.to_act} may not support: "
                                     + ("it has not seen its cards" if self._stake_betting else
                                        "this profile bets fresh amounts"))

    def can_support(self) -> bool:
        return self._can(self.verify_support)

    def support(self) -> list[Event]:
        """Pay the current stake (all that is left when short of chips, and then compare)."""
        self.verify_support()
        legal = self.legal_actions()
        assert legal.support_amount is not None
        return self._pay_stake("support", legal.support_amount, legal, compare=False)

    def verify_raise_stake(self, stake: Amount) -> None:
        legal = self._betting_turn("raise")
        self._verify_amount("raise the stake to", stake, legal.raise_min, legal.raise_max)

    def can_raise_stake(self, stake: Amount) -> bool:
        return self._can(self.verify_raise_stake, stake)

    def raise_stake(self, stake: Amount) -> list[Event]:
        """Lift the current stake to `stake` and pay it (times the dark factor)."""
        self.verify_raise_stake(stake)
        stake = exact(stake)
        cost = stake * self.legal_actions().pay_factor
        mark = len(self.events)
        self.stake = stake
        seat = self._take_paying_turn("raise", cost, stake)
        self._next_turn(seat)
        return self._done(mark)

    def verify_open(self) -> None:
        if self._betting_turn("open").open_amount is None:
            raise IllegalActionError(f"seat {self.to_act} may not open now (an open needs both players to have "
                                     "acted in this deal, in a profile whose betting ends with an open)")

    def can_open(self) -> bool:
        return self._can(self.verify_open)

    def open(self) -> list[Event]:
        """Pay the current stake and compare the two hands."""
        self.verify_open()
        legal = self.legal_actions()
        assert legal.open_amount is not None
        return self._pay_stake("open", legal.open_amount, legal, compare=True)

    def verify_call(self) -> None:
        if self._betting_turn("call").call_amount is None:
            raise IllegalActionError(f"seat {self.to_act} may not call now (a call needs a payment in this deal, "
                                     "in a profile whose betting ends with a call)")

    def can_call(self) -> bool:
        return self._can(self.verify_call)

    def call(self) -> list[Event]:
        """Pay exactly the current stake and compare the two hands."""
        self.verify_call()
        legal = self.legal_actions()
        assert legal.call_amount is not None
        return self._pay_stake("call", legal.call_amount, legal, compare=True)

    def _pay_stake(self, kind: str, amount: Amount, legal: LegalActions, *, compare: bool) -> list[Event]:
        mark = len(self.events)
        seat = self._take_paying_turn(kind, amount)
        other = self._other(seat)
        if legal.short:
            needed = self.stake * legal.pay_factor
            self._emit(ShortOfChips(seat, amount, needed))
            self._return_unmatched(other, amount, needed)
            compare = True
        if compare:
            self._compare((seat, other), ShowdownHeld)
        else:
            self._next_turn(seat)
        return self._done(mark)

    def _return_unmatched(self, other: int, paid: Amount, needed: Amount) -> None:
        """Short of chips: give back what the short payment leaves unmatched (PROFILES.md section 3).

        Edition 2: only a raise is given back, the part of its payment that the short payment does not
        match, `raise payment x (1 - paid / needed)` (so a dark factor on either side is respected); a
        support, open, call or dark bet never is. Edition 1 gave back the other's last payment less the
        short payment, whatever that payment was."""
        last = next((action for action in reversed(self.deal_actions) if action.seat == other), None)
        if last is None:  # the other has not paid in this deal yet
            return
        if self.rules.edition >= 2:
            if last.kind != "raise":
                return
            unmatched = exact(last.amount * (1 - Fraction(paid) / needed))
            returned = ChipsReturned(other, unmatched, raise_paid=last.amount)
        else:
            unmatched = last.amount - paid
            returned = ChipsReturned(other, unmatched)
        if unmatched > 0:
            self.balances[other] += unmatched
            self.pot -= unmatched
            self._emit(returned)

    def verify_multiway_open(self) -> None:
        if self._betting_turn("open against the previous payer").multiway_amount is None:
            raise IllegalActionError(f"seat {self.to_act} may not open against the previous payer now (it needs "
                                     "`open: multiway`, three or more players in and another's payment in this deal)")

    def can_multiway_open(self) -> bool:
        return self._can(self.verify_multiway_open)

    def multiway_open(self) -> list[Event]:
        """Pay the least payment and compare with the previous payer; the weaker (the opener on equal
        values) drops out and the betting goes on."""
        self.verify_multiway_open()
        legal = self.legal_actions()
        cost, target = legal.multiway_amount, legal.multiway_target
        assert cost is not None and target is not None
        mark = len(self.events)
        seat = self._take_paying_turn("multiway_open", cost)
        self.double_due = None
        values = {seat: self._evaluate(self.hands[seat]), target: self._evaluate(self.hands[target])}
        loser = target if values[seat] > values[target] else seat
        self._emit(Compared(self.pot_number, self.replay, seat, target,
                            {seat: self.hands[seat], target: self.hands[target]}, values, loser))
        self.in_deal.remove(loser)
        self._next_turn(seat)
        return self._done(mark)

    # ---------------------------------------------------------------- svara

    def verify_answer_svara(self, accept: bool, *, fault: Fault | None = None) -> None:
        self._verify_phase(_SVARA_OFFER, "answer a svara offer")
        if not isinstance(accept, bool):
            raise IllegalActionError(f"a svara answer is True or False, not {accept!r}")
        _verify_fault(fault)

    def can_answer_svara(self, accept: bool) -> bool:
        return self._can(self.verify_answer_svara, accept)

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
        return self._done(mark)

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
            case Look():
                self.verify_look()
            case DarkBet(amount):
                self.verify_dark_bet(amount)
            case Support():
                self.verify_support()
            case Raise(stake):
                self.verify_raise_stake(stake)
            case Open():
                self.verify_open()
            case Call():
                self.verify_call()
            case MultiwayOpen():
                self.verify_multiway_open()
            case _:
                raise IllegalActionError(f"not an action: {action!r}")

    def verify_mix(self, mix: Mix) -> None:
        """Raise `IllegalActionError` unless `apply_mix(mix)` is allowed now: a well-formed mix of this
        betting turn's legal actions (every entry, even one of probability 0), in a history of format 3 on."""
        if self.history_format < 3:
            raise IllegalActionError(f"history format {self.history_format} has no mixed replies")
        self._verify_phase(_BETTING, "answer with a mix")
        problem = mix.problem()
        if problem is not None:
            raise IllegalActionError(problem)
        for position, (action, _) in enumerate(mix.entries, start=1):
            try:
                self.verify(action)
            except IllegalActionError as error:
                raise IllegalActionError(f"entry {position} of the mix: {error}") from None

    def apply_mix(self, mix: Mix) -> list[Event]:
        """Draw this turn's action from `mix` and apply it; its `action` event records the mix and the draw.

        The draw is `mix_draw(seed, session, index of this action event)`: the same mix at the same point
        of the same session always picks the same action (see `arena.engine.choose`).
        """
        self.verify_mix(mix)
        draw = mix_draw(*self._mix_key, self.actions_taken)
        self._pending_mix = (mix, draw)
        try:
            return self.apply(choose(mix, draw))
        finally:
            self._pending_mix = None

    def apply(self, action: Action | None, *, fault: Fault | None = None) -> list[Event]:
        """Dispatch one decision; `fault` turns it into the arena's fold or decline."""
        if fault is not None:
            if self.phase is _SVARA_OFFER:
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
            case Look():
                return self.look()
            case DarkBet(amount):
                return self.dark_bet(amount)
            case Support():
                return self.support()
            case Raise(stake):
                return self.raise_stake(stake)
            case Open():
                return self.open()
            case Call():
                return self.call()
            case MultiwayOpen():
                return self.multiway_open()
            case _:
                raise IllegalActionError(f"not an action: {action!r}")

    # ---------------------------------------------------------------- transitions

    def _can(self, verify: Callable[..., None], *args: object) -> bool:
        try:
            verify(*args)
        except IllegalActionError:
            return False
        return True

    def _emit(self, event: Event) -> None:
        self.events.append(event)

    def _done(self, mark: int) -> list[Event]:
        """End a decision: compute the next betting turn's legal actions once; return the new events."""
        seat = self.to_act
        self._legal = self._legal_rule(self, seat) if self.phase is _BETTING and seat is not None else None
        return self.events[mark:]

    def _verify_phase(self, phase: Phase, what: str) -> None:
        if self.phase is not phase:
            raise IllegalActionError(f"cannot {what} now: the session is in phase {self.phase.value}")

    def _take_turn(self, kind: str, amount: Amount, fault: Fault | None = None, stake: Amount | None = None) -> int:
        """Record the betting action of the seat to act (it counts toward the deal's cap)."""
        seat = self.to_act
        assert seat is not None
        if self._pending_mix is None:
            action = _action_event(seat, kind, amount, fault, stake)
        else:
            mix, draw = self._pending_mix
            action = Acted(seat, kind, amount, fault, stake, mix, draw)
            self._pending_mix = None
        self.actions_taken += 1
        self.actions_in_deal += 1
        self.acted.add(seat)
        self.events.append(action)
        self.deal_actions.append(action)
        return seat

    def _take_paying_turn(self, kind: str, amount: Amount, stake: Amount | None = None) -> int:
        """A betting action that pays: the payment becomes the previous bet and the seat's last payment."""
        seat = self._take_turn(kind, amount, None, stake)
        self.balances[seat] -= amount
        self.pot += amount
        self.previous_bet = amount
        self.payers.append(seat)
        return seat

    def _other(self, seat: int) -> int:
        return self.in_deal[0] if self.in_deal[1] == seat else self.in_deal[1]

    def _pay(self, seat: int, amount: Amount) -> None:
        self.balances[seat] -= amount
        self.pot += amount

    @staticmethod
    def _next_clockwise(seat: int, among: Sequence[int]) -> int:
        """The first seat of `among` (in seat order) clockwise after `seat`."""
        for candidate in among:
            if candidate > seat:
                return candidate
        return among[0]

    def _clockwise_from_left_of(self, seat: int, seats: Sequence[int]) -> tuple[int, ...]:
        return tuple(sorted(seats, key=lambda s: (s - seat - 1) % self.seats))

    def _deal(self, players: Sequence[int], unseen: tuple[int, ...] = ()) -> None:
        self.deal_start = len(self.events)
        order = self._shuffle(self.pot_number, self.replay)
        size = self.rules.cards
        self.hands = {seat: tuple(order[size * seat : size * seat + size]) for seat in players}
        self.in_deal = sorted(players)
        self.previous_bet = None
        self.stake = self.rules.opening_stake
        self.seen = set(players).difference(unseen)
        self.dark_seat = self.double_due = None
        self.acted = set()
        self.payers = []
        self.actions_in_deal = 0
        self.deal_actions = []
        self._emit(Dealt(self.pot_number, self.replay, self.dealer, dict(self.hands), unseen))

    def _start_ordinary_deal(self, dealer: int) -> None:
        stacks = None if self.rules.stack is None else self.stacks()
        if stacks is not None:
            broke = tuple(seat for seat, stack in enumerate(stacks) if stack < self.rules.ante)
            if broke:
                self._emit(SessionCut(self.pot_number, broke, stacks))
                self._finish()
                return
        self.pot_number += 1
        self.replay = 0
        self.pot_dealer = self.dealer = dealer
        self.pot_start = len(self.events)
        self.participants = tuple(range(self.seats))
        first = self._next_clockwise(dealer, self.participants)
        self._deal(self.participants, (first,) if self.rules.dark is not None else ())
        ante = self.rules.ante
        balances = self.balances
        for seat in self.participants:
            balances[seat] -= ante
        self.pot = ante * self.seats
        self.events.extend(self._antes)
        self.phase = _BETTING
        self.to_act = first

    def _next_turn(self, seat: int) -> None:
        if self.actions_in_deal >= self.rules.max_actions:
            self._compare(self._clockwise_from_left_of(self.dealer, self.in_deal), Revealed)
            return
        self.to_act = following = self._next_clockwise(seat, self.in_deal)
        dark = self.rules.dark
        if dark is not None and dark.auto_look and following == self.dark_seat and following not in self.seen:
            self.seen.add(following)
            self._emit(Looked(following, self.hands[following]))

    def _compare(self, seats: tuple[int, ...], record: type[ShowdownHeld] | type[Revealed]) -> None:
        values = {seat: self._evaluate(self.hands[seat]) for seat in seats}
        best = max(values.values())
        leaders = tuple(seat for seat in seats if values[seat] == best)
        winner = leaders[0] if len(leaders) == 1 else None
        shown = {seat: self.hands[seat] for seat in seats}
        self._emit(record(self.pot_number, self.replay, seats, shown, values, winner))
        if winner is not None:
            self._award(winner, shown=True)
        elif self.rules.tie is _SPLIT:
            self._split(leaders)
        else:
            self._declare_svara(leaders)

    def _award(self, seat: int, *, shown: bool) -> None:
        self.balances[seat] += self.pot
        self._emit(PotWon(self.pot_number, seat, self.pot, shown, tuple(self.balances)))
        self._pot_resolved()

    def _split(self, seats: tuple[int, ...]) -> None:
        share = exact(Fraction(self.pot) / len(seats))
        for seat in seats:
            self.balances[seat] += share
        self._emit(PotSplit(self.pot_number, tuple(sorted(seats)), self.pot, share, tuple(self.balances)))
        self._pot_resolved()

    def _pot_resolved(self) -> None:
        self.pot = 0
        self.svara = None
        if self.pot_number == self.rules.pots_per_session:
            self._finish()
        else:
            self._start_ordinary_deal((self.pot_dealer + 1) % self.seats)

    def _finish(self) -> None:
        self.phase = _FINISHED
        self.to_act = None
        best = max(self.balances)
        winners = tuple(seat for seat, balance in enumerate(self.balances) if balance == best)
        self._emit(SessionEnded(tuple(self.balances), winners))

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
            self.phase = _SVARA_OFFER
            self.to_act = self.offers_left[0]
            return
        assert self.svara is not None
        players = sorted(self.svara.tied + tuple(self._entrants))
        self.replay += 1
        self.dealer = self._next_clockwise(self.dealer, players)
        self._deal(players)
        self.phase = _BETTING
        self.to_act = self._next_clockwise(self.dealer, players)
