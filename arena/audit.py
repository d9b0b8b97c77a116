"""Auditing a tournament's results folder: every history against the rules, its seed, the revealed
secret, the commitment and the stored results.

Theory of operation: what `seka-arena replay --results DIR` checks, in order.

1. The results file is a store of this schema, opened read-only (nothing in the folder changes).
2. The commitment: the stored one equals the published one when it is given; once the secret is
   revealed, the SHA-256 of the secret, the deal book's copy in the results folder (which equals the
   published book when one is given) and the stored value function equals the commitment
   (`arena.storage.commitment_text`; a folder from before commitments bound the value function holds
   none, and its commitment is of the secret and the book alone). A stored value function other than
   the one this arena computes is noted: the adjusted standings it gives are not the committed ones.
3. The plan: the stored definition, planned with the revealed secret (and its deal book), gives
   exactly the stored sessions (ids, seatings, blocks, mirrors and seeds); before the reveal,
   everything but the seeds, and one seed per block, unless a deal book gives the seeds.
4. Every finished session: its history replays under the rules, says `dealing: seeded` and deals
   exactly the cards its seed gives; its seed, session id, table rules and bots are the stored
   ones; its balances and winners are the stored ones; and every fault it shows is counted in the
   store (the store may count more: a fault in the greeting or the closing notice is no decision).

Every disagreement is reported, not only the first.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml

from .engine import Rules, SessionEnded, SessionStarted, format_amount
from .history import HistoryError
from .replay import replay_file
from .storage import SessionRecord, SessionStatus, Store, TournamentRecord, commitment_of
from .tournament import (
    BOOK_NAME,
    PlannedSession,
    TournamentConfigError,
    commitment_binds,
    parse_config,
    plan,
    value_function,
)

_SHOWN = 20
"""Sessions named in one kind of plan difference before the rest are counted."""


@dataclass(frozen=True)
class Audit:
    """What `audit_results` found in one results folder."""

    folder: Path
    tournament: str | None
    """The tournament's name; None when the results file holds none."""
    commitment: str | None
    secret_revealed: bool
    secret_checked: bool
    """The secret is revealed, hashes to the commitment, and the stored plan (seeds included)
    follows from it and the stored definition."""
    planned: int
    checked: int
    """Finished sessions whose history was replayed and compared with the store."""
    unfinished: int
    problems: tuple[str, ...]
    """Every disagreement, one line each; empty when everything agrees."""
    binds: str = ""
    """What the commitment is the SHA-256 of, in words (`arena.tournament.commitment_binds`)."""
    notes: tuple[str, ...] = ()
    """What is worth knowing and is no disagreement (a value function other than this arena's)."""

    @property
    def ok(self) -> bool:
        return not self.problems


