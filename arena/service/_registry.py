"""The bot registry: submissions stored by their SHA-256, and each version checked with check-bot.

Layout of the data folder:

    service.sqlite            the service store (`ServiceStore`)
    archives/SHA.tar.gz|zip   every archive as submitted
    bots/SHA/                 its unpacked folder (read-only to the bot in the sandbox)
    checks/VERSION/           the bot's logs while check-bot ran
    ladder/                   ladder histories and logs
    tournaments/RUN/          the scheduled tournaments' results folders
    collusion/                the last collusion report of each scope (`_collusion.SavedReports`)

A submission is unpacked into a staging folder under `bots/` and renamed into place only once
it is complete and its manifest is accepted, so `bots/SHA/` is always a whole, accepted unpacking;
a refused archive leaves nothing behind.
"""

from __future__ import annotations

import hashlib
import logging
import math
import os
import re
import secrets
import shlex
import shutil
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from ..checkbot import Check, check_bot
from ..engine import ArenaError
from ..isolation import Isolation, confinement_problem
from ..storage import write_atomically
from ..transport import BotSpec, with_our_python
from ._archive import ArchiveError, Manifest, archive_kind, read_manifest, unpack_archive
from ._config import ServiceConfig
from ._store import Author, NotYourBotError, ServiceStore, VersionRecord, VersionStatus, from_iso
from ._tree import tree_digest

LOGGER = logging.getLogger(__name__)
_DAY = 24 * 3600.0
_BOT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}\Z")
_LOG_TAIL_BYTES = 64 * 1024
FROZEN = "frozen"
"""The setting an organiser sets to `1` to refuse submissions."""


class SubmissionsFrozenError(ArenaError):
    """Submissions are frozen (by an organiser, or before a scheduled tournament): HTTP 409."""


class BadRequestError(ArenaError, ValueError):
    """A request the service refuses as malformed (a bad bot name): HTTP 422."""


