"""Table clarification 9 over the wire: no bot is ever sent a card its seat may not see.

Four recording bots play 24 sessions of 2 to 4 seats with random play, some with stacked tied
hands (so showdowns become svaras and replays) and some with a low action cap (so deals end in
forced reveals). Every request each bot received is checked against the organiser's history,
which holds every hand: each notice on its own (those nested in a TurnRequest or SvaraOffer
against the deal they name, which may be an earlier one), and the request around them. Each bot
is also told everything its seat may know, once, in the order it happened, before its decisions.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from google.protobuf import text_format
from google.protobuf.message import Message

from arena._proto.seka.v1 import seka_pb2 as pb
from arena.engine import GEORGIAN, Shuffler, parse_cards, seeded_shuffler, stacked_shuffler
from arena.match import SessionResult, play_session
from arena.transport import BotConnection, open_bot

from ._support import RELAXED, records, spec

_SESSIONS = 24
_REQUESTS = {"Hello": pb.HelloRequest, "Act": pb.TurnRequest, "Svara": pb.SvaraOffer, "Notify": pb.Notice}
_CARD = re.compile(r"^[6789TJQKA][cdhs]$")
# Four hands of equal value: any showdown or reveal among them is a svara.
_TIED = [parse_cards(f"T{suit} J{suit} Q{suit}") for suit in "cdhs"]

Deal = tuple[int, int]  # (pot, replay)
Step = tuple[Any, ...]  # ("deal" | "showdown", pot, replay), ("pot_result", pot), ("session_end",),
# or a decision: ("Act" | "Svara", pot, replay)


# The rules' own cards, the same for every seat: the whole deck and its wild cards (the greeting).
_PUBLIC_CARDS = {"seka.v1.TableSettings.deck", "seka.v1.TableSettings.wild"}


def _cards_in(message: Message) -> list[str]:
    """Every string anywhere in the message that names a card, whatever field holds it (the deck
    and the wild cards of the greeting's table aside: they name no one's hand)."""
    found = []
    for descriptor, value in message.ListFields():
        if descriptor.full_name in _PUBLIC_CARDS:
            continue
        values = value if descriptor.is_repeated else [value]
        for item in values:
            if isinstance(item, Message):
                found += _cards_in(item)
            elif isinstance(item, str) and _CARD.match(item):
                found.append(item)
    return found


@dataclass
class _Deals:
    """The organiser's knowledge of one session, from its history."""

    hands: dict[Deal, dict[int, set[str]]] = field(default_factory=dict)
    shown: dict[Deal, dict[int, set[str]]] = field(default_factory=lambda: defaultdict(dict))
    folded: dict[Deal, set[int]] = field(default_factory=lambda: defaultdict(set))
    acts: Counter[int] = field(default_factory=Counter)
    entries: Counter[int] = field(default_factory=Counter)
    showdowns: int = 0
    steps: dict[int, list[Step]] = field(default_factory=lambda: defaultdict(list))
    """By seat: what the seat is told and asked, in the order it happened."""

    @classmethod
    def of(cls, result: SessionResult, seats: int) -> _Deals:
        deals = cls()
        current: Deal = (0, 0)
        everyone = range(seats)
        for record in records(result.events):
            kind = record["event"]
            if kind == "deal":
                current = (record["pot"], record["replay"])
                deals.hands[current] = {int(seat): set(cards) for seat, cards in record["hands"].items()}
                for seat in deals.hands[current]:
                    deals.steps[seat].append(("deal", *current))
            elif kind in ("showdown", "reveal"):
                deals.showdowns += 1
                deals.shown[(record["pot"], record["replay"])] = {
                    int(seat): set(cards) for seat, cards in record["hands"].items()}
                for seat in everyone:
                    deals.steps[seat].append(("showdown", record["pot"], record["replay"]))
            elif kind == "action":
                deals.acts[record["seat"]] += 1
                deals.steps[record["seat"]].append(("Act", *current))
                if record["kind"] == "fold":
                    deals.folded[current].add(record["seat"])
            elif kind == "entry":
                deals.entries[record["seat"]] += 1
                deals.steps[record["seat"]].append(("Svara", current[0], current[1] + 1))
            elif kind == "pot_won":
                for seat in everyone:
                    deals.steps[seat].append(("pot_result", record["pot"]))
            elif kind == "session_end":
                for seat in everyone:
                    deals.steps[seat].append(("session_end",))
        return deals


def _shuffler(session: int, seats: int) -> Shuffler | None:
    if session % 2:
        return None
    return stacked_shuffler({(1, 0): dict(enumerate(_TIED[:seats]))},
                            seeded_shuffler(f"info-{session}", GEORGIAN.deck))