def audit_results(path: str | Path, *, commitment: str | None = None, deals: str | Path | None = None) -> Audit:
    """Check every history of a tournament against its secret, commitment and stored results.

    Args:
        path: the results folder (or its `tournament.sqlite`).
        commitment: the commitment published before the tournament started, to compare with the stored one.
        deals: the deal book as published, to compare with the copy the results folder keeps.

    Raises:
        StorageError: the results file cannot be read (missing, not a store).
    """
    given = Path(path)
    database = given / "tournament.sqlite" if given.is_dir() else given
    folder = database.parent
    with Store.open(database, read_only=True) as store:
        record = store.tournament()
        sessions = store.sessions()
    problems: list[str] = []
    if record is None:
        return Audit(folder, None, None, False, False, len(sessions), 0, len(sessions),
                     (f"{database} holds no tournament",))
    if commitment is not None and commitment.strip().lower() != record.commitment:
        problems.append(f"the stored commitment {record.commitment} is not the published one, {commitment}")
    book = _deal_book(record, folder, deals, problems)
    secret_checked = record.secret_revealed and book != _NO_BOOK
    deals = book if isinstance(book, str) else None
    binds = commitment_binds(record.value_function, deals or None)
    if secret_checked and commitment_of(record.secret, deals, record.value_function) != record.commitment:
        problems.append(f"the revealed secret {'and deal book do' if book else 'does'} not hash to the commitment "
                        f"{record.commitment}" + ("" if record.value_function is None else
                                                  f" with the stored value function {record.value_function.name}"))
        secret_checked = False
    notes = []
    if record.value_function is not None and record.value_function != (ours := value_function()):
        notes.append(f"the commitment binds the value function {record.value_function.name} (SHA-256 "
                     f"{record.value_function.sha256}), and this seka-arena computes {ours.name} (SHA-256 "
                     f"{ours.sha256}): the adjusted standings it gives are not the committed ones (the version that "
                     "ran the tournament gives them)")
    rules = _check_plan(record, sessions, problems, book=folder / BOOK_NAME if book else None)
    secret_checked = secret_checked and not problems
    checked = 0
    for session in sessions:
        if session.status is SessionStatus.FINISHED:
            _check_session(session, folder, rules, problems)
            checked += 1
    # The plan is stored as play reaches it (its last session first): its size is the last position.
    planned = max((session.index for session in sessions), default=0)
    return Audit(folder, record.name, record.commitment, record.secret_revealed, secret_checked, planned,
                 checked, planned - checked, tuple(problems), binds, tuple(notes))


_NO_BOOK = ""
"""What `_deal_book` gives for a definition that names a book the folder does not hold."""


def _deal_book(record: TournamentRecord, folder: Path, published: str | Path | None,
               problems: list[str]) -> str | None:
    """The SHA-256 of the deal book the results folder keeps, when the stored definition names one (None
    when it names none, `_NO_BOOK` when the copy is missing); compared with the published book if given."""
    try:
        named = isinstance(definition := yaml.safe_load(record.definition), dict) and "deals" in definition
    except yaml.YAMLError:
        return None  # said by _check_plan
    if not named:
        if published is not None:
            problems.append("a deal book was given, but the stored definition deals from none")
        return None
    try:
        kept = (folder / BOOK_NAME).read_bytes()
    except OSError as error:
        problems.append(f"the definition deals from a book, and its copy {folder / BOOK_NAME} cannot be read: "
                        f"{error.strerror}")
        return _NO_BOOK
    sha256 = hashlib.sha256(kept).hexdigest()
    if published is not None:
        try:
            given = hashlib.sha256(Path(published).read_bytes()).hexdigest()
        except OSError as error:
            problems.append(f"cannot read the deal book {published}: {error.strerror}")
        else:
            if given != sha256:
                problems.append(f"the deal book {published} (SHA-256 {given}) is not the one the tournament kept, "
                                f"{BOOK_NAME} (SHA-256 {sha256})")
    return sha256


