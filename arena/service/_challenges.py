"""Unrated challenges: an author's bot against bots it names, in a few duplicate blocks, never rated.

Theory of operation: `POST /api/challenges` names the challenger (one of the author's own bots, or
one of its versions, `bot.vN`) and its opponents: the author's own bots or versions, other
authors' bots (their current version: the latest accepted, not disqualified) and the sample bots
(`sample:NAME`). Everything is checked before anything is stored (`plan_challenge`); the challenge
and every session of its blocks are then stored in one transaction, each block's seed derived from
a secret drawn for the challenge (`block_seed`, as the ladder's). The challenger and its opponents
sit at one table (the game must allow that many seats), every mirror of it in each block.

The ladder's process plays them (`Ladder`), here or on the service's cluster (`_playing`): a
challenge block when the ladder has room, taking turns with the ladder's own blocks, so that a queue
of challenges delays the ladder by one block at most at a time. Sessions are played as the ladder's
are (the service's game, limits and isolation; a history written once), into `challenges/`, and
their results go to tables of their own (`challenge_sessions`), which neither the ratings nor the
ladder's choice of tables read. A challenge, like a ladder table, may seat the challenger's own
other bots: it is never rated, so no author gains by it; rated tables never do
(`_ladder.choose_table`).

A session that cannot be played by its bots' own doing (`BotsFailed`) is tried again, and at the
`MAX_BOT_FAILURES`-th such try the challenge ends, failed, with the reason its challenger reads; a
refusal that cannot change (a player disqualified since) ends it at once. Every bot failing to start
for one reason that looks like the arena's launch chain is the bots' only when the arena starts its
own sample bots right after, where it plays the challenge (`_arena_starts_bots`: here or on the
cluster); otherwise, like every other failure of the arena (its launch chain, a full disk, a bug),
it is never counted against the challenge: the block is retried as a ladder block is, for as long
as it takes.

An organiser may put a failed challenge back in play (`resume`): its sessions' failures count from zero
again (a resumed challenge whose bots keep failing ends failed again after `MAX_BOT_FAILURES` more tries),
and the failure it was resumed from is kept with who resumed it and when. A challenge a disqualified bot
sits in is not resumed: it would fail again at once, for that reason.

A challenge and its sessions are its challenger's and the organisers': to anyone else they do not
exist (404, whatever the identifier).
"""

from __future__ import annotations

import dataclasses
import math
import re
import secrets
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import trio

from ..engine import ArenaError, format_amount
from ..executor import SessionJob
from ..match import public_session_id
from ..storage import StorageError, make_way_for_replay
from ..tournament import arena_launch_failure, block_seed, mirrors
from ..transport import BotSpec, with_our_python
from ._config import seats_problem
from ._playing import SessionPlayer, write_files
from ._service import Service
from ._store import Author, Challenge, ChallengeSession, ServiceStore, VersionRecord, VersionStatus, from_iso

SAMPLE_BOTS = Path(__file__).resolve().parents[2] / "sample_bots"
"""The sample bots a challenge may name (`sample:NAME` plays `sample_bots/NAME_bot.py`): the checkout's."""
SAMPLE_PREFIX = "sample:"
_SAMPLE_NAME = re.compile(r"[a-z][a-z0-9_]{0,31}\Z")
_VERSION_NAME = re.compile(r"([A-Za-z0-9][A-Za-z0-9_-]{0,63})\.v([1-9][0-9]{0,8})\Z")
_DAY = 24 * 3600.0
_BODY_KEYS = ("bot", "opponents", "blocks")
MAX_BOT_FAILURES = 3
"""Tries of one session that fail by its bots' own doing before its challenge ends, failed."""
_PROBE = SAMPLE_PREFIX + "call"
"""The arena's own bot, started to tell the arena's launch failure from the bots' (`_arena_starts_bots`)."""


