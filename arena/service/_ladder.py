"""The continuous ladder: whole duplicate blocks among the current versions, chosen where they teach most.

Theory of operation: the players are versions (`bot.vN`); the ladder always seats the latest
accepted version of each bot not disqualified, so a new version replaces the old one, whose
results stay in the history. The next table is chosen by `choose_table`:

1. placement: a version with fewer than `placement_blocks` blocks plays first, with the opponents
   it is most informative against;
2. with probability `random_share`, a table drawn uniformly, so that every bot stays connected to
   the rest of the field whatever the fit says;
3. otherwise the table of most information, summed over its pairs:
   p(1-p) (Var θi + Var θj), with p the Bradley-Terry probability that i beats j and Var θ the
   inverse of each bot's Fisher information (its comparisons weighted by p(1-p), plus the fit's
   prior games). Bots with few sessions have a large variance, so they are weighted up; close
   pairs have p(1-p) near its maximum 1/4.

The fit behind the choice counts each session's finishing order by its adjusted result (its raw
balances less the luck of svara re-deals and of draws from announced distributions, and less the deal
control variate, each seat's coefficient fitted on the other half of the ladder's blocks recorded
before: docs/ratings.md, docs/service.md), which is stored beside the raw balances; every page shows
the raw ones.

No table seats two versions of one author (`is_allowed`), whichever way it is chosen: an author's
bots never play each other for rating, so none can gain by soft play towards its teammate (Halite's
rule); the ladder waits while fewer authors than seats have a current version.

The same workers play the authors' unrated challenges (`_challenges`): a challenge's block and a
ladder block take turns, and a challenge's is played whenever the ladder has nothing to play.

A block is planned (all its mirrors, in one transaction) before it is played, and its sessions are
played (in this process, or by the workers of the service's cluster: `_playing`) one after the other
(mirrors share their deals: never at the same time); a block left unfinished by a stopped service is
played to its end first on the next start.

A block whose play raises (an arena bug, a full disk: a bot's faults are recorded in its sessions
and never raise) is tried again after `retry_seconds`, then twice as long after each further
failure in a row (up to 16 times as long): a failure that clears (disk space freed) lets it finish.
Its failures are counted in the store, so the count survives a restart (a restart retries it at
once), and at the `max_failures`-th in a row the block is set aside with the error's type and
message: nothing is charged to its bots, its unplayed sessions get no result, the ladder goes on
without it, and an organiser puts it back in play (`POST /api/ladder/blocks/N/resume`). While a
block waits for its retry the ladder plays other blocks, and plans new tables as long as no other
block waits too: two blocks failing at once point at the arena or the machine (a full disk), not
at a block, and tables planned then would only fail the same way.

Deals come from a secret that changes every `secret_days` (a period, counted from the epoch in UTC):
a block's seed is `block_seed` of the secret of the period it was planned in. Like a tournament's,
each secret is committed before it is used (its commitment, which binds the value function of the
adjusted results the tables are chosen from as well, is published from the period before: the next
period's secret is drawn whenever the current one is, and the value function the service computes
then is stored with it) and revealed once its period is over
and every block dealt from it has been played (`ladder_secrets`, `GET /api/ladder`); anyone can
then re-derive every deal of that period, and no page shows a ladder session's seed before.
"""

from __future__ import annotations

import functools
import itertools
import logging
import math
import random
import shutil
from collections import defaultdict
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import trio

from ..engine import Amount, ArenaError, Rules
from ..executor import SessionJob
from ..history import read_history
from ..match import public_session_id
from ..ratings import ELO_PER_NAT, PairResults, RatingError, SessionTerms, bradley_terry_pairs, session_terms
from ..replay import replay_records
from ..storage import FaultReason, StorageError, ValueFunction, commitment_of, is_disk_full, make_way_for_replay
from ..tournament import arena_launch_failure, block_seed, mirrors, value_function
from . import _challenges
from ._playing import SessionPlayer, write_files
from ._service import Service
from ._store import ChallengeSession, LadderFailure, LadderProgress, LadderSession, ServiceStore, from_iso, iso

