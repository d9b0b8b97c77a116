"""Replay pages: for every session an organiser's page and one page per seat, with the balance curve,
the faults, the bots' logs and the sessions of its duplicate block side by side; or, in a public
report (`Audience`), one page per session that shows what its readers may see.

Where they go: `sessions/<page>.html` (the organiser's view, `session_page`; a public report's only
view) and `sessions/<page>.seat<N>.html` (seat N's view; `page_name` never yields a dot, so no
session's page can take a seat page's name). Each page embeds its own data (`replay_data`) as JSON, read by
`assets/replay.js`; the scripts and styles are the package's own, copied into `assets/`.
"""

from __future__ import annotations

import enum
import functools
import os
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from jinja2.utils import htmlsafe_json_dumps
from markupsafe import Markup

from ..engine import Amount, parse_amount
from ..history import read_history, read_resources
from ..storage import FaultReason, SessionRecord, SessionStatus, Store
from ._formats import exact_text
from ._replay import SPECTATOR, card_name, card_text, replay_data, without_mixes
from ._site import Site, page_name, session_page

REPLAY_ASSETS = ("report.css", "replay.css", "replay.js")
"""The assets a replay page links to."""

_COLORS = ("#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9")
"""Okabe and Ito's colours, told apart by people with any common colour blindness."""
_DASHES = ("", "7 4", "2 3", "9 3 2 3", "4 4", "12 2")
"""A second cue besides colour: each seat's line has its own dash pattern."""


class Audience(enum.Enum):
    """Who a report is written for, and so what its pages may show."""

    ORGANISERS = "organisers"
    """Every hand and the seed, each seat's own view, the bots' logs and the arena's fault reasons."""
    PUBLIC = "public"
    """A spectator's: the hands turned over at showdowns only, no seed, no seat pages, no logs and no
    fault reasons (a crash's reason quotes the bot's stderr, which is its author's)."""
    PUBLIC_HANDS = "public-hands"
    """Every hand and the seed, as organisers see the table (published once a tournament is over, as
    the ACPC publishes its hand logs after the competition); still no seat pages, logs, reasons or
    mixed replies' distributions."""


@dataclass(frozen=True)
class SessionHistory:
    """A session to show: its history, where its bots' logs are, why the arena acted for its bots."""

    session: str
    """The session's id (its page's name comes from it)."""
    history: Path
    logs: Path | None = None
    """The folder of its bots' logs (`<bot>.stdout.log`, `<bot>.stderr.log`), when there is one."""
    fault_reasons: Mapping[str, Sequence[FaultReason]] = field(default_factory=dict)
    """Each bot's faults in this session with the arena's reasons (histories keep only the kind)."""


def seat_page(session_id: str, seat: int) -> str:
    """Where seat `seat`'s view of a session is, relative to the report's root."""
    return f"sessions/{page_name(session_id)}.seat{seat}.html"


