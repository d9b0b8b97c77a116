"""Helpers for the tests of the profiles other than plain `georgian`: stacked tables of any profile."""

from __future__ import annotations

import json
from collections.abc import Mapping

from arena.engine import Rules, SessionState, parse_cards, seeded_shuffler, stacked_shuffler
from arena.history import history_text
from arena.replay import ReplayResult, replay_records

NAMES = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel")


def stacked(rules: Rules, seats: int, *, first_dealer: int, deals: Mapping[tuple[int, int], Mapping[int, str]],
            seed: str = "profiles") -> SessionState:
    """A session of `rules` whose chosen deals give chosen seats chosen cards (text like "Ah As 7d")."""
    chosen = {key: {seat: parse_cards(text) for seat, text in spec.items()} for key, spec in deals.items()}
    shuffler = stacked_shuffler(chosen, seeded_shuffler(seed, rules.deck), cards=rules.cards)
    return SessionState(rules, bots=list(NAMES[:seats]), seed=seed, first_dealer=first_dealer, shuffler=shuffler)


def replayed(state: SessionState) -> ReplayResult:
    """The state's history, written out and re-checked by `replay` (it raises at any disagreement)."""
    records = [json.loads(line) for line in history_text(state.events).splitlines()]
    return replay_records(records)