async def test_no_bot_is_ever_sent_a_card_its_seat_may_not_see(tmp_path: Path) -> None:
    files = [tmp_path / f"rec{index}.txt" for index in range(4)]
    results: dict[str, tuple[SessionResult, list[int]]] = {}
    async with AsyncExitStack() as stack:
        bots: list[BotConnection] = [
            await stack.enter_async_context(open_bot(
                spec(f"rec{index}", "recording_bot.py", "--record", str(path), "--name", f"rec{index}", limit=RELAXED),
                log_dir=tmp_path / "logs", socket_dir=tmp_path))
            for index, path in enumerate(files)]
        for session in range(_SESSIONS):
            seats = 2 + session % 3
            playing = [(session + seat) % 4 for seat in range(seats)]
            rules = GEORGIAN.with_table(pots_per_session=3, max_actions=4 if session % 4 in (1, 2) else 60)
            session_id = f"info-{session}"
            # Told the internal id on purpose, to sort the recorded requests by session.
            result = await play_session(rules, [bots[index] for index in playing], seed=session_id,
                                        session_id=session_id, public_id=session_id,
                                        shuffler=_shuffler(session, seats))
            results[session_id] = (result, playing)

    deals = {session_id: _Deals.of(result, len(playing)) for session_id, (result, playing) in results.items()}
    seen = Counter[str]()
    for index, path in enumerate(files):
        requests: dict[str, list[tuple[str, Any]]] = defaultdict(list)
        for line in path.read_text().splitlines():
            method, _, text = line.partition(" ")
            request = text_format.Parse(text, _REQUESTS[method]())
            requests[request.session_id].append((method, request))
        for session_id, (_, playing) in results.items():
            if index not in playing:
                assert session_id not in requests
                continue
            seat = playing.index(index)
            _check_seat(requests[session_id], seat, deals[session_id], seen)

    # The check was not vacuous: every kind of information went out, and was held back, many times.
    totals = Counter[str]()
    for known in deals.values():
        totals["deals"] += len(known.hands)
        totals["replays"] += sum(1 for _, replay in known.hands if replay)
        totals["showdowns"] += known.showdowns
        totals["folded hands"] += sum(len(seats) for seats in known.folded.values())
    assert totals["replays"] >= 5 and totals["showdowns"] >= 20 and totals["folded hands"] >= 50, totals
    assert seen["Act"] >= 200 and seen["Svara"] >= 5 and seen["showdown"] + seen["nested showdown"] >= 40, seen
    # Every notice travels inside a request: a decision, or the session's end (the last pot's result).
    assert seen["nested deal"] >= 100 and seen["nested showdown"] >= 30 and seen["nested pot_result"] >= 64, seen
    assert seen["session_end"] == 72 and seen["showdown"] == seen["pot_result"] == seen["deal"] == 0, seen


def _notice_step(notice: pb.Notice) -> Step:
    kind = notice.WhichOneof("notice")
    if kind in ("deal", "showdown"):
        body = getattr(notice, kind)
        return (kind, body.pot_number, body.replay)
    if kind == "pot_result":
        return (kind, notice.pot_result.pot_number)
    return (kind,)


def _check_seat(requests: list[tuple[str, Any]], seat: int, deals: _Deals, seen: Counter[str]) -> None:
    methods = Counter(method for method, _ in requests)
    # Every decision the history records was asked of this bot, and only those.
    assert methods["Hello"] == 1 and methods["Act"] == deals.acts[seat] and methods["Svara"] == deals.entries[seat]
    assert requests[0][0] == "Hello"
    # One Notify, the last call: the session's end, carrying the notices left.
    assert methods["Notify"] == 1 and requests[-1][0] == "Notify", [method for method, _ in requests]
    steps: list[Step] = []
    for method, request in requests[1:]:
        bare = type(request)()
        bare.CopyFrom(request)
        carrier = bare.session_end if method == "Notify" else bare
        for notice in carrier.notices:  # each checked against the deal it names
            assert notice.WhichOneof("notice") != "session_end"
            _check_piece(method, notice, seat, deals, seen, nested=True)
            steps.append(_notice_step(notice))
        carrier.ClearField("notices")
        _check_piece(method, bare, seat, deals, seen)
        steps.append(_notice_step(bare) if method == "Notify" else (method, request.pot_number, request.replay))
    _check_piece("Hello", requests[0][1], seat, deals, seen)
    # Everything the seat may know reached it once, in the order it happened, before its decisions.
    assert steps == deals.steps[seat]


def _check_piece(method: str, request: Any, seat: int, deals: _Deals, seen: Counter[str], *,
                 nested: bool = False) -> None:
    """One request, or one notice (`request` is then a Notice, on its own or nested in `method`)."""
    cards = set(_cards_in(request))
    kind = request.WhichOneof("notice") if isinstance(request, pb.Notice) else method
    seen[f"nested {kind}" if nested else kind] += 1
    if kind in ("Act", "deal"):
        body = request if kind == "Act" else request.deal
        deal = (body.pot_number, body.replay)
        assert body.seat == seat
        own = deals.hands[deal][seat]
        assert set(body.cards) == own  # its own hand, in full
        allowed = own
    elif kind == "showdown":
        deal = (request.showdown.pot_number, request.showdown.replay)
        shown = deals.shown[deal]
        assert {hand.seat: set(hand.cards) for hand in request.showdown.hands} == shown
        allowed = set().union(*shown.values())
    else:  # Hello, Svara offers, pot results, the session's end: no cards at all
        allowed = set()
    assert cards <= allowed, f"seat {seat} was sent {sorted(cards - allowed)} in {method} {request}"
    if kind != "Hello" and kind != "session_end" and kind != "Svara" and kind != "pot_result":
        # Explicitly: no hand folded in this deal, unless it was later shown, ever reaches another seat.
        for folded in deals.folded[deal] - {seat} - set(deals.shown.get(deal, {})):
            assert not cards & deals.hands[deal][folded], (seat, folded, deal, method)