LOGGER = logging.getLogger(__name__)
PRIOR_GAMES = 1.0
"""The rating fit's virtual drawn games per bot (as `arena.ratings.bradley_terry`): the information
every bot has before it plays."""
_CANDIDATES = 200
"""Random tables scored when the tables of more than two seats are too many to score all."""
_DRAWS = 100
"""Tries at drawing an allowed table uniformly before one is built author by author."""
_SECRET_PREFIX = "ladder_secret:"
"""The store keeps each period's secret under this prefix and the period's start (ISO 8601 UTC)."""
_VALUE_FUNCTION_PREFIX = "ladder_value_function:"
"""… and the value function its commitment binds, `<name> <hex SHA-256>`, under this one (none for a secret
drawn before commitments bound one: its commitment is the SHA-256 of the secret alone)."""
_CHANGED_PREFIX = "ladder_value_function_changed:"
"""… and, under this one with the period's start, `|` and a value function's hex SHA-256, `<ISO time> <name>`:
when the service first valued one of the period's sessions with another value function than the one its
commitment binds (a service upgraded mid-period: shown beside the commitment, never silent)."""
_IDLE = 30.0
_DOUBLINGS = 4
"""A failing block's wait doubles this many times at most: 30 s grows to 8 min by default."""
_ERROR_CHARACTERS = 500
_NEVER = 2**62
"""A count of failures no block reaches: a paused ladder's block is never set aside for its pause."""


class LadderPaused(ArenaError):
    """Every bot of a ladder session failed to start for one reason, the arena's own (`arena_launch_failure`):
    nothing is stored or charged, and the ladder pauses until a session plays again."""

    def __init__(self, session_id: str, reason: str) -> None:
        super().__init__(f"every bot of ladder session {session_id} failed to start for the same reason, the "
                         f"arena's own, not theirs: {reason}")
        self.reason = reason


def information(pairs: PairResults, players: Sequence[str]) -> tuple[dict[str, float], dict[str, float]]:
    """Each player's strength (natural-log units) and its variance, from the Bradley-Terry fit of the
    pairs' results (`arena.ratings.pair_results`, which the store keeps as results land).

    A player without sessions has strength 0 (the centre) and the prior's variance.

    >>> from arena.ratings import SessionOutcome, pair_results
    >>> theta, var = information(pair_results([SessionOutcome(("a", "b"), (3, -3), "s1")]), ["a", "b", "c"])
    >>> theta["a"] > 0 > theta["b"], var["c"] > var["a"]
    (True, True)
    """
    theta = {player: 0.0 for player in players}
    if pairs:
        try:
            ratings = bradley_terry_pairs(pairs, mean=0.0, prior_games=PRIOR_GAMES)
        except RatingError:
            ratings = {}
        theta.update({player: rating / ELO_PER_NAT for player, rating in ratings.items() if player in theta})
    fisher = dict.fromkeys(players, PRIOR_GAMES / 4)  # a drawn virtual game at p = 1/2 weighs 1/4
    for (i, j), (_, games) in sorted(pairs.items()):
        if i in fisher and j in fisher:
            p = _beats(theta[i], theta[j])
            fisher[i] += float(games) * p * (1 - p)
            fisher[j] += float(games) * p * (1 - p)
    return theta, {player: 1 / fisher[player] for player in players}


def _beats(theta_i: float, theta_j: float) -> float:
    return 1 / (1 + math.exp(theta_j - theta_i))


def table_information(table: Sequence[str], theta: dict[str, float], variance: dict[str, float]) -> float:
    """What a table is expected to teach: p(1-p)(Var θi + Var θj) summed over its pairs."""
    total = 0.0
    for i, j in itertools.combinations(table, 2):
        p = _beats(theta[i], theta[j])
        total += p * (1 - p) * (variance[i] + variance[j])
    return total


