"""In-process policies for demos, benchmarks and tests: they read a seat's view, never the state."""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Sequence
from typing import Protocol

from .engine import (
    GEORGIAN_EVALUATOR,
    Action,
    Amount,
    Bet,
    Call,
    Card,
    DarkBet,
    Fold,
    HandEvaluator,
    LegalActions,
    Look,
    Mix,
    MultiwayOpen,
    Open,
    Phase,
    Raise,
    Rules,
    SessionState,
    Show,
    Support,
    SvaraAnswer,
    SvaraView,
    TurnView,
    svara_view,
    turn_view,
)


class Policy(Protocol):
    """A player that decides from what its seat may know: an action, or a `Mix` for the engine to draw from."""

    name: str

    def act(self, view: TurnView) -> Action | Mix: ...

    def svara(self, view: SvaraView) -> SvaraAnswer: ...


# Actions without fields are immutable and equal to any other instance: one of each is enough.
_FOLD, _SHOW, _LOOK, _SUPPORT = Fold(), Show(), Look(), Support()
_OPEN, _CALL, _MULTIWAY_OPEN = Open(), Call(), MultiwayOpen()
_bet = functools.lru_cache(maxsize=1024, typed=True)(Bet)
"""`Bet(amount)`, shared: a random player's few amounts recur, and a frozen dataclass is slow to build."""


class RandomPolicy:
    """Uniformly random among the legal choices: fold, a whole-chip bet in bounds, show; and in the
    other profiles look, a dark bet, support, a raise, open, call and a multiway open.

    It draws with `random()` alone (`randint` and `choice` cost several Python frames a draw, and
    the engine benchmark plays with this policy): uniform to within a float's rounding.
    """

    def __init__(self, rng: random.Random, *, name: str = "random", mixed: bool = False) -> None:
        self.name = name
        self._random = rng.random
        self._mixed = mixed
        """Answer with the uniform `Mix` of the choices (a look is drawn here, as it cannot be mixed)."""

    def act(self, view: TurnView) -> Action | Mix:
        if not self._mixed:
            return self._plain(view)
        # The same choices, each amount drawn here, with equal probabilities: the engine draws the action.
        choices = self._choices(view)
        if _LOOK in choices:
            return choices[int(self._random() * len(choices))]
        return Mix(tuple((choice, 1 / len(choices)) for choice in choices))

    def _choices(self, view: TurnView) -> list[Action]:
        """What `_plain` chooses among, without the second bet when it repeats the first."""
        legal = view.legal
        if not legal.can_bet:
            return self._profile_choices(legal)
        low = legal.min_bet
        choices: list[Action] = [_FOLD, _bet(low)]
        least, top = math.ceil(low), int(legal.max_bet)
        if top > low:
            amount = least + int(self._random() * (top - least + 1))
            if amount != low:
                choices.append(_bet(amount))
        if legal.show_amount is not None:
            choices.append(_SHOW)
        if legal.multiway_amount is not None:
            choices.append(_MULTIWAY_OPEN)
        return choices

    def _plain(self, view: TurnView) -> Action:
        legal = view.legal
        if not legal.can_bet:
            choices = self._profile_choices(legal)
            return choices[int(self._random() * len(choices))]
        low = legal.min_bet
        choices = [_FOLD, _bet(low)]
        least, top = math.ceil(low), int(legal.max_bet)
        if top > low:
            choices.append(_bet(least + int(self._random() * (top - least + 1))))
        if legal.show_amount is not None:
            choices.append(_SHOW)
        if legal.multiway_amount is not None:  # a max-bet profile's seen turn has no other choices
            choices.append(_MULTIWAY_OPEN)
        return choices[int(self._random() * len(choices))]

    def _whole_between(self, low: Amount, high: Amount) -> Amount:
        """A whole amount in [low, high] when one exists, else `low`."""
        least, most = math.ceil(low), math.floor(high)
        return least + int(self._random() * (most - least + 1)) if least <= most else low

    def _profile_choices(self, legal: LegalActions) -> list[Action]:
        choices: list[Action] = [_FOLD]
        if legal.can_look:
            choices.append(_LOOK)
        if legal.dark_min is not None and legal.dark_max is not None:
            choices.append(DarkBet(self._whole_between(legal.dark_min, legal.dark_max)))
        if legal.support_amount is not None:
            choices.append(_SUPPORT)
        if legal.raise_min is not None and legal.raise_max is not None:
            choices.append(Raise(self._whole_between(legal.raise_min, min(legal.raise_max, legal.raise_min * 3))))
        if legal.open_amount is not None:
            choices.append(_OPEN)
        if legal.call_amount is not None:
            choices.append(_CALL)
        if legal.multiway_amount is not None:
            choices.append(_MULTIWAY_OPEN)
        return choices

    def svara(self, view: SvaraView) -> SvaraAnswer:
        return SvaraAnswer(self._random() < 0.5)


