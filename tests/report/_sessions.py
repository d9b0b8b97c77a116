"""Sessions for the report's tests: a history with a svara, a re-entry and faults, and the ledger a
reader would keep from a history's records alone (written apart from the viewer, to check it)."""

from __future__ import annotations

import subprocess
import sys
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

from arena.engine import GEORGIAN, Bet, Fault, Fold, Phase, SessionState, Show, georgian_value, turn_view
from arena.match import keyed_seed

ROOT = Path(__file__).resolve().parents[2]
FAULTY_BOT = ROOT / "tests" / "match" / "bots" / "faulty_bot.py"
SVARA_SEED = "83"
SVARA_KEY = "00000000000000000000000000000033"
SVARA_DEALS = keyed_seed(SVARA_SEED, SVARA_KEY)
"""With call, threshold and an always-illegal bot, `play --seed 83 --deal-key SVARA_KEY` deals a svara
that the faulty bot re-enters, and gives that bot a fault in every pot."""
PLAYERS = (
    f"call={sys.executable} {ROOT / 'sample_bots' / 'call_bot.py'}",
    f"threshold={sys.executable} {ROOT / 'sample_bots' / 'threshold_bot.py'}",
    f"faulty={sys.executable} {FAULTY_BOT} --mode illegal-high",
)


def play_svara_session(out: Path) -> Path:
    """Play the svara-and-faults session with real bot processes through `seka-arena play --out`;
    return the history (its replay pages are under `out/sessions/`)."""
    subprocess.run([sys.executable, "-m", "arena", "play", "--quiet", "--seed", SVARA_SEED, "--deal-key", SVARA_KEY,
                    "--out", str(out), "--isolation", "none", *PLAYERS],
                   check=True, cwd=ROOT, timeout=120, capture_output=True)
    return out / f"play-{SVARA_SEED}.jsonl"


def scripted_svara_session() -> SessionState:
    """The same session in process: what the three bots of `PLAYERS` decide, applied to the engine."""
    state = SessionState(GEORGIAN, bots=["call", "threshold", "faulty"], seed=SVARA_DEALS, session=f"play-{SVARA_SEED}")
    while not state.is_finished:
        seat = state.to_act
        if state.phase is Phase.SVARA_OFFER:
            state.answer_svara(seat != 1)  # threshold declines svaras; the others accept
        elif seat == 0:
            state.apply(Bet(state.legal_actions().min_bet))
        elif seat == 1:
            state.apply(_threshold(state))
        else:
            state.fold(fault=Fault.ILLEGAL)
    return state


def _threshold(state: SessionState) -> Bet | Show | Fold:
    view = turn_view(state)
    strength = georgian_value(view.cards).strength
    if strength >= 28:
        return Show() if view.legal.can_show else Bet(view.legal.max_bet)
    if strength >= 21:
        return Show() if view.legal.can_show and view.actions_in_deal >= 10 else Bet(view.legal.min_bet)
    return Bet(view.legal.min_bet) if view.previous_bet is None else Fold()


def shown(amount: Fraction) -> str:
    """How the viewer writes an amount: exactly, as a decimal where it has one (2.5, -0.125), else a fraction."""
    decimal = Decimal(amount.numerator) / Decimal(amount.denominator)
    return format(decimal.normalize(), "f") if Fraction(decimal) == amount else str(amount)


def ledger(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What the replay must show after each step: pot, balances, the record it stands for (every pot's
    balances checked against the recorded ones).

    One step per record after session_start; an ordinary deal's antes join the deal's step.
    """
    seats = len(records[0]["seats"])
    balances = [Fraction(0)] * seats
    pot = Fraction(0)
    steps: list[dict[str, Any]] = []
    for record in records[1:]:
        kind = record["event"]
        if kind == "deal" and record["replay"] == 0:
            pot = Fraction(0)
        if kind in ("ante", "action", "entry"):
            pot += Fraction(record["amount"])
            balances[record["seat"]] -= Fraction(record["amount"])
        if kind == "returned":
            pot -= Fraction(record["amount"])
            balances[record["seat"]] += Fraction(record["amount"])
        if kind in ("pot_won", "split"):
            for seat in [record["seat"]] if kind == "pot_won" else record["seats"]:
                balances[seat] += Fraction(record["amount"] if kind == "pot_won" else record["share"])
            assert balances == [Fraction(record["balances"][str(s)]) for s in range(seats)]
            pot = Fraction(0)
        state = {"record": record, "pot": shown(pot), "balances": [shown(b) for b in balances]}
        if kind == "ante":
            steps[-1].update(pot=state["pot"], balances=state["balances"])
        else:
            steps.append(state)
    return steps


def seen_by(records: list[dict[str, Any]], seat: int) -> set[str]:
    """Every card `seat` may ever see in a session: its own hands and the hands turned over."""
    cards: set[str] = set()
    for record in records:
        if record["event"] == "deal":
            cards.update(record["hands"].get(str(seat), []))
        if record["event"] in ("showdown", "reveal"):
            for hand in record["hands"].values():
                cards.update(hand)
    return cards