def choose_table(players: Sequence[str], pairs: PairResults, *, table_size: int,
                 blocks_played: Mapping[str, int], placement_blocks: int, random_share: float,
                 rng: random.Random, owners: Mapping[str, str] | None = None) -> tuple[tuple[str, ...], str]:
    """The next table, in seat order, and why it was chosen (`placement`, `random` or `adaptive`), from
    the pairs' results so far and the blocks each player was seated in. No table seats two players of
    one author (`owners`: each player's author; a player missing from it is its own).

    >>> import random
    >>> choose_table(["a", "b", "c"], {}, table_size=2, blocks_played={"a": 3, "b": 3},
    ...              placement_blocks=2, random_share=0.0, rng=random.Random(1))[1]
    'placement'
    >>> choose_table(["a1", "a2", "b"], {}, table_size=2, blocks_played={}, placement_blocks=2, random_share=0.0,
    ...              rng=random.Random(1), owners={"a1": "alice", "a2": "alice", "b": "bob"})[0]
    ('a1', 'b')
    """
    owner = dict(owners or {})
    authors = len({owner.get(player, player) for player in players})
    if authors < table_size:
        raise ArenaError(f"a table of {table_size} needs players of {table_size} authors, and there are {authors}")
    theta, variance = information(pairs, players)
    newcomers = sorted((player for player in players if blocks_played.get(player, 0) < placement_blocks),
                       key=lambda player: (blocks_played.get(player, 0), player))
    if newcomers:
        newcomer = newcomers[0]
        mine = owner.get(newcomer, newcomer)
        others = [player for player in players if owner.get(player, player) != mine]
        tables = [(newcomer, *rest) for rest in _candidates(others, table_size - 1, rng, owner)]
        return _best(tables, theta, variance, rng), "placement"
    if rng.random() < random_share:
        return _draw(players, table_size, rng, owner), "random"
    return _best(list(_candidates(players, table_size, rng, owner)), theta, variance, rng), "adaptive"


def is_allowed(table: Sequence[str], owners: Mapping[str, str]) -> bool:
    """Whether a rated table may seat these players: no two of one author (Halite's rule: a team never
    plays itself in a rated game, so no author gains from soft play between its bots).

    >>> is_allowed(["a1", "b"], {"a1": "alice"}), is_allowed(["a1", "a2"], {"a1": "alice", "a2": "alice"})
    (True, False)
    """
    return len({owners.get(player, player) for player in table}) == len(table)


def _candidates(players: Sequence[str], size: int, rng: random.Random,
                owners: Mapping[str, str]) -> list[tuple[str, ...]]:
    if math.comb(len(players), size) <= _CANDIDATES:
        return [table for table in itertools.combinations(players, size) if is_allowed(table, owners)]
    return [_draw(players, size, rng, owners) for _ in range(_CANDIDATES)]


def _draw(players: Sequence[str], size: int, rng: random.Random, owners: Mapping[str, str]) -> tuple[str, ...]:
    # A table drawn uniformly among those allowed (by rejection: a few tries unless one author holds most
    # players), else one player of each of `size` authors drawn at random.
    for _ in range(_DRAWS):
        table = tuple(rng.sample(list(players), size))
        if is_allowed(table, owners):
            return table
    shuffled = rng.sample(list(players), len(players))
    by_author = {owners.get(player, player): player for player in shuffled}
    return tuple(rng.sample(list(by_author.values()), size))


def _best(tables: Sequence[tuple[str, ...]], theta: dict[str, float], variance: dict[str, float],
          rng: random.Random) -> tuple[str, ...]:
    scored = [(table_information(table, theta, variance), rng.random(), table) for table in tables]
    return max(scored)[2]


def retry_delay(failures: int, first: float) -> float:
    """Seconds before a block that failed `failures` times in a row is tried again.

    >>> [retry_delay(failures, 30.0) for failures in range(1, 8)]
    [30.0, 60.0, 120.0, 240.0, 480.0, 480.0, 480.0]
    """
    return first * (1 << min(failures - 1, _DOUBLINGS))


def describe(error: BaseException) -> str:
    """An error's type and message, as the store keeps a block's failure (an exception group's
    leaves, joined).

    >>> describe(ExceptionGroup("session", [OSError(28, "No space left on device")]))
    'OSError: [Errno 28] No space left on device'
    """
    if isinstance(error, BaseExceptionGroup):
        return "; ".join(describe(leaf) for leaf in error.exceptions)[:_ERROR_CHARACTERS]
    return f"{type(error).__name__}: {error}"[:_ERROR_CHARACTERS]