class ChallengeError(ArenaError):
    """A challenge the service refuses: HTTP `status` (422 for a request it cannot play, 429 past the
    author's rate, with Retry-After `retry_after` seconds; 409 when the service plays no ladder)."""

    def __init__(self, status: int, message: str, *, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after


class BotsFailed(ArenaError):
    """A challenge session its bots' own doing keeps from being played; `final`: a refusal that cannot change,
    which ends the challenge at once (else at the `MAX_BOT_FAILURES`-th try)."""

    def __init__(self, message: str, *, final: bool) -> None:
        super().__init__(message)
        self.final = final


def sample_names() -> list[str]:
    """The sample bots a challenge may name, without their `sample:` prefix (none outside a checkout)."""
    return sorted(path.name.removesuffix("_bot.py") for path in SAMPLE_BOTS.glob("*_bot.py"))


@dataclass(frozen=True)
class Player:
    """One seat's player of a challenge: a version of a bot, or a sample bot."""

    key: str
    """As the store keeps it: a version id (text) or `sample:NAME`."""
    label: str
    """As histories and answers name it: `bot.vN` or `sample:NAME`."""
    author: str | None
    """Who wrote it (None for a sample bot)."""


def player(store: ServiceStore, key: str) -> Player:
    """The player a stored key names."""
    if key.startswith(SAMPLE_PREFIX):
        return Player(key, key, None)
    version = store.version_by_id(int(key))
    bot = store.bot(version.bot)
    return Player(key, version.label, bot.author if bot is not None else None)


def plan_challenge(service: Service, author: Author, body: Mapping[str, Any]) -> Challenge:
    """Check a challenge's request (`{"bot", "opponents", "blocks"}`) and store it with its sessions.

    Raises:
        ChallengeError: what is wrong with it (every field is checked before anything is stored),
            the author's rate of challenges, or a service that plays no ladder.
    """
    store, quotas = service.store, service.config.quotas
    unknown = sorted(set(body) - set(_BODY_KEYS))
    if unknown:
        raise ChallengeError(422, f"unknown field {unknown[0][:40]!r}: a challenge is {{\"bot\", \"opponents\", "
                                  "\"blocks\"}")
    bot, opponents, blocks = body.get("bot"), body.get("opponents"), body.get("blocks", 1)
    if not isinstance(bot, str):
        raise ChallengeError(422, "bot: the name of one of your bots (or one of its versions, bot.vN), "
                                  f"not {_shown(bot)}")
    if not isinstance(opponents, list) or not opponents or not all(isinstance(name, str) for name in opponents):
        raise ChallengeError(422, "opponents: a list of one or more names (bots, your own bots' versions bot.vN, "
                                  f"sample bots sample:NAME), not {_shown(opponents)}")
    if (problem := seats_problem(service.config.rules, 1 + len(opponents))) is not None:
        raise ChallengeError(422, f"opponents: {len(opponents)} opponents make a table of {1 + len(opponents)}: "
                                  f"{problem}")
    if not isinstance(blocks, int) or isinstance(blocks, bool) or not 1 <= blocks <= quotas.challenge_blocks:
        raise ChallengeError(422, f"blocks: an integer from 1 to {quotas.challenge_blocks} (quotas.challenge_blocks), "
                                  f"not {_shown(blocks)}")
    challenger = _resolve(store, author, bot, field="bot", challenger=True)
    players = [challenger]
    for index, name in enumerate(opponents):
        found = _resolve(store, author, name, field=f"opponents[{index}]", challenger=False)
        if found.key in {seated.key for seated in players}:
            raise ChallengeError(422, f"opponents[{index}]: {found.label} is already at the table")
        players.append(found)
    if not service.config.ladder.enabled:
        raise ChallengeError(409, "this service plays no ladder (ladder.enabled: false), and challenges are played "
                                  "by the ladder's process")
    _verify_rate(store, author, quotas.challenges_per_day)
    secret = secrets.token_hex(16)
    keys = tuple(found.key for found in players)
    return store.create_challenge(author.name, keys, blocks=blocks, secret=secret,
                                  seatings=lambda number: mirrors(keys),
                                  seed=lambda number: block_seed(secret, keys, number))


def _shown(value: object) -> str:
    return repr(value)[:80]


def _resolve(store: ServiceStore, author: Author, name: str, *, field: str, challenger: bool) -> Player:
    # A name as the author wrote it, as the player it names; a ChallengeError saying why it cannot play.
    if name.startswith(SAMPLE_PREFIX):
        sample = name.removeprefix(SAMPLE_PREFIX)
        if challenger:
            raise ChallengeError(422, f"{field}: the challenger is one of your own bots, not a sample bot")
        if not _SAMPLE_NAME.match(sample) or sample not in sample_names():
            known = ", ".join(SAMPLE_PREFIX + known for known in sample_names()) or "none on this service"
            raise ChallengeError(422, f"{field}: no sample bot {name[:80]!r} (the sample bots: {known})")
        return Player(name, name, None)
    versioned = _VERSION_NAME.match(name)
    bot_name = versioned.group(1) if versioned else name
    bot = store.bot(bot_name)
    if bot is None:
        raise ChallengeError(422, f"{field}: no bot {name[:80]!r}")
    own = bot.author == author.name
    if challenger and not own:
        raise ChallengeError(422, f"{field}: {bot_name!r} is another author's bot: challenge with one of your own")
    if bot.disqualified is not None:
        raise ChallengeError(422, f"{field}: bot {bot_name!r} is disqualified")
    version: VersionRecord | None
    if versioned:
        if not own:
            raise ChallengeError(422, f"{field}: {name!r}: only your own bots' versions may be named; another "
                                      f"author's bot plays its current version (name it {bot_name!r})")
        version = store.version(bot_name, versioned.group(2))
        if version is None:
            raise ChallengeError(422, f"{field}: bot {bot_name!r} has no version {name!r}")
        if version.status is not VersionStatus.ACCEPTED:
            raise ChallengeError(422, f"{field}: {name} is {version.status.value}: only accepted versions play")
    else:
        accepted = store.versions(bot_name, status=VersionStatus.ACCEPTED)
        if not accepted:
            raise ChallengeError(422, f"{field}: bot {bot_name!r} has no accepted version")
        version = accepted[-1]
    return Player(str(version.id), version.label, bot.author)


def _verify_rate(store: ServiceStore, author: Author, per_day: int) -> None:
    now = store.clock()
    times = store.challenge_times(author.name, since=now - _DAY)
    if len(times) >= per_day:
        wait = max(1, math.ceil(from_iso(times[0]) + _DAY - now))
        raise ChallengeError(429, f"{author.name} made {len(times)} challenges in the last 24 hours, the most allowed "
                                  f"(quotas.challenges_per_day): the next is accepted in {wait} s", retry_after=wait)


def resume(store: ServiceStore, challenge: Challenge, organiser: Author) -> Challenge:
    """Put a failed challenge back in play, by `organiser`.

    Raises:
        ChallengeError: 409: it has not failed, or one of its players is disqualified (reinstate it first).
    """
    if challenge.failed is None:
        raise ChallengeError(409, f"challenge {challenge.id} has not failed: only a failed challenge is resumed")
    if (gone := disqualified(store, challenge.players)) is not None:
        raise ChallengeError(409, f"challenge {challenge.id} is not resumed: {gone[0]} is disqualified ({gone[1]}) "
                                  "and plays no more; reinstate it first")
    try:
        return store.resume_challenge(challenge.id, organiser.name)
    except StorageError as error:  # resumed meanwhile by another organiser
        raise ChallengeError(409, str(error)) from None


def disqualified(store: ServiceStore, keys: Sequence[str]) -> tuple[str, str] | None:
    """The first of `keys` whose bot is disqualified (an organiser may disqualify one after the challenge was
    made), as its label and the reason; None if every one may play."""
    for key in keys:
        if not key.startswith(SAMPLE_PREFIX) and (bot := store.bot(store.version_by_id(int(key)).bot)) is not None \
                and bot.disqualified is not None:
            return player(store, key).label, bot.disqualified
    return None


def may_see_challenge(author: Author | None, challenge: Challenge) -> bool:
    """Whether `author` may know of `challenge` at all: its challenger, or an organiser."""
    return author is not None and (author.organiser or author.name == challenge.author)


def status(challenge: Challenge, sessions: Sequence[ChallengeSession]) -> str:
    """`queued` (no session started), `running`, `finished` (every session has its result), or `failed`
    (ended unplayed: `Challenge.failed` says why)."""
    if challenge.failed is not None:
        return "failed"
    if all(session.status == "finished" for session in sessions):
        return "finished"
    if all(session.status == "planned" and session.attempts == 0 for session in sessions):
        return "queued"
    return "running"


def challenge_json(store: ServiceStore, challenge: Challenge) -> dict[str, Any]:
    """A challenge as its challenger (and organisers) see it: its status, each session's result and each
    player's totals (chips won, exact; sessions; faults)."""
    sessions = store.challenge_sessions(challenge.id)
    labels = {key: player(store, key).label for key in challenge.players}
    totals: dict[str, dict[str, Any]] = {labels[key]: {"chips": Fraction(0), "sessions": 0, "faults": 0}
                                          for key in challenge.players}
    shown = []
    for session in sessions:
        seated = [labels[key] for key in session.seating]
        if session.balances is not None and session.faults is not None:
            for label, balance, faults in zip(seated, session.balances, session.faults, strict=True):
                totals[label]["chips"] += balance
                totals[label]["sessions"] += 1
                totals[label]["faults"] += faults
        shown.append({"id": session.id, "block": session.block, "mirror": session.mirror, "seats": seated,
                      "status": session.status, "finished_at": session.finished_at,
                      "balances": None if session.balances is None else [format_amount(amount)
                                                                         for amount in session.balances],
                      "faults": None if session.faults is None else list(session.faults),
                      "failures": session.failures})
    return {"id": challenge.id, "author": challenge.author, "status": status(challenge, sessions), "rated": False,
            "failed": challenge.failed, "failed_at": challenge.failed_at,
            "resumes": [dataclasses.asdict(resumed) for resumed in store.challenge_resumes(challenge.id)],
            "players": [labels[key] for key in challenge.players], "blocks": challenge.blocks,
            "created_at": challenge.created_at,
            "totals": [{"player": label, "chips": format_amount(total["chips"]), "sessions": total["sessions"],
                        "faults": total["faults"]} for label, total in totals.items()],
            "sessions": shown}


def spec(service: Service, key: str) -> BotSpec:
    """How the arena starts a challenge's player: a version as the ladder does, a sample bot from
    `SAMPLE_BOTS`, confined to that folder as a submission is to its own."""
    if not key.startswith(SAMPLE_PREFIX):
        return service.registry.spec(service.store.version_by_id(int(key)))
    limits = service.config.limits
    name = key.removeprefix(SAMPLE_PREFIX)
    words = shlex.split(f"python3 {name}_bot.py")
    return BotSpec(name=key, command=with_our_python(words), cwd=str(SAMPLE_BOTS), limit=limits.time,
                   process=limits.process, isolation=service.registry.isolation, confined=True)


def folder(service: Service) -> Path:
    """Where challenges' histories and logs are written (`challenges/histories`, `challenges/logs`)."""
    return service.config.data / "challenges"


def seat_views(challenge: Challenge, session: ChallengeSession) -> list[str | None]:
    """Whose view each seat of a challenge's session is on its pages (`_views.view_for`): the challenger's at
    its challenging bot's seat, nobody's elsewhere (the challenge is not known to an opponent's author, and the
    challenger's other bots at the table are its opponents there)."""
    return [challenge.author if key == challenge.players[0] else None for key in session.seating]


def table_authors(store: ServiceStore, session: ChallengeSession) -> list[str | None]:
    """The author of each seat's player, seat 0 first (None for a sample bot)."""
    return [player(store, key).author for key in session.seating]


async def play(service: Service, session: ChallengeSession, playing: SessionPlayer) -> None:
    """Play one challenge session from its start (where `playing` plays the ladder's) and store its result
    (never in the ratings).

    Raises:
        BotsFailed: its bots' own doing keeps it from being played (nothing stored but the count).
        ArenaError: the arena's own failure (nothing stored, nothing counted: tried again later).
    """
    store = service.store
    challenge = store.challenge(session.challenge)
    assert challenge is not None
    if (gone := disqualified(store, session.seating)) is not None:  # checked when the challenge was made
        raise BotsFailed(f"{gone[0]} was disqualified after the challenge was made: it plays no more", final=True)
    path = folder(service) / "histories" / f"{session.id}.jsonl"
    # A history there already was written by an attempt killed before its result: kept aside, never replaced.
    await trio.to_thread.run_sync(lambda: make_way_for_replay(path, interrupted=session.attempts > 0))
    await trio.to_thread.run_sync(store.mark_challenge_running, session.id)
    specs = [spec(service, key) for key in session.seating]
    job = SessionJob(session_id=session.id, seed=session.seed, rules=service.config.rules, bots=tuple(specs),
                     public_id=public_session_id(challenge.secret, session.id))
    result = await playing.play(job, folder=folder(service))
    if (reason := arena_launch_failure(result.seats)) is not None:  # nothing stored
        if await arena_starts_bots(service, playing, session_id=session.id, seats=len(session.seating),
                                   seed=session.seed, folder=folder(service) / "probes"):
            raise BotsFailed(f"session {session.id}: every bot failed to start with the same error ({reason}), "
                             "while the arena starts its own sample bots: the bots' own failure", final=False)
        raise ArenaError(f"every bot of challenge session {session.id} failed to start for the same reason, the "
                         f"arena's own, not theirs: {reason}")
    history = await trio.to_thread.run_sync(write_files, result, folder(service))
    faults = [0] * len(specs)
    for seat in result.seats:
        faults[seat.seat] = sum(seat.telemetry["faults"].values())
    await trio.to_thread.run_sync(lambda: store.record_challenge_result(
        session.id, list(result.balances), faults, str(history.relative_to(service.config.data))))
    service.notify()


async def arena_starts_bots(service: Service, playing: SessionPlayer, *, session_id: str, seats: int, seed: str,
                            folder: Path) -> bool:
    """Whether the arena starts its own sample bots now where it plays a session's (here or on the cluster:
    its isolation, limits and launch chain), at as many seats, one pot: if they start, a launch failure
    every player of the session shared was theirs (a bot can write a launch-chain line to its stderr)."""
    if _PROBE.removeprefix(SAMPLE_PREFIX) not in sample_names():  # not in a checkout: nothing to tell it by
        return False
    probe = spec(service, _PROBE)
    bots = tuple(dataclasses.replace(probe, name=f"{_PROBE}-{seat}") for seat in range(seats))
    job = SessionJob(session_id=f"{session_id}-probe", seed=seed, public_id=f"{session_id}-probe",
                     rules=service.config.rules.with_table(pots_per_session=1), bots=bots)
    try:
        outcome = await playing.play(job, folder=folder)
    except ArenaError:  # the sandbox cannot be built: the arena's
        return False
    return not any(kind == "crash" and reason.startswith("exited before it was ready")
                   for seat in outcome.seats for kind, reason, _ in seat.fault_reasons)
