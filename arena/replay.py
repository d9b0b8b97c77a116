"""Re-check a hand history against the engine and tell its story pot by pot.

The check replays every recorded decision through a fresh engine and requires each recorded event
to equal, field for field, the one the engine emits. A seeded history must also deal exactly the
cards its seed gives. The first disagreement is reported with its line number.

A history that says `dealing: stacked` (cards chosen, as `check-bot` and tests do) is replayed
with the cards it records: the rules are checked, but nothing ties its cards to a seed, and
`ReplayResult.seeded` is False so that callers say so. Whether a tournament's histories were
dealt from their seeds is what `arena.audit.audit_results` checks.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .engine import (
    Acted,
    Action,
    ArenaError,
    Bet,
    Call,
    Card,
    DarkBet,
    Fault,
    IllegalActionError,
    Mix,
    MultiwayOpen,
    Open,
    Phase,
    Rules,
    SessionStarted,
    SessionState,
    Show,
    Support,
    deck_order,
    edition_of_history_format,
    format_amount,
    mix_draw,
    parse_amount,
    profile,
    seeded_shuffler,
    stacked_shuffler,
)
from .history import HistoryError, read_history


@dataclass(frozen=True)
class ReplayResult:
    state: SessionState
    """The engine after the whole history: its events equal the file's."""
    account: list[str]
    """A readable pot-by-pot account."""

    @property
    def seeded(self) -> bool:
        """True when every deal was checked against the session's seed; False for a history whose
        cards were chosen (`dealing: stacked`), which nothing checks."""
        start = self.state.events[0]
        return isinstance(start, SessionStarted) and start.dealing == _SEEDED


_PAYING: dict[str, type[Bet] | type[DarkBet]] = {"bet": Bet, "dark_bet": DarkBet}
"""Action kinds whose decision is the recorded amount."""
_FIXED: dict[str, Action] = {"show": Show(), "support": Support(), "open": Open(), "call": Call(),
                             "multiway_open": MultiwayOpen()}
"""Action kinds whose amount follows from the rules (the recorded one is then compared)."""

_SEEDED = "seeded"
_DEALINGS = (_SEEDED, "stacked")


def _field(record: dict[str, Any], name: str, line: int, path: str) -> Any:
    if name not in record:
        raise HistoryError(path, line, f"{record.get('event')!r} event has no field {name!r}")
    return record[name]


def _recorded_deals(records: Sequence[dict[str, Any]], path: str) -> dict[tuple[int, int], dict[int, tuple[Card, ...]]]:
    deals: dict[tuple[int, int], dict[int, tuple[Card, ...]]] = {}
    for line, record in enumerate(records, start=1):
        if record["event"] != "deal":
            continue
        try:
            hands = {int(seat): tuple(Card.parse(card) for card in cards)
                     for seat, cards in _field(record, "hands", line, path).items()}
            deals[(int(_field(record, "pot", line, path)), int(_field(record, "replay", line, path)))] = hands
        except (ValueError, TypeError, AttributeError) as error:
            raise HistoryError(path, line, f"bad deal: {error}") from None
    return deals


def _start(records: Sequence[dict[str, Any]], path: str) -> SessionState:
    if not records or records[0]["event"] != "session_start":
        raise HistoryError(path, 1, "a history starts with a 'session_start' event")
    first = records[0]
    try:
        options = first.get("options", {})
        if not isinstance(options, dict):
            raise HistoryError(path, 1, f"options must be an object, not {options!r}")
        rules = profile(_field(first, "profile", 1, path), options).with_table(
            ante=parse_amount(_field(first, "ante", 1, path)),
            opening_stake=parse_amount(_field(first, "opening_stake", 1, path)),
            max_bet=parse_amount(_field(first, "max_bet", 1, path)),
            max_actions=int(_field(first, "max_actions", 1, path)),
            pots_per_session=int(_field(first, "pots", 1, path)),
            edition=edition_of_history_format(history_format := first.get("format", 1)),
        )
        bots = [seat["bot"] for seat in _field(first, "seats", 1, path)]
        seed = str(_field(first, "seed", 1, path))
        deals = _recorded_deals(records, path)
        dealing = _field(first, "dealing", 1, path)
        if dealing not in _DEALINGS:
            raise HistoryError(path, 1, f"dealing must be {' or '.join(map(repr, _DEALINGS))}, not {dealing!r}")
        if dealing == _SEEDED:
            _verify_seeded(records, deals, seed, rules, path)
            shuffler = None
        else:
            shuffler = stacked_shuffler(deals, seeded_shuffler(seed, rules.deck), cards=rules.cards)
        return SessionState(rules, bots=bots, seed=seed, session=str(first.get("session", "")),
                            first_dealer=int(_field(first, "first_dealer", 1, path)), shuffler=shuffler,
                            history_format=history_format)
    except HistoryError:
        raise
    except (ArenaError, ValueError, TypeError, KeyError) as error:
        raise HistoryError(path, 1, f"bad session_start: {error}") from None