_DAY = 24 * 3600


def secret_period(days: int, at: float) -> tuple[float, float]:
    """The start and end (clock readings) of the secret period of `days` days holding `at`.

    >>> secret_period(7, 10 * 86400.0)
    (604800.0, 1209600.0)
    """
    length = days * _DAY
    start = math.floor(at / length) * length
    return float(start), float(start + length)


def period_secret(store: ServiceStore, days: int, at: float) -> str:
    """The deal secret of the period holding `at`, drawn on first use together with the next period's
    (whose commitment is so published a whole period before it deals a card)."""
    start, end = secret_period(days, at)
    q = value_function()
    for period in (end, start):  # each with the value function its commitment binds, stored as it is drawn
        secret = store.secret(_SECRET_PREFIX + iso(period),
                              beside={_VALUE_FUNCTION_PREFIX + iso(period): f"{q.name} {q.sha256}"})
    bound = store.setting(_VALUE_FUNCTION_PREFIX + iso(start))
    if bound is not None and bound != f"{q.name} {q.sha256}":  # drawn by a service with another value function
        if store.setting_once(f"{_CHANGED_PREFIX}{iso(start)}|{q.sha256}", f"{iso(at)} {q.name}"):
            LOGGER.warning("the ladder's period from %s committed to the value function %s; this service values "
                           "its sessions with %s %s from now, as its page shows beside the commitment",
                           iso(start), bound, q.name, q.sha256)
    return secret


@dataclass(frozen=True)
class LadderSecret:
    """One period's deal secret as the public sees it: its commitment, and the secret once revealed."""

    start: str
    end: str
    commitment: str
    """The commitment of the secret and the value function (`arena.storage.commitment_of`), published before
    the period starts."""
    value_function: ValueFunction | None
    """The value function the commitment binds; None for a secret drawn before commitments bound one."""
    secret: str | None
    """None until the period is over and every block planned in it is finished."""
    changes: tuple[tuple[str, ValueFunction], ...] = ()
    """When (ISO 8601) the service began valuing the period's sessions with another value function than the
    committed one, and which (a service upgraded mid-period), in time order."""

    def as_json(self) -> dict[str, object]:
        return {"start": self.start, "end": self.end, "commitment": self.commitment, "secret": self.secret,
                "value_function": None if self.value_function is None else self.value_function.as_json(),
                "value_function_changes": [{"from": at, **q.as_json()} for at, q in self.changes]}


def progress_line(progress: LadderProgress) -> str:
    """The ladder's progress in one line of the service's output.

    >>> progress_line(LadderProgress(118, 2345, "2026-12-04T17:45:09+00:00"))
    'seka-arena serve: ladder: 118 sessions in the last hour, 2345 in all; the last finished at 2026-12-04 17:45:09 UTC'
    """
    last = "none yet" if progress.last_at is None else \
        f"the last finished at {datetime.fromisoformat(progress.last_at).strftime('%Y-%m-%d %H:%M:%S UTC')}"
    return (f"seka-arena serve: ladder: {progress.last_hour} sessions in the last hour, {progress.finished} in all; "
            f"{last}")


def ladder_secrets(store: ServiceStore, days: int) -> list[LadderSecret]:
    """Every period's secret the ladder drew, newest first: each committed, and revealed once its period
    is over and no block planned in it is left to play (a set-aside block holds its period's back)."""
    now = store.clock()
    unfinished = {secret_period(days, from_iso(session.created_at))[0]
                  for session in store.ladder_sessions(unfinished=True)}
    shown = []
    bound = {key.removeprefix(_VALUE_FUNCTION_PREFIX): ValueFunction(*value.split(" "))
             for key, value in store.settings_under(_VALUE_FUNCTION_PREFIX).items()}
    changes: defaultdict[str, list[tuple[str, ValueFunction]]] = defaultdict(list)
    for key, value in store.settings_under(_CHANGED_PREFIX).items():
        period, _, sha256 = key.removeprefix(_CHANGED_PREFIX).partition("|")
        at, _, name = value.partition(" ")
        changes[period].append((at, ValueFunction(name, sha256)))
    for key, secret in store.settings_under(_SECRET_PREFIX).items():
        period = key.removeprefix(_SECRET_PREFIX)
        start = from_iso(period)
        end = secret_period(days, start)[1]
        revealed = end <= now and start not in unfinished
        q = bound.get(period)
        shown.append(LadderSecret(iso(start), iso(end), commitment_of(secret, None, q), q,
                                  secret if revealed else None, tuple(sorted(changes[period]))))
    return shown[::-1]


