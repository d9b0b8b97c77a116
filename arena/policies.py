"""In-process policies for demos, benchmarks and tests: they read a seat's view, never the state."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Protocol

from .engine import (
    GEORGIAN_EVALUATOR,
    Action,
    Bet,
    Fold,
    Phase,
    Rules,
    SessionState,
    Show,
    SvaraAnswer,
    SvaraView,
    TurnView,
    svara_view,
    turn_view,
)


class Policy(Protocol):
    """A player that decides from what its seat may know."""

    name: str

    def act(self, view: TurnView) -> Action: ...

    def svara(self, view: SvaraView) -> SvaraAnswer: ...


class RandomPolicy:
    """Uniformly random among fold, a whole-chip bet in bounds, and show when allowed."""

    def __init__(self, rng: random.Random, *, name: str = "random") -> None:
        self.name = name
        self._rng = rng

    def act(self, view: TurnView) -> Action:
        legal = view.legal
        choices: list[Action] = [Fold(), Bet(legal.min_bet)]
        top = int(legal.max_bet)
        if top > legal.min_bet:
            choices.append(Bet(self._rng.randint(math.ceil(legal.min_bet), top)))
        if legal.can_show:
            choices.append(Show())
        return self._rng.choice(choices)

    def svara(self, view: SvaraView) -> SvaraAnswer:
        return SvaraAnswer(self._rng.random() < 0.5)


class ThresholdPolicy:
    """Raises strong hands, calls middling ones, folds weak ones; shows heads-up when strong."""

    def __init__(self, *, call_from: int = 20, raise_from: int = 25, name: str = "threshold") -> None:
        self.name = name
        self._call_from = call_from
        self._raise_from = raise_from

    def act(self, view: TurnView) -> Action:
        strength = GEORGIAN_EVALUATOR.value(view.cards).strength
        legal = view.legal
        if strength >= self._raise_from:
            if legal.can_show and view.actions_in_deal > 6:
                return Show()
            return Bet(legal.max_bet if strength >= 30 else max(legal.min_bet, min(legal.max_bet, 5)))
        if strength >= self._call_from:
            return Show() if legal.can_show else Bet(legal.min_bet)
        return Fold()

    def svara(self, view: SvaraView) -> SvaraAnswer:
        return SvaraAnswer(view.price <= 3)


def play_in_process(rules: Rules, policies: Sequence[Policy], *, seed: str, session: str = "") -> SessionState:
    """Play one whole session among in-process policies, seat i played by `policies[i]`."""
    state = SessionState(rules, bots=[policy.name for policy in policies], seed=seed, session=session)
    while not state.is_finished:
        assert state.to_act is not None
        policy = policies[state.to_act]
        if state.phase is Phase.SVARA_OFFER:
            state.apply(policy.svara(svara_view(state)))
        else:
            state.apply(policy.act(turn_view(state)))
    return state