def _verify_seeded(records: Sequence[dict[str, Any]], deals: dict[tuple[int, int], dict[int, tuple[Card, ...]]],
                   seed: str, rules: Rules, path: str) -> None:
    line_of = {(r["pot"], r["replay"]): line for line, r in enumerate(records, start=1) if r["event"] == "deal"}
    size = rules.cards
    for (pot, replay), hands in deals.items():
        order = deck_order(seed, pot, replay, rules.deck)
        for seat, cards in hands.items():
            if tuple(order[size * seat : size * seat + size]) != cards:
                raise HistoryError(path, line_of[(pot, replay)], f"seat {seat}'s cards in pot {pot} replay {replay} "
                                   f"are not the ones seed {seed!r} deals")


def replay_records(records: Sequence[dict[str, Any]], *, path: str = "<history>") -> ReplayResult:
    """Check `records` (from `read_history`) and build the account; raise `HistoryError` at the first break."""
    state = _start(records, path)
    checked = 0
    while True:
        while checked < len(state.events):
            line = checked + 1
            if checked >= len(records):
                raise HistoryError(path, line,
                                   f"the history ends, but the rules go on with {state.events[checked].to_json()}")
            expected = state.events[checked].to_json()
            if records[checked] != expected:
                raise HistoryError(path, line, f"recorded {records[checked]} but the rules give {expected}")
            checked += 1
        if state.is_finished:
            break
        if checked >= len(records):
            raise HistoryError(path, checked, "the history ends before the session does")
        _apply_decision(state, records[checked], checked + 1, path)
    if checked < len(records):
        raise HistoryError(path, checked + 1, "events after the session's end")
    return ReplayResult(state, account(state))


def _apply_decision(state: SessionState, record: dict[str, Any], line: int, path: str) -> None:
    kind = record["event"]
    try:
        seat = _field(record, "seat", line, path)
        if seat != state.to_act:
            raise HistoryError(path, line, f"seat {seat} acts, but it is seat {state.to_act}'s turn")
        fault = Fault(record["fault"]) if "fault" in record else None
        if state.phase is Phase.SVARA_OFFER:
            if kind != "entry":
                raise HistoryError(path, line, f"a svara answer (entry) is due, not {kind!r}")
            state.answer_svara(bool(_field(record, "accepted", line, path)), fault=fault)
            return
        if kind == "look":
            state.look()
            return
        if kind != "action":
            raise HistoryError(path, line, f"a betting action (or a look) is due, not {kind!r}")
        action = _field(record, "kind", line, path)
        if "mix" in record:
            _apply_mix(state, record, line, path)
        elif action == "fold":
            state.fold(fault=fault)
        elif action in _PAYING:
            state.apply(_PAYING[action](parse_amount(_field(record, "amount", line, path))))
        elif action == "raise":
            state.raise_stake(parse_amount(_field(record, "stake", line, path)))
        elif action in _FIXED:
            state.apply(_FIXED[action])
        else:
            raise HistoryError(path, line, f"unknown action kind {action!r}")
    except (IllegalActionError, ValueError) as error:
        raise HistoryError(path, line, f"illegal: {error}") from None


def _apply_mix(state: SessionState, record: dict[str, Any], line: int, path: str) -> None:
    """Re-derive a mixed decision's draw and the action it picks; either one differing is tampering."""
    mix = Mix.from_json(record["mix"])
    start = state.events[0]
    assert isinstance(start, SessionStarted)
    draw = mix_draw(start.seed, start.session, state.actions_taken)
    if record.get("draw") != draw:
        raise HistoryError(path, line, f"tampered: the recorded draw {record.get('draw')!r} is not the one the "
                           f"session's seed gives this decision ({draw!r}, action event {state.actions_taken})")
    acted = next(event for event in state.apply_mix(mix) if isinstance(event, Acted))
    picked = {"kind": acted.kind, **({"stake": format_amount(acted.stake)} if acted.stake is not None else {}),
              **({} if acted.kind in ("raise", "fold") else {"amount": format_amount(acted.amount)})}
    recorded = {name: record.get(name) for name in picked}
    if recorded != picked:
        raise HistoryError(path, line, f"tampered: the draw {draw!r} picks {picked} from the mix, but the history "
                           f"records {recorded}")