def history_terms(rules: Rules, history: Path) -> SessionTerms:
    """A stored session's terms by seat (`arena.ratings.session_terms`), from its history replayed: whoever
    played it (this process, a cluster's worker), the history is the one record of its events."""
    return session_terms(rules, replay_records(read_history(history), path=str(history)).state.events)


def ladder_live_folder(ladder: Path) -> Path:
    """Where the ladder (folder `ladder`) appends its sessions in play as they go."""
    return ladder / "live"


class Ladder:
    """Plays ladder blocks, and the challenges' blocks in turn, for as long as the service runs."""

    def __init__(self, service: Service, *, rng: random.Random | None = None,
                 announce: Callable[[str], None] | None = None) -> None:
        """`announce` gets a line of the ladder's progress now and then (`ladder.progress_minutes`); None: no lines."""
        self.service = service
        self.announce = announce
        self._announced: float | None = None
        """The store's clock when the last progress line was announced."""
        self.config = service.config.ladder
        self.rng = rng or random.Random()
        self.folder: Path = service.registry.folder.ladder
        self._claimed: set[int] = set()
        self._retry_at: dict[int, float] = {}
        """Blocks that failed, by when (trio's clock) they may be tried again."""
        self._paused: str | None = None
        """Why the ladder is paused (`LadderPaused.reason`), None while it plays."""
        self._challenges_claimed: set[tuple[int, int]] = set()
        self._challenge_failures: dict[tuple[int, int], tuple[int, float]] = {}
        """Challenge blocks (challenge, block) that failed: failures in a row, and when they may be tried again."""
        self._challenge_turn = True
        """Whether a queued challenge block goes before the next ladder block (they take turns)."""
        self._lock = trio.Lock()
        self.player = SessionPlayer(service)
        """Where its sessions are played (here, or on the service's cluster): entered by `run`."""

    def verify_histories(self) -> None:
        """Refuse to start a ladder over histories no stored session accounts for.

        Raises:
            StorageError: the store holds no ladder session but `ladder/histories/` holds histories:
                they belong to a store that was lost or replaced.
        """
        histories = self.folder / "histories"
        if not self.service.store.ladder_started() and histories.is_dir() and any(histories.glob("*.jsonl")):
            raise StorageError(f"{histories} holds ladder histories, but {self.service.store.path} holds no ladder "
                               "session: they belong to a service store that is gone; restore it, or move the "
                               "folder away to start the ladder afresh")

    def secret(self, at: float) -> str:
        """The deal secret of the period holding clock reading `at` (bots never see it)."""
        return period_secret(self.service.store, self.config.secret_days, at)

    async def run(self) -> None:
        """Play blocks, `SessionPlayer.blocks_in_flight` at a time, until cancelled, or until the service is
        stopping and the sessions in flight are stored (the rest of their blocks is played first on the next start)."""
        self.secret(self.service.store.clock())  # the current and next periods' commitments, published now
        # A stopped ladder's sessions in play are not in play any more (a replayed one starts its file afresh).
        await trio.to_thread.run_sync(lambda: shutil.rmtree(ladder_live_folder(self.folder), ignore_errors=True))
        async with self.player:  # the cluster connected (or started) first, stopped after the last session
            if self.announce is not None and self.player.executor is not None:
                self.announce(f"seka-arena serve: ladder: sessions played {self.player.describe()}")
            async with trio.open_nursery() as nursery:
                for _ in range(self.player.blocks_in_flight()):
                    nursery.start_soon(self._worker)

    async def _worker(self) -> None:
        stopping = self.service.stopping
        while not stopping.is_set():
            async with self._lock:
                block, wake = await self._claim()
            if block is None:
                with trio.move_on_after(min(_IDLE, max(wake - trio.current_time(), 0.0))):
                    await self.service.changed.wait()
                continue
            if isinstance(block[0], ChallengeSession):
                await self._play_challenge_block([session for session in block
                                                  if isinstance(session, ChallengeSession)])
                continue
            block = [session for session in block if isinstance(session, LadderSession)]
            number = block[0].block
            try:
                for session in block:
                    if session.status != "finished" and not stopping.is_set():
                        await self.play(session)
            except Exception as error:  # an arena bug or a full disk, never a bot's fault (those never raise)
                await self._failed(number, error)
            else:
                self._retry_at.pop(number, None)
            finally:
                self._claimed.discard(number)

    async def _claim(self) -> tuple[list[LadderSession] | list[ChallengeSession] | None, float]:
        # The next block to play, claimed (a challenge's and the ladder's take turns; a challenge's whenever the
        # ladder has nothing to play); or None, and when (trio's clock) a retry falls due.
        now = trio.current_time()
        if self._challenge_turn and (challenge := await self._claim_challenge(now)) is not None:
            self._challenge_turn = False
            return challenge, now
        block, wake = await self._claim_ladder(now)
        if block is not None:
            self._challenge_turn = True
            return block, now
        if (challenge := await self._claim_challenge(now)) is not None:
            return challenge, now
        waits = [when for _, when in self._challenge_failures.values() if when > now]
        return None, min([wake, *waits])

    async def _claim_challenge(self, now: float) -> list[ChallengeSession] | None:
        skip = self._challenges_claimed | {key for key, (_, when) in self._challenge_failures.items() if when > now}
        try:
            block = await trio.to_thread.run_sync(functools.partial(self.service.store.next_challenge_block,
                                                                    skip=skip))
        except Exception as error:  # the store cannot be read (a full disk): tried again at the next claim
            if not is_disk_full(error):
                LOGGER.exception("the ladder cannot read the challenges to play")
            return None
        if block:
            self._challenges_claimed.add((block[0].challenge, block[0].block))
        return block

    async def _play_challenge_block(self, block: list[ChallengeSession]) -> None:
        # A challenge's block, as a ladder block is played; the arena's failures retried with the same waits.
        key = (block[0].challenge, block[0].block)
        try:
            for session in block:  # a stopping service finishes the session in play, as for a ladder block
                if session.status != "finished" and not self.service.stopping.is_set():
                    await _challenges.play(self.service, session, self.player)
        except _challenges.BotsFailed as failure:
            await self._bots_failed(session, failure)
        except Exception as error:
            failures = self._challenge_failures.get(key, (0, 0.0))[0] + 1
            delay = retry_delay(failures, self.config.retry_seconds)
            self._challenge_failures[key] = (failures, trio.current_time() + delay)
            if is_disk_full(error):
                self.service.disk_full.met(error, f"playing block {key[1]} of challenge {key[0]}")
            else:
                LOGGER.error("block %d of challenge %d failed (%d tries in a row); retrying in %g s", key[1], key[0],
                             failures, delay, exc_info=error)
        else:
            self._challenge_failures.pop(key, None)
            self.service.disk_full.cleared()
        finally:
            self._challenges_claimed.discard(key)

    async def _bots_failed(self, session: ChallengeSession, failure: _challenges.BotsFailed) -> None:
        # A try failed by the bots' own doing: counted (the challenge ends, failed, at the last one), and the block
        # tried again after the first wait; nothing in a row of the arena's failures.
        key = (session.challenge, session.block)
        try:
            challenge = await trio.to_thread.run_sync(functools.partial(
                self.service.store.record_challenge_failure, session.id, str(failure), final=failure.final,
                most=_challenges.MAX_BOT_FAILURES))
        except Exception as error:  # the store cannot count it (a full disk): tried again after the longest wait
            if is_disk_full(error):
                self.service.disk_full.met(error, f"recording the failure of {session.id}")
            else:
                LOGGER.exception("cannot record the failure of challenge session %s", session.id)
            self._challenge_failures[key] = (0, trio.current_time() + retry_delay(_DOUBLINGS + 1,
                                                                                  self.config.retry_seconds))
            return
        if challenge.failed is not None:
            LOGGER.warning("challenge %d failed: %s", challenge.id, challenge.failed)
        else:
            self._challenge_failures[key] = (0, trio.current_time() + self.config.retry_seconds)
        self.service.notify()

    async def _claim_ladder(self, now: float) -> tuple[list[LadderSession] | None, float]:
        waiting = {number for number, when in self._retry_at.items() if when > now}
        if self._paused is not None and (waiting or self._claimed):  # paused: one try at a time, when due
            return None, min((when for when in self._retry_at.values() if when > now), default=now + _IDLE)
        try:
            block = await trio.to_thread.run_sync(functools.partial(
                self.next_block, skip=waiting, may_plan=len(self._retry_at) <= 1 and self._paused is None))
        except Exception as error:  # the store cannot plan a block (a full disk): not fatal, tried again
            if is_disk_full(error):
                self.service.disk_full.met(error, "planning a ladder block")
            else:
                LOGGER.exception("the ladder cannot choose its next block; trying again in %g s",
                                 self.config.retry_seconds)
            return None, now + self.config.retry_seconds
        if block:
            self._claimed.add(block[0].block)
            return block, now
        return None, min((when for when in self._retry_at.values() if when > now), default=math.inf)

    async def _failed(self, number: int, error: Exception) -> None:
        store = self.service.store
        paused = error.reason if isinstance(error, LadderPaused) else None
        try:
            # Counted as a block's failure (organisers see it with the blocks that fail), but never set aside
            # for a pause: the next block would fail alike.
            failure = await trio.to_thread.run_sync(functools.partial(
                store.record_ladder_failure, number, describe(error),
                max_failures=_NEVER if paused is not None else self.config.max_failures))
        except Exception as cause:  # the store cannot count it either (a full disk): retried after the longest wait
            if not is_disk_full(cause):
                LOGGER.exception("cannot record the failure of ladder block %d", number)
            failure = LadderFailure(number, _DOUBLINGS + 1, describe(error), store.now(), None)
        if paused is not None:
            delay = retry_delay(failure.failures, self.config.retry_seconds)
            self._retry_at[number] = trio.current_time() + delay
            if paused != self._paused:  # said once, not at every try
                LOGGER.error("the ladder is paused: %s; it tries again now and then (block %d) and plays on once a "
                             "session starts: fix the cause", error, number)
            self._paused = paused
        elif failure.set_aside:
            self._retry_at.pop(number, None)
            LOGGER.error("ladder block %d set aside after %d failures in a row; an organiser puts it back with "
                         "POST /api/ladder/blocks/%d/resume", number, failure.failures, number, exc_info=error)
        else:
            delay = retry_delay(failure.failures, self.config.retry_seconds)
            self._retry_at[number] = trio.current_time() + delay
            if is_disk_full(error):  # the machine's fault, logged once per episode, without a traceback
                self.service.disk_full.met(error, f"playing ladder block {number}")
            else:
                LOGGER.error("ladder block %d failed (%d of %d tries in a row); retrying in %g s", number,
                             failure.failures, self.config.max_failures, delay, exc_info=error)
        self.service.notify()

    def next_block(self, *, skip: Collection[int] = (), may_plan: bool = True) -> list[LadderSession] | None:
        """An unfinished block nobody plays, not set aside nor in `skip` (blocks waiting for a retry),
        else (if `may_plan`) a new one chosen by `choose_table`, else None (nothing to play now, or
        the current versions' authors fewer than the seats)."""
        store = self.service.store
        self.secret(store.clock())  # a new period's secret is committed a period before it deals
        set_aside = {failure.block for failure in store.ladder_failures() if failure.set_aside}
        unfinished = [session for session in store.ladder_sessions(unfinished=True)
                      if session.block not in self._claimed | set_aside | set(skip)]
        if unfinished:
            return store.ladder_sessions(block=unfinished[0].block)
        current = store.current_versions()
        authors = {bot.name: bot.author for bot in store.bots()}
        owners = {str(version.id): authors[version.bot] for version in current}
        if not may_plan or len(set(owners.values())) < self.config.table_size:
            return None  # a rated table never seats two bots of one author
        players = [str(version.id) for version in current]
        standing = store.ladder_standing(exclude_blocks=set_aside)
        table, reason = choose_table(players, standing.pairs, table_size=self.config.table_size,
                                     blocks_played=standing.blocks, placement_blocks=self.config.placement_blocks,
                                     random_share=self.config.random_share, rng=self.rng, owners=owners)
        at = store.clock()
        secret = self.secret(at)
        seatings = [tuple(int(seat) for seat in seating) for seating in mirrors(table)]
        return store.plan_block(seatings, seed=lambda number: block_seed(secret, table, number), reason=reason,
                                at=at)

    def live_path(self, session: str) -> Path:
        """Where a ladder session in play is appended as it goes (`arena.history.live_history`)."""
        return ladder_live_folder(self.folder) / f"{session}.jsonl"

    async def play(self, session: LadderSession) -> None:
        """Play one ladder session from its start and store its result."""
        store = self.service.store
        path = self.folder / "histories" / f"{session.id}.jsonl"
        # A history there already was written by an attempt killed before its result: kept aside.
        await trio.to_thread.run_sync(lambda: make_way_for_replay(path, interrupted=session.attempts > 0))
        await trio.to_thread.run_sync(store.mark_ladder_running, session.id)
        versions = [store.version_by_id(seat) for seat in session.seating]
        specs = [self.service.registry.spec(version) for version in versions]
        secret = self.secret(from_iso(session.created_at))
        job = SessionJob(session_id=session.id, seed=session.seed, public_id=public_session_id(secret, session.id),
                         rules=self.service.config.rules, bots=tuple(specs))
        outcome = await self.player.play(job, folder=self.folder, live=self.live_path(session.id))
        if (reason := arena_launch_failure(outcome.seats)) is not None and not await _challenges.arena_starts_bots(
                self.service, self.player, session_id=session.id, seats=len(specs), seed=session.seed,
                folder=self.folder / "probes"):
            raise LadderPaused(session.id, reason)  # nothing stored, nothing charged
        history = await trio.to_thread.run_sync(write_files, outcome, self.folder)
        balances: list[Amount] = list(outcome.balances)
        faults = [0] * len(specs)
        reasons: list[tuple[FaultReason, ...]] = [()] * len(specs)
        for seat in outcome.seats:
            faults[seat.seat] = sum(seat.telemetry["faults"].values())
            reasons[seat.seat] = tuple(FaultReason(kind, reason, count) for kind, reason, count in seat.fault_reasons)
        # The tables are chosen from adjusted results (less the luck of svara re-deals and of announced
        # distributions' draws, and the deal control variate cross-fitted on the other half of the blocks:
        # docs/ratings.md), which the store works out as it records the result.
        terms = await trio.to_thread.run_sync(lambda: history_terms(self.service.config.rules, history))
        await trio.to_thread.run_sync(lambda: store.record_ladder_result(
            session.id, balances, faults, str(history.relative_to(self.service.config.data)), reasons,
            adjusted=terms.known, luck=terms.luck))
        self.service.disk_full.cleared()
        if self._paused is not None:
            LOGGER.warning("the ladder plays again: session %s started (it was paused: %s)", session.id, self._paused)
            self._paused = None
        self.service.notify()
        await self._announce_progress()

    async def _announce_progress(self) -> None:
        # After the first session, then at most every progress_minutes: a line to follow the ladder's
        # pace in the service's output without a line per session.
        now = self.service.store.clock()
        if self.announce is None or (self._announced is not None
                                     and now - self._announced < 60 * self.config.progress_minutes):
            return
        self._announced = now
        progress = await trio.to_thread.run_sync(self.service.store.ladder_progress)
        self.announce(progress_line(progress))