class ThresholdPolicy:
    """Raises strong hands, calls middling ones, folds weak ones; shows heads-up when strong.

    It looks at once when it may play dark, and values hands with `evaluator` (the profile's)."""

    def __init__(self, *, call_from: int = 20, raise_from: int = 25, name: str = "threshold",
                 evaluator: HandEvaluator = GEORGIAN_EVALUATOR) -> None:
        self.name = name
        self._call_from = call_from
        self._raise_from = raise_from
        self._evaluator = evaluator

    def act(self, view: TurnView) -> Action:
        legal = view.legal
        if not legal.seen:
            return Look() if legal.can_look else Fold()
        strength = self._evaluator.value(view.cards).strength
        if not legal.can_bet:
            return self._stake_act(legal, strength)
        if legal.can_multiway_open and strength >= self._raise_from:
            return MultiwayOpen()
        if strength >= self._raise_from:
            if legal.can_show and view.actions_in_deal > 6:
                return Show()
            return Bet(legal.max_bet if strength >= 30 else max(legal.min_bet, min(legal.max_bet, 5)))
        if strength >= self._call_from:
            return Show() if legal.can_show else Bet(legal.min_bet)
        return Fold()

    def _stake_act(self, legal: LegalActions, strength: int) -> Action:
        ending = Open() if legal.open_amount is not None else Call() if legal.call_amount is not None else None
        if strength >= self._raise_from:
            if legal.raise_min is not None and legal.raise_max is not None and legal.raise_min <= 4:
                return Raise(legal.raise_min)
            return ending or Support()
        if strength >= self._call_from:
            return ending or Support()
        return Fold()

    def svara(self, view: SvaraView) -> SvaraAnswer:
        return SvaraAnswer(view.price <= 3)


def play_in_process(rules: Rules, policies: Sequence[Policy], *, seed: str, session: str = "") -> SessionState:
    """Play one whole session among in-process policies, seat i played by `policies[i]` (a card-sharing,
    dumping or collecting `ColludingPolicy` is handed its partner's cards before each of its turns)."""
    state = SessionState(rules, bots=[policy.name for policy in policies], seed=seed, session=session)
    svara_offer, finished = Phase.SVARA_OFFER, Phase.FINISHED  # an enum member lookup is slow in Python 3.11
    while (phase := state.phase) is not finished:
        assert state.to_act is not None
        policy = policies[state.to_act]
        if phase is svara_offer:
            state.apply(policy.svara(svara_view(state)))
        else:
            if isinstance(policy, ColludingPolicy) and policy.kind in ("share", "dump", "collect"):
                # A card-sharing (or dumping) pair: the arena hands it its partner's cards, as a leak would.
                seats = [seat for seat in state.in_deal if state.bots[seat] == policy.partner]
                policy.see_partner(state.hands[seats[0]] if seats else ())
            if isinstance(action := policy.act(turn_view(state)), Mix):
                state.apply_mix(action)
            else:
                state.apply(action)
    return state


class SoftThresholdPolicy:
    """`ThresholdPolicy` made soft: at every betting turn it names a distribution over folding, paying
    the least and paying more, weighted by the hand's strength, so an estimator knows its probabilities.

    Probabilities are quarters (exact as doubles). It looks at once when it may play dark, and answers
    svara offers as `ThresholdPolicy` does.
    """

    def __init__(self, *, call_from: int = 20, raise_from: int = 25, name: str = "soft",
                 evaluator: HandEvaluator = GEORGIAN_EVALUATOR) -> None:
        self.name = name
        self._call_from = call_from
        self._raise_from = raise_from
        self._evaluator = evaluator

    def act(self, view: TurnView) -> Action | Mix:
        """This turn's choices with their probabilities (they sum to 1, no action twice); a look, before it
        has seen its cards, is answered plainly (a look is no betting action)."""
        legal = view.legal
        if not legal.seen:
            return _LOOK if legal.can_look else _FOLD
        strength = self._evaluator.value(view.cards).strength
        least, more = self._least_and_more(view, strength)
        weights = ((0.75, 0.25, 0.0) if strength < self._call_from else
                   (0.25, 0.5, 0.25) if strength < self._raise_from else (0.0, 0.25, 0.75))
        merged: dict[Action, float] = {}
        for action, weight in zip((_FOLD, least, more), weights, strict=True):
            if weight:
                merged[action] = merged.get(action, 0.0) + weight
        return Mix.of(merged)

    def _least_and_more(self, view: TurnView, strength: int) -> tuple[Action, Action]:
        legal = view.legal
        if not legal.can_bet:
            ending = _OPEN if legal.open_amount is not None else _CALL if legal.call_amount is not None else None
            least: Action = ending or _SUPPORT
            if legal.raise_min is not None and legal.raise_min <= 4:
                return least, Raise(legal.raise_min)
            return least, least
        least = _bet(legal.min_bet)
        if legal.can_multiway_open and strength >= self._raise_from:
            return least, _MULTIWAY_OPEN
        if legal.can_show and view.actions_in_deal > 6:
            return least, _SHOW
        return least, _bet(legal.max_bet if strength >= 30 else max(legal.min_bet, min(legal.max_bet, 5)))

    def svara(self, view: SvaraView) -> SvaraAnswer:
        return SvaraAnswer(view.price <= 3)