class QuotaError(ArenaError):
    """A submission over a quota, or while the disk is under its floor: HTTP `status` (429 for a rate,
    with Retry-After `retry_after` seconds; 507 for storage)."""

    def __init__(self, status: int, message: str, *, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after


class UnchangedVersionError(ArenaError):
    """A submission of the same files as the bot's latest version (pending or accepted): no new version;
    the service answers with `version`, which keeps its ratings and its place in the ladder."""

    def __init__(self, version: VersionRecord) -> None:
        super().__init__(f"the same files as {version.label}: no new version")
        self.version = version


def bot_name_problem(name: str) -> str | None:
    """What is wrong with a bot's name in the service, or None (no dots: `bot.vN` names a version).

    >>> bot_name_problem("strong_bot"), bot_name_problem("a.b")
    (None, "a bot's name is 1 to 64 letters, digits, '_' or '-', starting with a letter or digit, not 'a.b'")
    """
    if _BOT_NAME.match(name):
        return None
    return f"a bot's name is 1 to 64 letters, digits, '_' or '-', starting with a letter or digit, not {name[:80]!r}"


@dataclass(frozen=True)
class DataFolder:
    """Where the service keeps what it stores (see the module's docstring)."""

    root: Path

    @property
    def database(self) -> Path:
        return self.root / "service.sqlite"

    def archive(self, sha256: str, kind: str) -> Path:
        return self.root / "archives" / f"{sha256}.{kind}"

    def bot(self, sha256: str) -> Path:
        return self.root / "bots" / sha256

    def check_logs(self, version_id: int) -> Path:
        return self.root / "checks" / str(version_id)

    @property
    def ladder(self) -> Path:
        return self.root / "ladder"

    @property
    def tournaments(self) -> Path:
        return self.root / "tournaments"

    @property
    def collusion(self) -> Path:
        return self.root / "collusion"

    def hidden(self) -> list[Path]:
        """What no bot may be shown in the sandbox: the whole data folder (a submitted bot is confined
        to its own folder in it, see `BotSpec.confined`)."""
        return [self.root]


class Registry:
    """Submissions and their checks, over the service store."""

    def __init__(self, store: ServiceStore, config: ServiceConfig, *, isolation: Isolation,
                 frozen_until: Callable[[], str | None] = lambda: None) -> None:
        self.store = store
        self.config = config
        self.folder = DataFolder(config.data)
        self.isolation = isolation
        self.frozen_until = frozen_until
        """When submissions reopen because a scheduled tournament is about to fire, or None."""
        self._submitting = threading.Lock()
        for sub in ("archives", "bots", "checks"):
            (config.data / sub).mkdir(parents=True, exist_ok=True)

    def is_frozen(self) -> str | None:
        """Why submissions are refused now, or None."""
        if self.store.setting(FROZEN) == "1":
            return "submissions are frozen by the organisers"
        if (until := self.frozen_until()) is not None:
            return f"submissions are frozen until a scheduled tournament has started ({until})"
        return None

    def submit(self, author: Author, bot: str, data: bytes) -> VersionRecord:
        """Store a new version of `bot` from its archive, `pending` until checked.

        Submissions are made one at a time, so that two at once cannot both pass a quota.

        Raises:
            BadRequestError: a bot name the service does not accept.
            NotYourBotError: the bot belongs to another author.
            SubmissionsFrozenError: submissions are frozen.
            QuotaError: over a quota (`quotas:`), or the disk under its floor; nothing is left in the store.
            ArchiveError: the archive or its manifest is refused; nothing is left in the store.
            UnchangedVersionError: the same files as the bot's latest version, pending or accepted (carried
                as `.version`, which keeps its ratings and placement); nothing is left in the store.
        """
        if (problem := bot_name_problem(bot)) is not None:
            raise BadRequestError(problem)
        existing = self.store.bot(bot)
        if existing is not None and existing.author != author.name:
            raise NotYourBotError(f"bot {bot!r} belongs to another author")
        if existing is not None and existing.disqualified is not None:
            raise NotYourBotError(f"bot {bot!r} is disqualified: {existing.disqualified}")
        if (frozen := self.is_frozen()) is not None:
            raise SubmissionsFrozenError(frozen)
        with self._submitting:
            self._verify_quotas(author, data)
            kind = archive_kind(data)
            sha256 = hashlib.sha256(data).hexdigest()
            folder = self.folder.bot(sha256)
            if folder.is_dir():  # the same archive as an earlier submission: unpacked and checked then
                manifest = read_manifest(folder)
                self._verify_command(manifest, folder)
            else:
                manifest = self._unpack(data, folder)
            try:
                tree, unpacked = tree_digest(folder)
                latest = self.store.version(bot, "latest")
                if (latest is not None and latest.tree_sha256 == tree
                        and latest.status in (VersionStatus.PENDING, VersionStatus.ACCEPTED)):
                    raise UnchangedVersionError(latest)
                self._verify_storage(author, len(data) + unpacked)
                archive = self.folder.archive(sha256, kind)
                if not archive.exists():
                    write_atomically(archive, data)
                return self.store.add_version(bot, author.name, sha256=sha256, kind=kind, size=len(data),
                                              command=manifest.command, language=manifest.language,
                                              description=manifest.description, tree_sha256=tree,
                                              unpacked_bytes=unpacked)
            except BaseException:
                if not self.store.uses_archive(sha256):  # unpacked for this submission alone
                    shutil.rmtree(folder, ignore_errors=True)
                raise

    def _verify_quotas(self, author: Author, data: bytes) -> None:
        # Before the archive is unpacked: the author's rate, and the disk's floor.
        quotas = self.config.quotas
        now = self.store.clock()
        times = self.store.submission_times(author.name, since=now - _DAY)
        if len(times) >= quotas.versions_per_day:
            wait = max(1, math.ceil(from_iso(times[0]) + _DAY - now))
            raise QuotaError(429, f"{author.name} submitted {len(times)} versions in the last 24 hours, the most "
                                  f"allowed (quotas.versions_per_day): the next is accepted in {wait} s",
                             retry_after=wait)
        free = shutil.disk_usage(self.config.data).free
        if free < quotas.min_free_bytes + len(data):
            raise QuotaError(507, f"the service's disk has {free >> 20} MiB free, under its floor of "
                                  f"{quotas.min_free_bytes >> 20} MiB (quotas.min_free_disk_mb): uploads are "
                                  "refused until the organisers free space")
        if (stored := self.store.stored_bytes(author.name)) + len(data) > quotas.stored_bytes:
            raise QuotaError(507, self._storage_message(author, stored))

    def _verify_storage(self, author: Author, adding: int) -> None:
        # Once unpacked: the archive and its files within the author's storage quota.
        stored = self.store.stored_bytes(author.name)
        if stored + adding > self.config.quotas.stored_bytes:
            raise QuotaError(507, self._storage_message(author, stored, adding))

    def _storage_message(self, author: Author, stored: int, adding: int | None = None) -> str:
        limit = self.config.quotas.stored_bytes
        more = f", and this one takes {adding} bytes (archive and files)" if adding is not None else ""
        return (f"{author.name}'s versions take {stored} bytes of the {limit} allowed (quotas.stored_mb){more}: "
                "ask the organisers to remove old versions or raise the quota")

    def _unpack(self, data: bytes, folder: Path) -> Manifest:
        staging = folder.with_name(f".staging-{secrets.token_hex(8)}")
        try:
            manifest = unpack_archive(data, staging, limits=self.config.uploads)
            self._verify_command(manifest, staging)
            if folder.exists():  # the same archive, unpacked by a submission at the same time
                shutil.rmtree(staging)
            else:
                os.replace(staging, folder)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        return manifest

    def _verify_command(self, manifest: Manifest, folder: Path) -> None:
        # A submitted bot is confined to its folder: its command may name nothing else (checked
        # again at each launch, with the same rule).
        words = shlex.split(manifest.command)
        if (problem := confinement_problem(words, folder=folder)) is not None:
            raise ArchiveError(f"bot.yaml: command: {problem}")
        if "/" in words[0] and not (folder / words[0]).is_file():
            raise ArchiveError(f"bot.yaml: command: the program {words[0]!r} is not a file in the archive")

    def spec(self, version: VersionRecord) -> BotSpec:
        """How the arena starts this version: its command, from its unpacked folder, confined to it.

        A version stored with a command that reaches outside its folder (before the rule was checked
        at submit) is not started at all: it folds as crashed, and its check fails saying why.
        """
        limits = self.config.limits
        folder = self.folder.bot(version.sha256)
        words = shlex.split(version.command)
        problem = confinement_problem(words, folder=folder)
        return BotSpec(name=version.label, command=with_our_python(words), cwd=str(folder), limit=limits.time,
                       process=limits.process, isolation=self.isolation, confined=True,
                       disabled=None if problem is None else f"not started: its command {problem}")

    async def check(self, version: VersionRecord) -> bool:
        """Run check-bot on a version in the sandbox and store its report and stderr; True if accepted.

        Whatever fails (the sandbox refusing the bot's command at launch, also when it comes wrapped
        in an exception group from a nursery, or the arena's own error) ends the check as `refused`
        with the reason in its report: a version is never left pending to fail again at each start.
        Only a store that cannot record the verdict leaves it pending.
        """
        lines: list[str] = []

        def report(item: Check | str) -> None:
            lines.append(item.line() if isinstance(item, Check) else f"-- {item}")

        logs = self.folder.check_logs(version.id)
        try:
            shutil.rmtree(logs, ignore_errors=True)  # a check interrupted by a restart starts afresh
            logs.mkdir(parents=True)
            passed = await check_bot(self.spec(version), report=report, log_dir=logs, rules=self.config.rules,
                                     hidden=self.folder.hidden())
        except Exception as error:  # every failure is recorded as the version's refusal
            lines.append(check_failure(version, error))
            passed = False
        lines.append("conforms" if passed else "does NOT conform")
        stderr = log_tail(logs / f"{version.label}.stderr.log")
        self.store.finish_check(version.id, accepted=passed, report="\n".join(lines), stderr=stderr)
        return passed


def check_failure(version: VersionRecord, error: Exception) -> str:
    """The report's line for a check that raised: the arena's refusals (`ArenaError`s, such as the sandbox
    refusing the bot's command), found also inside (nested) exception groups, else the arena's own failure,
    logged with its traceback and never blamed on the bot."""
    leaves = list(_leaves(error))
    refusals = [leaf for leaf in leaves if isinstance(leaf, ArenaError)]
    if refusals:
        return "FAIL  start: " + "; ".join(dict.fromkeys(str(refusal) for refusal in refusals))
    LOGGER.error("checking %s failed", version.label, exc_info=error)
    kinds = ", ".join(dict.fromkeys(type(leaf).__name__ for leaf in leaves))
    return (f"FAIL  the arena could not run the check ({kinds}): not the bot's fault, submit the same archive "
            "again once the organisers have fixed it")


def _leaves(error: BaseException) -> Iterator[BaseException]:
    if isinstance(error, BaseExceptionGroup):
        for inner in error.exceptions:
            yield from _leaves(inner)
    else:
        yield error


def log_tail(path: Path) -> str:
    """The last 64 KiB of a bot's log as text (a bot may write without limit), or '' when there is none."""
    try:
        with open(path, "rb") as log:
            log.seek(max(0, path.stat().st_size - _LOG_TAIL_BYTES))
            return log.read().decode("utf-8", "replace")
    except OSError:
        return ""