_VERBS = {"dark_bet": "bets dark", "raise": "raises to pay", "multiway_open": "opens against the previous payer for",
          "support": "supports with", "call": "calls for", "open": "opens for"}


def describe_event(record: dict[str, Any], names: Sequence[str]) -> str | None:
    """One history record as a line of a readable account (None for records not worth a line)."""
    kind = record["event"]
    if kind == "session_start":
        seats = ", ".join(f"{seat} {bot}" for seat, bot in enumerate(names))
        options = "".join(f" {name}: {value}," for name, value in record.get("options", {}).items())
        return f"Session {record['session'] or '(unnamed)'}: {record['profile']},{options} seats {seats}"
    if kind == "deal":
        label = f"Pot {record['pot']}" + (f", svara replay {record['replay']}" if record["replay"] else "")
        hands = "  ".join(f"{names[int(seat)]}: {' '.join(cards)}" for seat, cards in record["hands"].items())
        return f"{label} (dealer {names[record['dealer']]}): {hands}"
    if kind == "action":
        fault = f" [{record['fault']}]" if "fault" in record else ""
        paid = "" if record["kind"] == "fold" else f" {record['amount']}"
        stake = f" (stake {record['stake']})" if "stake" in record else ""
        verb = _VERBS.get(record["kind"], record["kind"] + "s")
        return f"  {names[record['seat']]} {verb}{paid}{stake}{fault}{_mixed(record)}"
    if kind == "look":
        cards = f": {' '.join(record['cards'])}" if record["cards"] else ""
        return f"  {names[record['seat']]} looks{cards}"
    if kind == "comparison":
        shown = ", ".join(f"{names[int(seat)]} {value}" for seat, value in record["values"].items())
        return f"  Open against the previous payer: {shown}; {names[record['loser']]} drops out"
    if kind == "short":
        return f"  {names[record['seat']]} is short of chips: pays {record['paid']} of {record['needed']}"
    if kind == "returned":
        raised = f", the part of its raise of {record['raise']} left unmatched" if "raise" in record else ""
        return f"  {record['amount']} goes back to {names[record['seat']]}{raised}"
    if kind == "split":
        seats = ", ".join(names[seat] for seat in record["seats"])
        return f"  Split: {seats} get {record['share']} each"
    if kind == "session_cut":
        return f"Session ends early: {', '.join(names[seat] for seat in record['seats'])} cannot pay the ante"
    if kind in ("showdown", "reveal"):
        shown = ", ".join(f"{names[int(seat)]} {value}" for seat, value in record["values"].items())
        return f"  {'Showdown' if kind == 'showdown' else 'Action cap: reveal'}: {shown}"
    if kind == "svara":
        return f"  Svara: pot {record['frozen_pot']} frozen, re-entry costs {record['price']}"
    if kind == "entry":
        fault = f" [{record['fault']}]" if "fault" in record else ""
        answer = "re-enters for " + record["amount"] if record["accepted"] else "declines"
        return f"  {names[record['seat']]} {answer}{fault}"
    if kind == "pot_won":
        return f"  {names[record['seat']]} wins {record['amount']}{'' if record['shown'] else ' unseen'}"
    if kind == "session_end":
        balances = ", ".join(f"{names[int(seat)]} {amount}" for seat, amount in record["balances"].items())
        return f"Balances: {balances}. Winner: {', '.join(names[seat] for seat in record['winners'])}"
    return None


def _mixed(record: dict[str, Any]) -> str:
    """A mixed decision's distribution and draw, as the account tells them."""
    if "mix" not in record:
        return ""
    entries = ", ".join(" ".join([entry["kind"], *([entry[name]] if (name := "stake" if "stake" in entry else "amount")
                                                   in entry else []), f"{entry['p']:g}"]) for entry in record["mix"])
    return f" (drawn {record['draw']:.6f} from: {entries})"


def account(state: SessionState) -> list[str]:
    """A readable pot-by-pot account of a session's events."""
    lines = (describe_event(event.to_json(), state.bots) for event in state.events)
    return [line for line in lines if line is not None]


def replay_file(path: str | os.PathLike[str]) -> ReplayResult:
    """Read and check a history file."""
    return replay_records(read_history(path), path=str(path))