def _check_plan(record: TournamentRecord, sessions: Sequence[SessionRecord], problems: list[str], *,
                book: Path | None) -> Rules | None:
    """Compare the stored plan with the one the stored definition gives (dealing from `book`, the
    results folder's copy of its deal book); return the tournament's table rules."""
    try:
        data = yaml.safe_load(record.definition)
        # The folder may be audited on any machine: the bots' programs and folders need not exist
        # here, and the plan depends only on their names. Each bot becomes an address.
        for number, participant in enumerate(data["participants"]):
            for key in ("command", "cwd", "env", "address"):
                participant.pop(key, None)
            participant["address"] = f"unix:/nonexistent/bot{number}.sock"
        if "deals" in data:  # the copy kept with the results: the book the commitment binds
            if book is None:
                return None  # said by _deal_book
            data["deals"] = str(book.resolve())
        config = parse_config(yaml.safe_dump(data, sort_keys=False), filename="the stored definition")
    except (TournamentConfigError, yaml.YAMLError, KeyError, TypeError, AttributeError) as error:
        problems.append("the stored definition cannot be planned: " + " ".join(str(error).split()))
        return None
    revealed = record.secret_revealed
    if revealed and not config.seed_generated and config.seed != record.secret:
        problems.append("the definition's seed is not the revealed secret")
    planned = plan(config.with_seed(record.secret) if revealed else config)  # lazy: read by position
    revealed = revealed or config.deals is not None  # a book's seeds need no secret
    stored_size = max((session.index for session in sessions), default=0)
    if stored_size != len(planned):
        problems.append(f"the definition plans {len(planned)} sessions, the store {stored_size}")
    differing = [session.id for session in sessions if not 1 <= session.index <= len(planned)
                 or _row(planned[session.index - 1], revealed) != _row(session, revealed)]
    if not revealed:
        seeds: dict[str, set[str]] = {}
        for session in sessions:
            seeds.setdefault(session.block, set()).add(session.seed)
        problems.extend(f"the sessions of block {block} have different seeds"
                        for block, found in seeds.items() if len(found) > 1)
    if differing:
        more = f" and {len(differing) - _SHOWN} more" if len(differing) > _SHOWN else ""
        what, source = (("seating, block or seed", "the definition and the secret give") if revealed
                        else ("seating or block", "the definition gives"))
        problems.append(f"the stored {what} of {', '.join(differing[:_SHOWN])}{more} is not what {source}")
    return config.rules


def _row(session: PlannedSession | SessionRecord, seeded: bool) -> tuple[object, ...]:
    # What the plan fixes for a session; its seed only once the secret is there to derive it from.
    fixed = (session.id, session.index, tuple(session.table), session.block, session.mirror)
    return (*fixed, session.seed) if seeded else fixed


def _check_session(session: SessionRecord, folder: Path, rules: Rules | None, problems: list[str]) -> None:
    where = session.id
    if session.history_path is None:
        problems.append(f"{where}: finished, but the store names no history")
        return
    path = folder / session.history_path
    try:
        result = replay_file(path)
    except HistoryError as error:
        problems.append(f"{where}: {error}")
        return
    state = result.state
    start, end = state.events[0], state.events[-1]
    assert isinstance(start, SessionStarted) and isinstance(end, SessionEnded)  # replay_file checked both
    if not result.seeded:
        problems.append(f"{where}: {path.name} says its cards were chosen (dealing: stacked), so its deals were not "
                        "checked against a seed; a tournament's deals come from their seeds")
    if start.seed != session.seed:
        problems.append(f"{where}: the history's seed {start.seed!r} is not the stored one, {session.seed!r}")
    if start.session != session.id:
        problems.append(f"{where}: the history names session {start.session!r}")
    if rules is not None and state.rules != rules:
        problems.append(f"{where}: the history's table rules are not the tournament's")
    if tuple(state.bots) != session.table:
        problems.append(f"{where}: the history seats {', '.join(state.bots)}; the store {', '.join(session.table)}")
        return  # balances and faults by bot would compare different bots
    balances = session.balances or {}
    for seat, bot in enumerate(session.table):
        if balances.get(bot) != state.balances[seat]:
            stored = format_amount(balances[bot]) if bot in balances else "nothing"
            problems.append(f"{where}: {bot}'s balance is {stored} in the store but "
                            f"{format_amount(state.balances[seat])} in {path.name}")
    winners = tuple(session.table[seat] for seat in end.winners)
    if session.winners != winners:
        problems.append(f"{where}: the store's winners {list(session.winners or ())} are not the history's "
                        f"{list(winners)}")
    shown: Counter[tuple[str, str]] = Counter()
    for event in state.events:
        record = event.to_json()
        if "fault" in record:
            shown[(session.table[record["seat"]], record["fault"])] += 1
    stored_faults = session.faults or {}
    for (bot, kind), count in sorted(shown.items()):
        counted = int((stored_faults.get(bot) or {}).get(kind, 0))
        if counted < count:
            problems.append(f"{where}: {path.name} shows {count} {kind} fault{'s' if count != 1 else ''} of {bot}; "
                            f"the store counts {counted}")
