"""Mixed replies: a probability for each of some betting actions, and the draw that picks one.

Theory of operation: a bot may answer a betting turn with a `Mix` instead of an action. The arena
draws the action from a uniform U in [0, 1) that it derives, like the deals, from the session's
seed: U = (the first 8 bytes of HMAC-SHA256(seed, `seka-mix|<session>|<index>`), big-endian, >> 11)
/ 2**53, where `index` counts the session's `action` events before this one. The seed is secret while
the session runs (a tournament's comes from its committed secret), so no bot can foresee a draw, and
anyone given the history re-derives every draw afterwards: `replay` does. `choose` then takes the
first entry whose running sum of probabilities exceeds U times their total (docs/history.md).
Nothing here reads a clock or a global random state.
"""

from __future__ import annotations

import hashlib
import hmac
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ._actions import Action, Bet, Call, DarkBet, Fold, MultiwayOpen, Open, Raise, Show, Support
from ._amounts import format_amount, parse_amount

MAX_MIX_ENTRIES = 64
"""The most entries a mix may have: more than any turn's distinct kinds, room for a few amounts each."""
MIX_TOLERANCE = 1e-9
"""How far from 1 the probabilities of a mix may sum (absolute, so relative to the total of 1)."""

_FIXED: dict[str, Action] = {"fold": Fold(), "show": Show(), "support": Support(), "open": Open(),
                             "call": Call(), "multiway_open": MultiwayOpen()}
_KIND_OF: dict[type, str] = {type(action): kind for kind, action in _FIXED.items()}
_KIND_OF.update({Bet: "bet", DarkBet: "dark_bet", Raise: "raise"})


def mix_kind(action: Action) -> str | None:
    """The history's kind of a betting action a mix may hold (`bet`, `raise`, ...), or None (a look, a svara answer).

    >>> mix_kind(Bet(3)), mix_kind(Fold())
    ('bet', 'fold')
    """
    return _KIND_OF.get(type(action))


@dataclass(frozen=True, slots=True)
class Mix:
    """A distribution over betting actions, in the order the bot gave them: (action, probability) pairs.

    Build it with `Mix.of({Fold(): 0.25, Bet(3): 0.75})`; `problem()` says whether it is well formed.
    """

    entries: tuple[tuple[Action, float], ...]

    @classmethod
    def of(cls, probabilities: dict[Action, float] | Sequence[tuple[Action, float]]) -> Mix:
        """A mix from a mapping or pairs, in their order.

        >>> Mix.of({Fold(): 0.5, Bet(2): 0.5}).entries
        ((Fold(), 0.5), (Bet(amount=2), 0.5))
        """
        pairs = probabilities.items() if isinstance(probabilities, dict) else probabilities
        return cls(tuple((action, p) for action, p in pairs))

    def problem(self) -> str | None:
        """What makes this mix malformed, or None; whether each action is legal is the state's to say.

        >>> Mix.of({Fold(): 0.5, Bet(2): 0.25}).problem()
        'the probabilities sum to 0.75, not 1 (within 1e-09)'
        >>> Mix.of({Fold(): 1.0}).problem() is None
        True
        """
        if not self.entries:
            return "a mix without entries"
        if len(self.entries) > MAX_MIX_ENTRIES:
            return f"a mix of {len(self.entries)} entries; at most {MAX_MIX_ENTRIES} are allowed"
        seen: set[Action] = set()
        for position, (action, p) in enumerate(self.entries, start=1):
            if mix_kind(action) is None:
                return f"entry {position} is {action!r}: a mix holds betting actions only (answer a look plainly)"
            if type(p) is not float or not math.isfinite(p):
                return f"entry {position} has probability {p!r}: not a finite number"
            if p < 0:
                return f"entry {position} has a negative probability {p!r}"
            if action in seen:
                return f"entry {position} repeats {action!r}: each action may appear once"
            seen.add(action)
        total = math.fsum(p for _, p in self.entries)
        if abs(total - 1) > MIX_TOLERANCE:
            return f"the probabilities sum to {total:.12g}, not 1 (within {MIX_TOLERANCE!r})"
        return None

    def to_json(self) -> list[dict[str, Any]]:
        """The history's `mix`: each entry's kind, its amount (bet, dark bet) or stake (raise), and `p`."""
        records: list[dict[str, Any]] = []
        for action, p in self.entries:
            record: dict[str, Any] = {"kind": mix_kind(action)}
            if isinstance(action, (Bet, DarkBet)):
                record["amount"] = format_amount(action.amount)
            elif isinstance(action, Raise):
                record["stake"] = format_amount(action.stake)
            record["p"] = p
            records.append(record)
        return records

    @classmethod
    def from_json(cls, records: object) -> Mix:
        """The mix a history records; `ValueError` names what is wrong with it.

        >>> Mix.from_json([{"kind": "bet", "amount": "3", "p": 0.5}, {"kind": "fold", "p": 0.5}]).entries
        ((Bet(amount=3), 0.5), (Fold(), 0.5))
        """
        if not isinstance(records, list):
            raise ValueError(f"a mix is a list of entries, not {records!r}")
        entries: list[tuple[Action, float]] = []
        for record in records:
            if not isinstance(record, dict) or not isinstance(record.get("p"), (int, float)):
                raise ValueError(f"a mix entry is an object with a number 'p', not {record!r}")
            kind = record.get("kind")
            action: Action
            if kind in ("bet", "dark_bet"):
                action = (Bet if kind == "bet" else DarkBet)(parse_amount(str(record.get("amount"))))
            elif kind == "raise":
                action = Raise(parse_amount(str(record.get("stake"))))
            elif isinstance(kind, str) and kind in _FIXED:
                action = _FIXED[kind]
            else:
                raise ValueError(f"unknown kind in a mix entry: {kind!r}")
            entries.append((action, float(record["p"])))
        return cls(tuple(entries))


def mix_draw(seed: str, session: str, index: int) -> float:
    """The uniform in [0, 1) that picks the action of the session's `index`-th action event (from 0).

    >>> mix_draw("demo", "s1", 0) == mix_draw("demo", "s1", 0) != mix_draw("demo", "s1", 1)
    True
    >>> 0 <= mix_draw("demo", "s1", 0) < 1
    True
    """
    digest = hmac.new(seed.encode("utf-8"), f"seka-mix|{session}|{index}".encode(), hashlib.sha256).digest()
    return (int.from_bytes(digest[:8], "big") >> 11) / (1 << 53)


def choose(mix: Mix, draw: float) -> Action:
    """The entry `draw` picks: the first whose running sum of probabilities exceeds `draw` times their total.

    Sums and the product are plain doubles, left to right, so every reader picks the same entry; when
    rounding leaves none (a draw just below 1), the last entry with a positive probability.

    >>> mix = Mix.of({Fold(): 0.25, Bet(2): 0.0, Show(): 0.75})
    >>> choose(mix, 0.0), choose(mix, 0.2499), choose(mix, 0.25), choose(mix, 0.999999)
    (Fold(), Fold(), Show(), Show())
    """
    running = 0.0
    sums = []
    for _, p in mix.entries:
        running += p
        sums.append(running)
    threshold = draw * running
    for (action, _), total in zip(mix.entries, sums, strict=True):
        if total > threshold:
            return action
    return next(action for action, p in reversed(mix.entries) if p > 0)