def balance_curve(curve: Sequence[Sequence[str]], bots: Sequence[str]) -> dict[str, Any]:
    """The geometry of a balance chart: one polyline per seat over the pots (index 0 is the start)."""
    width, height, left, right, top, bottom = 680, 260, 52, 180, 12, 232
    pots = max(len(curve) - 1, 1)
    values: list[list[Amount]] = [[parse_amount(amount) for amount in row] for row in curve] or [[0] * len(bots)]
    low: Amount = min(min(min(row) for row in values), 0)
    high: Amount = max(max(max(row) for row in values), 0)
    if high == low:
        high, low = high + 1, low - 1
    dx = (width - left - right) / pots
    floor, scale = float(low), (bottom - top) / float(high - low)

    def y(value: Amount) -> float:
        return round(bottom - (float(value) - floor) * scale, 1)

    lines = []
    for seat, bot in enumerate(bots):
        points = " ".join(f"{round(left + index * dx, 1)},{y(row[seat])}" for index, row in enumerate(values))
        lines.append({"label": f"{bot} (seat {seat})", "color": _COLORS[seat % len(_COLORS)],
                      "dash": _DASHES[seat % len(_DASHES)], "points": points})
    ticks = sorted({low, 0, high})
    every = max(1, pots // 8)
    final = (", ".join(f"{bot} {exact_text(amount)}" for bot, amount in zip(bots, values[-1], strict=True))
             if curve else "")
    return {
        "width": width, "height": height, "x0": left, "x1": width - right, "dx": round(dx, 3), "top": top,
        "bottom": bottom, "zero": y(0),
        "y_ticks": [{"y": y(tick), "label": str(tick)} for tick in ticks],
        "x_ticks": [{"x": round(left + index * dx, 1), "label": str(index)}
                    for index in range(0, len(values)) if index % every == 0 or index == len(values) - 1],
        "lines": lines,
        "description": f"Balances after each of {len(curve) - 1} pots, starting at 0; final balances: {final}. "
                       "The table of pots below lists every value.",
    }


@functools.lru_cache(maxsize=256)
def _card(card: str) -> Markup:
    # A block's table shows hundreds of cards: each card's escaped markup is made once.
    css = "card red" if card[1:] in ("h", "d") else "card"
    return Markup('<span class="{}" title="{}">{}</span>').format(css, card_name(card), card_text(card))


def _block(members: Sequence[tuple[SessionHistory, list[dict[str, Any]]]]) -> dict[str, Any]:
    """The sessions of a duplicate block side by side: each pot's ordinary deal and who won it."""
    sessions = []
    rows: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for session, records in members:
        bots = [entry["bot"] for entry in records[0]["seats"]]
        deals = {r["pot"]: r for r in records if r.get("event") == "deal" and r.get("replay") == 0}
        wins = {r["pot"]: r for r in records if r.get("event") == "pot_won"}
        end = next((r for r in records if r.get("event") == "session_end"), None)
        balances = [f"{bots[int(seat)]} {amount}" for seat, amount in end["balances"].items()] if end else []
        sessions.append({"id": session.session, "href": PurePosixPath(session_page(session.session)).name,
                         "balances": balances})
        for pot in sorted(deals):
            won = wins.get(pot)
            rows[pot].append({
                "hands": [{"bot": bots[int(seat)], "cards": Markup(" ").join(_card(card) for card in cards)}
                          for seat, cards in deals[pot]["hands"].items()],
                "winner": bots[won["seat"]] if won else None, "amount": won["amount"] if won else None})
    return {"sessions": sessions, "rows": [{"pot": pot, "cells": cells} for pot, cells in sorted(rows.items())
                                           if len(cells) == len(members)]}


LOG_TAIL_BYTES = 64 * 1024
"""How much of each bot log a report keeps when the log lies outside it (its end: where a crash is)."""


def _logs(site: Site, session: SessionHistory, bots: Sequence[str]) -> dict[str, list[tuple[str, Path]]]:
    """Each bot's logs: the log itself when it lies inside the report's folder (as `play --out` leaves
    them), else a copy of its last LOG_TAIL_BYTES in the report's `logs/`, so the report stays whole
    when it is moved or shared. Empty logs are left out."""
    found: dict[str, list[tuple[str, Path]]] = {bot: [] for bot in bots}
    if session.logs is None:
        return found
    root = site.out.resolve()
    for bot in bots:
        for stream in ("stdout", "stderr"):
            path = session.logs / f"{bot}.{stream}.log"
            try:
                size = path.stat().st_size if path.is_file() else 0
            except OSError:
                size = 0
            if not size:
                continue
            target = path.resolve()
            label = f"{bot}: {stream}"
            if not target.is_relative_to(root):
                with path.open("rb") as log:
                    log.seek(max(0, size - LOG_TAIL_BYTES))
                    tail = log.read(LOG_TAIL_BYTES).decode("utf-8", errors="replace")
                if size > LOG_TAIL_BYTES:
                    tail = f"[seka-arena report: the last {LOG_TAIL_BYTES} of {size} bytes of {path}]\n" + tail
                    label += f" (its last {LOG_TAIL_BYTES // 1024} KiB)"
                target = root / "logs" / page_name(session.session) / f"{page_name(bot)}.{stream}.txt"
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(tail, encoding="utf-8")
            found[bot].append((label, target))
    return found


def write_replays(site: Site, sessions: Sequence[SessionHistory], *,
                  audience: Audience = Audience.ORGANISERS) -> list[Path]:
    """Write every session's organiser page and its seat pages into `site`, or its one page for a public
    `audience`; return the pages written.

    Histories are read as docs/history.md describes them (`read_history`).

    Raises:
        arena.history.HistoryError: a history that is not JSON Lines of event records.
        ReplayDataError: a record the viewer cannot read.
    """
    loaded = [(session, read_history(session.history)) for session in sessions]
    figures = {session.session: read_resources(session.history) for session in sessions}
    by_seed: dict[str, list[tuple[SessionHistory, list[dict[str, Any]]]]] = defaultdict(list)
    for session, records in loaded:
        start = records[0] if records else {}
        if start.get("dealing") == "seeded" and isinstance(start.get("seed"), str):
            by_seed[start["seed"]].append((session, records))
    site.copy_assets(REPLAY_ASSETS)
    # What every view of a session shows alike (its pots, its block) is rendered once.
    # The block's table shows every deal's hands: organisers' alone, or published with them.
    blocks = {seed: Markup(site.env.get_template("_replay_block.html").render(block=_block(members)))
              for seed, members in by_seed.items() if len(members) > 1 and audience is not Audience.PUBLIC}
    pots_template = site.env.get_template("_replay_pots.html")
    written = []
    for session, records in loaded:
        if audience is not Audience.ORGANISERS:
            written.append(_public_page(site, session, records, audience, pots_template,
                                        blocks.get(str(records[0].get("seed")), Markup()) if records else Markup(),
                                        figures[session.session]))
            continue
        organiser = replay_data(records, fault_reasons=session.fault_reasons, resources=figures[session.session])
        bots = organiser["bots"]
        pots = Markup(pots_template.render(data=organiser, curve=balance_curve(organiser["curve"], bots)))
        block = blocks.get(str(records[0].get("seed")), Markup()) if records else Markup()
        logs = _logs(site, session, bots)
        pages = [session_page(session.session)] + [seat_page(session.session, seat) for seat in range(len(bots))]
        names = ["Organiser: every hand"] + [f"Seat {seat}: {bot}" for seat, bot in enumerate(bots)]
        for view, page in enumerate(pages):
            seat = None if view == 0 else view - 1
            # A seat sees the reasons of its own bot's faults only (a crash's reason quotes the bot's
            # stderr), and its own bot's logs only: another bot's could print its cards.
            data = organiser if seat is None else replay_data(
                records, seat=seat, fault_reasons={bots[seat]: session.fault_reasons.get(bots[seat], ())},
                resources=figures[session.session])
            views = [{"label": name, "href": PurePosixPath(other).name, "current": other == page}
                     for name, other in zip(names, pages, strict=True)]
            folder = site.out.resolve().joinpath(*PurePosixPath(page).parts[:-1])
            links = [(label, Path(os.path.relpath(path, folder)).as_posix())
                     for bot in (bots if seat is None else [bots[seat]]) for label, path in logs[bot]]
            # Compact, and HTML-safe as Jinja's tojson makes it (no "<", ">", "&" or "'" inside the script).
            data_json = htmlsafe_json_dumps(data, separators=(",", ":"))
            written.append(site.render("replay.html", page, data=data, data_json=data_json, views=views, pots=pots,
                                       block=block if seat is None else Markup(), logs=links))
    return written


def _public_page(site: Site, session: SessionHistory, records: list[dict[str, Any]], audience: Audience,
                 pots_template: Any, block: Markup, resources: list[dict[str, Any]] | None) -> Path:
    # A public report's one page of a session: a spectator's view, or every hand once published;
    # never the arena's fault reasons (they may quote a bot's stderr) nor a log. The decisions'
    # times are public, as a spectator at the table sees how long each player thinks.
    data = (replay_data(records, seat=SPECTATOR, resources=resources) if audience is Audience.PUBLIC
            else replay_data(without_mixes(records), resources=resources))
    pots = Markup(pots_template.render(data=data, curve=balance_curve(data["curve"], data["bots"])))
    page = session_page(session.session)
    label = "Spectator: the hands shown" if audience is Audience.PUBLIC else "Every hand"
    views = [{"label": label, "href": PurePosixPath(page).name, "current": True}]
    return site.render("replay.html", page, data=data, data_json=htmlsafe_json_dumps(data, separators=(",", ":")),
                       views=views, pots=pots, block=block, logs=[])


def tournament_sessions(folder: Path, sessions: Sequence[SessionRecord]) -> list[SessionHistory]:
    """The finished sessions of a results folder as replays: histories, logs and fault reasons as the
    tournament stored them (`histories/`, `logs/<session>/`, tournament.sqlite); only read."""
    with Store.open(folder / "tournament.sqlite", read_only=True) as store:
        reasons = store.fault_reasons()
    by_session: dict[str, dict[str, list[FaultReason]]] = defaultdict(lambda: defaultdict(list))
    for bot, items in reasons.items():
        for reason in items:
            for session in reason.sessions:
                by_session[session][bot].append(reason)
    return [SessionHistory(record.id, folder / record.history_path, logs=folder / "logs" / record.id,
                           fault_reasons=by_session.get(record.id, {}))
            for record in sessions if record.status is SessionStatus.FINISHED and record.history_path is not None]


def write_session_replay(out: Path, session: SessionHistory, *, audience: Audience = Audience.ORGANISERS,
                         back: tuple[str, str] | None = None) -> Path:
    """The replay pages of one session (as `seka-arena play --out` writes them); returns its main page
    (the organiser's, or a public audience's only one). `back`: a link (address, label) to the page that
    serves them, such as the service's session page."""
    link = None if back is None else {"href": back[0], "label": back[1]}
    site = Site(out, title=f"Session {session.session}", context={"navigation": (), "back": link})
    return write_replays(site, [session], audience=audience)[0]