_KINDS = ("soft", "passive", "dump", "collect", "share")


def _least(legal: LegalActions) -> Action:
    """The least that stays in: the smallest bet, or (stake profiles) open, call or support."""
    if legal.can_bet:
        return _bet(legal.min_bet)
    return _OPEN if legal.open_amount is not None else _CALL if legal.call_amount is not None else _SUPPORT


def _most(legal: LegalActions) -> Action:
    """The most one may pay: the largest bet, or (stake profiles) the largest raise, else the least."""
    if legal.can_bet:
        return _bet(legal.max_bet)
    return Raise(legal.raise_max) if legal.raise_max is not None else _least(legal)


class ColludingPolicy:
    """`ThresholdPolicy` that helps a partner bot, for the collusion benchmark and tests (docs/integrity.md).

    `kind` is how, each time with probability `rate` (drawn from `rng`) while the partner is in the deal:

    - "soft": folds a hand it would raise with;
    - "passive": pays the least with a hand it would raise with (soft play without a fold);
    - "dump": is handed the partner's cards; while the partner is in the deal with the better hand,
      bets the most it may at every turn, so that the partner (a "collect" one, which stays in)
      collects the chips at the showdown (one draw per deal);
    - "share": folds whenever the partner's hand, which it is handed (`see_partner`), beats its own;
    - "collect": a dumper's partner: is handed the partner's cards too, and pays the least instead of
      folding when its hand beats the partner's, so that a dump reaches it.
    """

    def __init__(self, base: ThresholdPolicy, *, partner: str, kind: str, rate: float, rng: random.Random,
                 evaluator: HandEvaluator = GEORGIAN_EVALUATOR) -> None:
        if kind not in _KINDS:
            raise ValueError(f"kind must be one of {', '.join(_KINDS)}, not {kind!r}")
        self.name = base.name
        self.partner = partner
        self.kind = kind
        self._base = base
        self._rate = rate
        self._random = rng.random
        self._evaluator = evaluator
        self._partner_cards: tuple[Card, ...] = ()
        # The deal `_dump` was drawn for, told by its pot, replay, seating and cards (the pot and replay
        # alone recur in the next session).
        self._dump_deal: tuple[object, ...] | None = None
        self._dump = False

    def see_partner(self, cards: tuple[Card, ...]) -> None:
        """The arena hands the partner's cards (a card-sharing pair sees each other's)."""
        self._partner_cards = cards

    def act(self, view: TurnView) -> Action:
        legal = view.legal
        partner_in = any(view.bots[seat] == self.partner for seat in view.in_deal)
        if not partner_in or not legal.seen:
            return self._base.act(view)
        strength = self._evaluator.value(view.cards).strength
        if self.kind == "soft" and strength >= self._base._raise_from and self._random() < self._rate:
            return _FOLD
        if self.kind == "passive" and strength >= self._base._raise_from and self._random() < self._rate:
            return _least(legal)
        partner = self._evaluator.value(self._partner_cards).strength if self._partner_cards else None
        if self.kind == "collect" and partner is not None and partner < strength:
            action = self._base.act(view)
            return _least(legal) if action == _FOLD else action
        if self.kind == "dump" and partner is not None and partner > strength:
            deal = (view.pot_number, view.replay, view.bots, view.cards)
            if self._dump_deal != deal:  # one draw per deal: dump it or play it straight
                self._dump_deal, self._dump = deal, self._random() < self._rate
            if self._dump:
                return _most(legal)
        if not legal.can_bet:
            return self._base.act(view)
        if (self.kind == "share" and self._partner_cards
                and self._evaluator.value(self._partner_cards).strength > strength and self._random() < self._rate):
            return _FOLD
        return self._base.act(view)

    def svara(self, view: SvaraView) -> SvaraAnswer:
        return self._base.svara(view)
