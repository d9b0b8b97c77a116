"""A session's replay as data for the viewer: every step with the pot, each balance and the cards a
reader of that page may see, built from the documented history format (docs/history.md) alone.

Theory of operation: a history's records are read as docs/history.md describes them, never through
the engine, so that a history written by any version of the arena with the same format renders.
A seat's view is made by redacting the records first (`redact_records`: its own cards, and only
the cards the table saw turned over) and then building the steps from what is left, so another
seat's unshown cards are never in that page's data at all. Event kinds this viewer does not know
(other rule profiles add some) become generic steps listing their fields; in a seat's view any
field of theirs that holds a card is dropped, since this viewer cannot know who saw it.

Steps: one per record after `session_start`, except that the antes of an ordinary deal join the
deal's step (they are paid before anyone acts). Amounts stay exact: strings such as `"15/2"`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from typing import Any

from ..engine import HISTORY_FORMAT, Amount, ArenaError, format_amount, parse_amount
from ..storage import FaultReason
from ._formats import exact_text

FORMAT_VERSION = HISTORY_FORMAT
"""The newest history format this viewer reads (docs/history.md, "Format version"); it reads every older one."""
_READABLE_FORMATS = range(1, FORMAT_VERSION + 1)

_CARD = re.compile(r"[6-9TJQKA][cdhs]")
_SUITS = {"c": "\u2663", "d": "\u2666", "h": "\u2665", "s": "\u2660"}
_RANK_NAMES = {"6": "six", "7": "seven", "8": "eight", "9": "nine", "T": "ten", "J": "jack", "Q": "queen",
               "K": "king", "A": "ace"}
_SUIT_NAMES = {"c": "clubs", "d": "diamonds", "h": "hearts", "s": "spades"}
_KNOWN = frozenset({"session_start", "deal", "look", "ante", "action", "comparison", "short", "returned", "reveal",
                    "showdown", "svara", "entry", "pot_won", "split", "session_cut", "session_end"})
# Secret to a seat in format 1 (docs/history.md; arena.engine.redact_for does the same for the bots):
# the other hands of a deal, and its own while it may bet dark (until it looks); another seat's
# look; the two hands of a multiway open, except to those two. Everything else is public.
_CARD_FIELDS = {"session_start": ("options",), "deal": ("hands",), "look": ("cards",), "comparison": ("hands",),
                "showdown": ("hands",), "reveal": ("hands",)}
"""The fields of docs/history.md that hold cards (options: classic's `wild` names one), redacted above."""
_MIX_FIELDS = ("mix", "draw")
"""An action's distribution and draw (format 3): its own seat's and the organisers' to see."""
_SECRET_START_FIELDS = ("seed",)
"""A seeded history's seed deals every card of the session: a seat never learns it."""
SPECTATOR = -1
"""The view of a reader at no seat (`replay_data(records, seat=SPECTATOR)`): the public actions and
the hands turned over at a showdown or a forced reveal, never a folded, unseen or compared hand nor
the seed. What a spectator at the table sees, and so what a public page shows."""


class ReplayDataError(ArenaError):
    """A history this viewer cannot show: it names the record and what is wrong with it."""


def card_text(card: str) -> str:
    """A card as the viewer shows it: rank then suit symbol, ten as `10`.

    >>> card_text("Th"), card_text("As")
    ('10♥', 'A♠')
    """
    rank = "10" if card[0] == "T" else card[0]
    return rank + _SUITS.get(card[1:], card[1:])


def card_name(card: str) -> str:
    """A card's spoken name, for screen readers.

    >>> card_name("Qd")
    'queen of diamonds'
    """
    return f"{_RANK_NAMES.get(card[:1], card[:1])} of {_SUIT_NAMES.get(card[1:], card[1:])}"


def is_card(value: object) -> bool:
    """Whether `value` is a card as histories write them (`"Th"`)."""
    return isinstance(value, str) and _CARD.fullmatch(value) is not None


def _holds_card(value: object) -> bool:
    if isinstance(value, str):
        return is_card(value)
    if isinstance(value, Mapping):
        return any(_holds_card(item) for item in value.values())
    if isinstance(value, list | tuple):
        return any(_holds_card(item) for item in value)
    return False


def redact_records(records: Sequence[Mapping[str, Any]], seat: int) -> list[dict[str, Any]]:
    """The records as `seat` could know them: its own hand in each deal, the hands shown at a showdown
    or a forced reveal, every public action; its own mixed replies' distributions and draws, no other
    seat's; no seed; no card in an event kind this viewer does not know.
    With `SPECTATOR` (a seat nobody holds), no hand but those shown and no distribution.
    """
    redacted: list[dict[str, Any]] = []
    for record in records:
        kind = record.get("event")
        copy = dict(record)
        if kind == "session_start":
            for field in _SECRET_START_FIELDS:
                copy.pop(field, None)
        elif kind == "deal":
            hands = record.get("hands")
            if isinstance(hands, Mapping):
                # Who was dealt in is public (everyone sees who holds cards); what they hold is not.
                copy["dealt"] = sorted(int(key) for key in hands if isinstance(key, str) and key.isdigit())
                unseen = record.get("unseen")
                dark = isinstance(unseen, list) and seat in unseen
                copy["hands"] = {key: cards for key, cards in hands.items() if key == str(seat) and not dark}
            else:
                copy["hands"] = {}
        elif kind == "look":
            if record.get("seat") != seat:
                copy["cards"] = []
        elif kind == "comparison":
            if seat not in (record.get("opener"), record.get("target")):
                copy["hands"], copy["values"] = {}, {}
        elif kind == "action" and record.get("seat") != seat:
            copy = _without_mix(copy)
        # Any other field that holds a card (an unknown kind's, or a field a later writer added to a
        # known kind) is dropped: this viewer cannot know who saw it.
        allowed = _CARD_FIELDS.get(str(kind), ())
        hidden = sorted(key for key, value in copy.items() if key not in allowed and _holds_card(value))
        if hidden:
            copy = {key: value for key, value in copy.items() if key not in hidden}
            copy["hidden_fields"] = hidden
        redacted.append(copy)
    return redacted


def _without_mix(record: dict[str, Any]) -> dict[str, Any]:
    # A mix shows the bot's policy with the cards it held: its own seat's and the organisers' alone.
    return {key: value for key, value in record.items() if key not in _MIX_FIELDS}


def without_mixes(records: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The records without any seat's mixed replies (`mix`, `draw`): what a report published with every
    hand shows; the distributions stay their authors' and the organisers'."""
    return [_without_mix(dict(record)) if record.get("event") == "action" else dict(record) for record in records]


def _amount(record: Mapping[str, Any], field: str, number: int) -> Amount:
    value = record.get(field)
    if not isinstance(value, str):
        raise ReplayDataError(f"record {number} ({record.get('event')}): {field} must be an amount string, "
                              f"not {value!r}")
    try:
        return _parse_amount(value)
    except ValueError:
        raise ReplayDataError(f"record {number} ({record.get('event')}): {field} is not an amount: {value!r}") from None


_parse_amount = functools.lru_cache(maxsize=4096)(parse_amount)
"""The engine's `parse_amount`, cached: a session repeats a few amount strings thousands of times."""


_text = exact_text


def _seat(record: Mapping[str, Any], field: str, number: int, seats: int) -> int:
    value = record.get(field)
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < seats:
        raise ReplayDataError(f"record {number} ({record.get('event')}): {field} must be a seat 0..{seats - 1}, "
                              f"not {value!r}")
    return value


def _seat_map(record: Mapping[str, Any], field: str, number: int, seats: int) -> dict[int, Any]:
    value = record.get(field)
    if not isinstance(value, Mapping):
        raise ReplayDataError(f"record {number} ({record.get('event')}): {field} must be an object keyed by seat")
    result: dict[int, Any] = {}
    for key, item in value.items():
        if not (isinstance(key, str) and key.isdigit() and int(key) < seats):
            raise ReplayDataError(f"record {number} ({record.get('event')}): {field} has a key {key!r} that is "
                                  f"not a seat")
        result[int(key)] = item
    return result


def _cards(value: object, number: int) -> list[str]:
    if not isinstance(value, list) or not all(is_card(card) for card in value):
        raise ReplayDataError(f"record {number}: hands must be lists of cards, not {value!r}")
    return list(value)


class _Builder:
    """Walks the records once, keeping the table as a reader of the page sees it."""

    def __init__(self, start: Mapping[str, Any], *, seat: int | None,
                 reasons: Mapping[str, Sequence[FaultReason]]) -> None:
        seats = start.get("seats")
        if not isinstance(seats, list) or not seats or not all(
                isinstance(entry, Mapping) and isinstance(entry.get("bot"), str) for entry in seats):
            raise ReplayDataError("record 1 (session_start): seats must be a list of {seat, bot}")
        self.bots: list[str] = [entry["bot"] for entry in seats]
        if seat is not None and seat != SPECTATOR and not 0 <= seat < len(self.bots):
            raise ReplayDataError(f"no seat {seat} in a session of {len(self.bots)} seats")
        self.view = seat
        self.reasons = reasons
        self.pot: Amount = 0
        self.balances: list[Amount] = [0] * len(self.bots)
        self.pot_number = 0
        self.replay = 0
        self.dealer: int | None = None
        self.cards: dict[int, list[str] | None] = {}
        """Seats dealt in this deal: their cards, or None when the reader cannot know them."""
        self.values: dict[int, str] = {}
        self.folded: set[int] = set()
        self.faulted: dict[int, str] = {}
        self.stacks: list[Amount] | None = None
        """Each seat's starting stack, in a stake profile (a stack is its starting stack plus its balance)."""
        stacks = start.get("stacks")
        if stacks is not None:
            found = _seat_map(start, "stacks", 1, len(self.bots))
            self.stacks = [_amount({"event": "session_start", "stack": found.get(seat, "0")}, "stack", 1)
                           for seat in range(len(self.bots))]
        self.opening_stake: Amount | None = None if stacks is None else _amount(start, "opening_stake", 1)
        self.stake = self.opening_stake
        """The deal's current stake, in a stake profile: the table stake at each deal, then each raise's."""
        self.dark: set[int] = set()
        """Seats that may still bet without having seen their cards."""
        self.steps: list[dict[str, Any]] = []
        self.hand_sets: list[list[dict[str, Any] | None]] = []
        self.pots: list[dict[str, Any]] = []
        self.curve: list[list[str]] = [["0"] * len(self.bots)]
        self.faults: list[dict[str, Any]] = []
        self.notes: list[str] = []

    def name(self, seat: int) -> str:
        return self.bots[seat]

    def _hands(self) -> list[dict[str, Any] | None]:
        hands: list[dict[str, Any] | None] = []
        for seat in range(len(self.bots)):
            if seat not in self.cards:
                hands.append(None)
                continue
            hands.append({"cards": self.cards[seat], "value": self.values.get(seat), "folded": seat in self.folded,
                          "fault": self.faulted.get(seat), "dark": seat in self.dark})
        return hands

    def _hand_set(self, kind: str) -> int:
        # Steps share the table of hands until a deal, a fold or a show changes it: a page holds
        # each state once (a session of 100 steps has a dozen or so).
        if self.hand_sets and kind in _HANDS_KEPT:
            return len(self.hand_sets) - 1
        hands = self._hands()
        if not self.hand_sets or self.hand_sets[-1] != hands:
            self.hand_sets.append(hands)
        return len(self.hand_sets) - 1

    def step(self, number: int, kind: str, text: str, *, actor: int | None = None, fault: str | None = None,
             reason: str | None = None) -> None:
        step: dict[str, Any] = {
            "record": number, "kind": kind, "text": text, "pot_number": self.pot_number, "replay": self.replay,
            "pot": _text(self.pot),
            "balances": [_text(balance) for balance in self.balances], "hands": self._hand_set(kind),
            "dealer": self.dealer, "actor": actor,
        }
        if self.stacks is not None:
            step["stacks"] = [_text(stack + balance) for stack, balance in zip(self.stacks, self.balances, strict=True)]
        if self.stake is not None:
            step["stake"] = _text(self.stake)
        if fault is not None:
            step["fault"] = fault
            step["reason"] = reason
        self.steps.append(step)

    def fault_reason(self, seat: int, kind: str) -> str | None:
        notes = [note for note in self.reasons.get(self.name(seat), ()) if note.kind == kind]
        if not notes:
            return None
        return " / ".join(note.reason for note in notes)

    def record(self, record: Mapping[str, Any], number: int) -> None:
        kind = record["event"]
        seats = len(self.bots)
        if kind == "deal":
            self.pot_number = _int(record, "pot", number)
            self.replay = _int(record, "replay", number)
            self.dealer = _seat(record, "dealer", number, seats)
            hands = _seat_map(record, "hands", number, seats)
            dealt = self._dealt_seats(record, hands)
            if self.replay == 0:
                self.pot = 0
                self.pots.append({"pot": self.pot_number, "step": len(self.steps), "winner": None, "split": None,
                                  "amount": None, "shown": None, "svaras": 0, "balances": None})
            self.cards = {seat: (_cards(hands[seat], number) if seat in hands else None) for seat in dealt}
            self.values, self.folded, self.faulted = {}, set(), {}
            self.stake = self.opening_stake
            unseen = record.get("unseen")
            self.dark = {s for s in unseen if isinstance(s, int)} if isinstance(unseen, list) else set()
            what = (f"Pot {self.pot_number}" if self.replay == 0
                    else f"Pot {self.pot_number}, svara replay {self.replay}")
            self.step(number, kind, f"{what}: {self.name(self.dealer)} deals to "
                      f"{', '.join(self.name(seat) for seat in dealt)}")
        elif kind == "ante":
            seat, amount = self._payment(record, number)
            last = self.steps[-1] if self.steps else None
            if last is not None and last["kind"] in ("deal", "ante") and last["pot_number"] == self.pot_number:
                # The antes are paid before anyone acts: they belong to the deal's step.
                antes = last.setdefault("antes", [])
                antes.append(f"{self.name(seat)} {_text(amount)}")
                last["text"] = last["text"].split("; antes")[0] + "; antes " + ", ".join(antes)
                last["pot"] = _text(self.pot)
                last["balances"] = [_text(balance) for balance in self.balances]
                if self.stacks is not None:  # the stacks after the antes, as the balances
                    last["stacks"] = [_text(stack + balance)
                                      for stack, balance in zip(self.stacks, self.balances, strict=True)]
            else:
                self.step(number, kind, f"{self.name(seat)} pays the ante, {_text(amount)}", actor=seat)
        elif kind == "action":
            self._action(record, number)
        elif kind in ("showdown", "reveal"):
            self._compare(record, number, kind)
        elif kind == "svara":
            frozen = _amount(record, "frozen_pot", number)
            price = _amount(record, "price", number)
            tied = _list(record, "tied", number, seats)
            eligible = _list(record, "eligible", number, seats)
            if self.pots:
                self.pots[-1]["svaras"] += 1
            asked = (f"offered to {', '.join(self.name(s) for s in eligible)}" if eligible
                     else "nobody else may re-enter")
            self.step(number, kind, f"Svara: {' and '.join(self.name(s) for s in tied)} tie; the pot of "
                      f"{_text(frozen)} is frozen and replayed; re-entry costs {_text(price)}, {asked}")
        elif kind == "entry":
            seat, amount = self._payment(record, number)
            fault = record.get("fault")
            if record.get("accepted") is True:
                text = f"{self.name(seat)} re-enters for {_text(amount)}"
            else:
                text = f"{self.name(seat)} declines to re-enter"
            self._fault_step(number, kind, text, seat, fault)
        elif kind == "pot_won":
            self._pot_won(record, number)
        elif kind == "split":
            self._split(record, number)
        elif kind == "look":
            seat = _seat(record, "seat", number, seats)
            cards = record.get("cards")
            if isinstance(cards, list) and cards:
                self.cards[seat] = _cards(cards, number)
            self.dark.discard(seat)
            self.step(number, kind, f"{self.name(seat)} looks at its cards", actor=seat)
        elif kind == "comparison":
            self._comparison(record, number)
        elif kind == "short":
            seat = _seat(record, "seat", number, seats)
            paid, needed = _amount(record, "paid", number), _amount(record, "needed", number)
            self.step(number, kind, f"{self.name(seat)} is short of chips: it paid {_text(paid)}, all it had, "
                      f"of {_text(needed)}; the hands are compared at once", actor=seat)
        elif kind == "returned":
            seat = _seat(record, "seat", number, seats)
            amount = _amount(record, "amount", number)
            self.pot -= amount
            self.balances[seat] += amount
            what = (f"the part of its raise of {_text(_amount(record, 'raise', number))} the short payment did not "
                    "match" if "raise" in record else "the part of its last payment nobody matched")
            self.step(number, kind, f"{_text(amount)} goes back to {self.name(seat)}: {what}", actor=seat)
        elif kind == "session_cut":
            cut = _list(record, "seats", number, seats)
            self.step(number, kind, f"The session ends after {record.get('pots_played')} pots: "
                      f"{', '.join(self.name(s) for s in cut)} cannot pay the next ante")
        elif kind == "session_end":
            balances = _seat_map(record, "balances", number, seats)
            for seat, value in balances.items():
                self.balances[seat] = _amount({"balance": value, "event": kind}, "balance", number)
            winners = record.get("winners")
            names = [self.name(s) for s in winners if isinstance(s, int) and 0 <= s < seats] if isinstance(
                winners, list) else []
            self.step(number, kind, f"Session over: {' and '.join(names) or 'nobody'} "
                      f"{'wins' if len(names) == 1 else 'share the lead'}; "
                      + ", ".join(f"{self.name(s)} {_text(b)}" for s, b in enumerate(self.balances)))
        else:
            self._unknown(record, number)

    def _dealt_seats(self, record: Mapping[str, Any], hands: Mapping[int, Any]) -> list[int]:
        # A seat's redacted view of a deal lists only its own hand; who was dealt in is public
        # (`dealt`, which redact_records keeps); an unredacted deal lists every hand.
        dealt = record.get("dealt")
        if isinstance(dealt, list) and all(isinstance(s, int) and 0 <= s < len(self.bots) for s in dealt):
            return sorted(dealt)
        return sorted(hands)

    def _fault_step(self, number: int, kind: str, text: str, seat: int, fault: object) -> None:
        if isinstance(fault, str):
            reason = self.fault_reason(seat, fault)
            self.faulted[seat] = fault
            self.faults.append({"step": len(self.steps), "seat": seat, "bot": self.name(seat), "kind": fault,
                                "reason": reason, "pot": self.pot_number})
            text += f" [fault: {fault}{', ' + reason if reason else ''}; the arena acted for the bot]"
            self.step(number, kind, text, actor=seat, fault=fault, reason=reason)
        else:
            self.step(number, kind, text, actor=seat)

    def _payment(self, record: Mapping[str, Any], number: int) -> tuple[int, Amount]:
        """The paying seat and amount of an ante, entry or action record, moved from its balance into the pot."""
        seat = _seat(record, "seat", number, len(self.bots))
        amount = _amount(record, "amount", number)
        self.pot += amount
        self.balances[seat] -= amount
        return seat, amount

    def _action(self, record: Mapping[str, Any], number: int) -> None:
        seat, amount = self._payment(record, number)
        action = record.get("kind")
        name, paid = self.name(seat), _text(amount)
        stake = record.get("stake")
        if self.stake is not None and stake is not None:
            self.stake = _amount(record, "stake", number)
        if action == "fold":
            self.folded.add(seat)
            text = f"{name} folds"
        elif action in _ACTION_TEXT:
            text = _ACTION_TEXT[action].format(name=name, paid=paid, stake=stake)
        else:
            text = f"{name}: {action}, pays {paid}" + (f", stake {stake}" if stake is not None else "")
        self._fault_step(number, "action", text + _mix_text(record), seat, record.get("fault"))

    def _compare(self, record: Mapping[str, Any], number: int, kind: str) -> None:
        seats = len(self.bots)
        hands = _seat_map(record, "hands", number, seats)
        values = _seat_map(record, "values", number, seats)
        for seat, cards in hands.items():
            self.cards[seat] = _cards(cards, number)
        for seat, label in values.items():
            self.values[seat] = str(label)
        winner = record.get("winner")
        shown = ", ".join(f"{self.name(seat)} {self.values.get(seat, '?')}" for seat in hands)
        result = (f"{self.name(winner)} wins" if isinstance(winner, int) and 0 <= winner < seats
                  else "a tie: svara")
        what = "Showdown" if kind == "showdown" else "The action cap is reached: everyone still in reveals"
        self.step(number, kind, f"{what}: {shown}; {result}")

    def _comparison(self, record: Mapping[str, Any], number: int) -> None:
        seats = len(self.bots)
        opener, target = _seat(record, "opener", number, seats), _seat(record, "target", number, seats)
        loser = _seat(record, "loser", number, seats)
        hands = _seat_map(record, "hands", number, seats)
        values = _seat_map(record, "values", number, seats)
        for seat, cards in hands.items():
            self.cards[seat] = _cards(cards, number)
        for seat, label in values.items():
            self.values[seat] = str(label)
        self.folded.add(loser)
        shown = (": " + ", ".join(f"{self.name(s)} {values[s]}" for s in (opener, target) if s in values)
                 if values else " (only those two saw the hands)")
        self.step(number, "comparison", f"{self.name(opener)} compares hands with {self.name(target)}{shown}; "
                  f"{self.name(loser)} leaves the deal", actor=opener)

    def _split(self, record: Mapping[str, Any], number: int) -> None:
        seats = len(self.bots)
        tied = _list(record, "seats", number, seats)
        amount, share = _amount(record, "amount", number), _amount(record, "share", number)
        self._settle(record, number, {seat: share for seat in tied})
        if self.pots:
            self.pots[-1].update(winner=None, split=[self.name(s) for s in tied], amount=_text(amount), shown=True,
                                 balances=[_text(b) for b in self.balances])
        self.step(number, "split", f"{' and '.join(self.name(s) for s in tied)} tie and split pot "
                  f"{self.pot_number}: {_text(amount)}, {_text(share)} each")

    def _settle(self, record: Mapping[str, Any], number: int, paid: Mapping[int, Amount]) -> None:
        # The recorded balances are the truth; a difference from this viewer's sums is noted.
        seats = len(self.bots)
        recorded = {s: _amount({"event": record["event"], "balance": v}, "balance", number)
                    for s, v in _seat_map(record, "balances", number, seats).items()}
        computed = [balance + paid.get(seat, 0) for seat, balance in enumerate(self.balances)]
        if any(recorded.get(s, computed[s]) != computed[s] for s in range(seats)) and not self.notes:
            self.notes.append(f"record {number}: the balances this viewer added up differ from the recorded "
                              "ones (events it does not know may move chips); the recorded balances are shown")
        self.balances = [recorded.get(s, computed[s]) for s in range(seats)]
        self.pot = 0
        self.curve.append([format_amount(b) for b in self.balances])  # data for the chart: exact amounts

    def _pot_won(self, record: Mapping[str, Any], number: int) -> None:
        seats = len(self.bots)
        seat = _seat(record, "seat", number, seats)
        amount = _amount(record, "amount", number)
        self._settle(record, number, {seat: amount})
        shown = record.get("shown") is True
        if self.pots:
            self.pots[-1].update(winner=seat, amount=_text(amount), shown=shown,
                                 balances=[_text(b) for b in self.balances])
        self.step(number, "pot_won", f"{self.name(seat)} wins pot {self.pot_number}: {_text(amount)}"
                  + ("" if shown else " (nobody saw its cards)"), actor=seat)

    def _unknown(self, record: Mapping[str, Any], number: int) -> None:
        kind = str(record["event"])
        fields = ", ".join(f"{key} {_generic(value)}" for key, value in record.items()
                           if key not in ("event", "hidden_fields"))
        hidden = record.get("hidden_fields")
        if isinstance(hidden, list) and hidden:
            fields += ("; " if fields else "") + f"{', '.join(map(str, hidden))} not shown in a seat's view"
        actor = record.get("seat")
        self.step(number, kind, f"{kind}: {fields}" if fields else kind,
                  actor=actor if isinstance(actor, int) and 0 <= actor < len(self.bots) else None)


_HANDS_KEPT = frozenset({"ante", "svara", "pot_won", "split", "short", "returned", "session_cut", "session_end"})
"""Kinds that never change who holds which cards, what is shown or who folded."""

_ACTION_TEXT = {
    "bet": "{name} bets {paid}",
    "show": "{name} pays {paid} and asks for a show",
    "dark_bet": "{name} bets {paid} dark, without looking at its cards",
    "support": "{name} supports the stake, paying {paid}",
    "raise": "{name} raises the stake to {stake}, paying {paid}",
    "open": "{name} pays {paid} to open: the hands are shown",
    "call": "{name} calls, paying {paid}",
    "multiway_open": "{name} pays {paid} to compare hands with the last payer",
}
"""How each action kind of docs/history.md reads; a kind not here is shown as its fields."""


def _mix_text(record: Mapping[str, Any]) -> str:
    """A mixed decision's distribution and the arena's draw, as a step says them (docs/history.md, format 3)."""
    mix, draw = record.get("mix"), record.get("draw")
    if not isinstance(mix, list) or not isinstance(draw, float):
        return ""
    entries = []
    for entry in mix:
        if not isinstance(entry, Mapping) or not isinstance(entry.get("p"), (int, float)):
            return f" (drawn from a mix this viewer cannot read: {_generic(mix)})"
        named = entry.get("amount", entry.get("stake"))
        entries.append(f"{entry.get('kind')}{'' if named is None else ' ' + str(named)} {entry['p']:.4g}")
    return f" (drawn by the arena, at {draw:.4f}, from: {', '.join(entries)})"


def _generic(value: object) -> str:
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{key}: {_generic(item)}" for key, item in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_generic(item) for item in value) + "]"
    if is_card(value):
        return card_text(str(value))
    return str(value)


def _int(record: Mapping[str, Any], field: str, number: int) -> int:
    value = record.get(field)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ReplayDataError(f"record {number} ({record.get('event')}): {field} must be a count, not {value!r}")
    return value


def _list(record: Mapping[str, Any], field: str, number: int, seats: int) -> list[int]:
    value = record.get(field)
    if not isinstance(value, list) or not all(
            isinstance(item, int) and not isinstance(item, bool) and 0 <= item < seats for item in value):
        raise ReplayDataError(f"record {number} ({record.get('event')}): {field} must be a list of seats")
    return value


def _costs(resources: Sequence[Mapping[str, Any]]) -> dict[int, dict[str, Any]]:
    """The decisions' figures of a resources file by history line; lines not of that form are left
    out (the file holds measured figures, not the record: docs/history.md, "Resources")."""
    def number(value: object) -> bool:
        return isinstance(value, int | float) and not isinstance(value, bool) and value >= 0
    costs = {}
    for figure in resources:
        line = figure.get("line")
        if isinstance(line, int) and number(figure.get("wall_ms")) and (
                figure.get("cpu_ms") is None or number(figure.get("cpu_ms"))):
            timeout = figure.get("timeout")
            costs[line] = {"wall_ms": figure["wall_ms"], "cpu_ms": figure.get("cpu_ms"),
                           "timeout": timeout if timeout in ("bot", "arena") else None}
    return costs


def replay_data(records: Sequence[Mapping[str, Any]], *, seat: int | None = None,
                fault_reasons: Mapping[str, Sequence[FaultReason]] | None = None,
                resources: Sequence[Mapping[str, Any]] | None = None) -> dict[str, Any]:
    """The viewer's data for a history: the organiser's (every hand) or, with `seat`, that seat's.

    Args:
        records: the history's records (`arena.history.read_history`).
        seat: build the view of this seat from the records redacted for it (`redact_records`), or
            a spectator's with `SPECTATOR`; None: the organiser's (every hand, the seed).
        fault_reasons: each bot's faults with the reasons the arena gave (not in the history itself).
        resources: the records of the history's resources file (`arena.history.read_resources`):
            each decision's step gets its `cost` (wall and CPU milliseconds, whose timeout).

    Raises:
        ReplayDataError: a record this viewer cannot read; the message names it.
    """
    if not records or records[0].get("event") != "session_start":
        raise ReplayDataError("record 1: a history starts with a session_start record")
    if seat is not None:
        records = redact_records(records, seat)
    start = records[0]
    builder = _Builder(start, seat=seat, reasons=fault_reasons or {})
    for number, record in enumerate(records[1:], start=2):
        builder.record(record, number)
    costs = _costs(resources or ())
    for step in builder.steps:
        if (cost := costs.get(step["record"])) is not None:
            step["cost"] = cost
            cost["seat"] = step["actor"]
    version = start.get("format", 1)
    notes = list(builder.notes)
    if version not in _READABLE_FORMATS:
        notes.insert(0, f"this history says it is format {version!r}; this viewer reads formats 1 to {FORMAT_VERSION}, "
                        "so anything it does not know is shown as plain fields")
    table = {key: start.get(key) for key in ("ante", "opening_stake", "max_bet", "pots", "max_actions")}
    return {
        "format": version,
        "viewer_format": FORMAT_VERSION,
        "session": str(start.get("session", "")),
        "profile": str(start.get("profile", "")),
        "seed": start.get("seed") if seat is None else None,
        "dealing": start.get("dealing"),
        "options": {str(key): str(value) for key, value in start["options"].items()}
        if isinstance(start.get("options"), Mapping) else {},
        "bots": builder.bots,
        "view": seat,
        "table": table,
        "steps": builder.steps,
        "hand_sets": builder.hand_sets,
        "pots": builder.pots,
        "curve": builder.curve,
        "faults": builder.faults,
        "notes": notes,
        "resources": _resources_summary(builder, costs, resources or ()) if costs else None,
    }


def _resources_summary(builder: _Builder, costs: Mapping[int, Mapping[str, Any]],
                       resources: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Per seat: its decisions' count, slowest and total wall and CPU milliseconds, and peak memory."""
    peaks: Mapping[str, Any] = next((figure["peak_memory_kb"] for figure in resources
                  if isinstance(figure.get("peak_memory_kb"), Mapping)), {})
    rows = []
    for seat, bot in enumerate(builder.bots):
        mine = [cost for cost in costs.values() if cost.get("seat") == seat]
        cpu = [cost["cpu_ms"] for cost in mine if cost["cpu_ms"] is not None]
        peak = peaks.get(str(seat))
        rows.append({"bot": bot, "decisions": len(mine),
                     "wall_max_ms": max((cost["wall_ms"] for cost in mine), default=None),
                     "wall_ms": round(sum(cost["wall_ms"] for cost in mine), 3),
                     "cpu_max_ms": max(cpu, default=None), "cpu_ms": round(sum(cpu), 3) if cpu else None,
                     "timeouts": sum(1 for cost in mine if cost["timeout"] is not None),
                     "peak_memory_kb": peak if isinstance(peak, int) and not isinstance(peak, bool) else None})
    return rows
