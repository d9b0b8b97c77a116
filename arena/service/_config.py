"""The service's configuration file (`tournaments/service.yaml`), checked with file:line errors.

It is read with the tournament loader's `ConfigReader`, so a mistake is reported the way a
tournament file's is, every mistake of the file at once. A relative `data` folder is relative to
the folder holding the file.
"""

from __future__ import annotations

import importlib.util
import ipaddress
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from croniter import croniter

from ..engine import GEORGIAN, Rules, RulesError, check_seats
from ..executor import ClusterCertificates, cluster_problem
from ..tournament import (
    INVALID,
    BotLimits,
    Bounds,
    ConfigEntry,
    ConfigProblem,
    ConfigReader,
    Isolation,
    TournamentConfigError,
    compose_yaml,
    name_problem,
    node_line,
    read_cluster,
    read_config_file,
    read_limits,
    read_rules,
)

_MIB = 1 << 20


@dataclass(frozen=True)
class UploadLimits:
    """What a submitted archive may hold; anything over is refused before it is stored."""

    archive_bytes: int = 16 * _MIB
    """The archive as sent (`uploads.archive_mb`): a bigger request body gets 413."""
    unpacked_bytes: int = 64 * _MIB
    """The files it holds, unpacked, together (`uploads.unpacked_mb`)."""
    files: int = 2000
    """Entries it holds, folders included (`uploads.files`)."""


@dataclass(frozen=True)
class Quotas:
    """What one author may store and how fast, and the free disk space below which uploads stop."""

    versions_per_day: int = 20
    """New versions per author in any 24 hours (`quotas.versions_per_day`): one more gets 429 with Retry-After."""
    stored_bytes: int = 1024 * _MIB
    """Bytes of an author's versions, archives and unpacked files together (`quotas.stored_mb`): 507 past it."""
    min_free_bytes: int = 1024 * _MIB
    """Uploads are refused (507) while the data folder's disk has less free space (`quotas.min_free_disk_mb`),
    so the ladder's histories and the store keep room."""
    challenges_per_day: int = 10
    """Challenges per author in any 24 hours (`quotas.challenges_per_day`): one more gets 429 with Retry-After."""
    challenge_blocks: int = 4
    """Duplicate blocks one challenge may ask for (`quotas.challenge_blocks`)."""


@dataclass(frozen=True)
class WebLimits:
    """What the web server holds for anonymous visitors, bounded."""

    events_total: int = 256
    """Server-sent event streams (live tournament pages) open at once, overall (`web.events_total`)."""
    events_per_client: int = 8
    """... and per client address (`web.events_per_client`); behind a reverse proxy every client has the
    proxy's address, so cap clients at the proxy too."""
    stalled_client_seconds: int = 60
    """A connection whose sent bytes stay unacknowledged this long (a client that stopped reading, or is gone
    without a word) is closed by the kernel (`web.stalled_client_seconds`, TCP_USER_TIMEOUT): the server
    cannot drop it otherwise (Hypercorn shields its writes), and it would keep its event-stream place."""
    replay_cache: int = 256
    """Sessions whose re-checked history is kept in memory for their replay pages (`web.replay_cache`)."""
    trusted_proxies: tuple[str, ...] = ()
    """Addresses of reverse proxies whose `X-Forwarded-For` names the client (`web.trusted_proxies`): a request
    from one of them counts as from the last address that header lists; from anyone else, the header is
    ignored (a client could write any address there)."""


@dataclass(frozen=True)
class LadderConfig:
    """The continuous ladder: duplicate blocks among the latest accepted version of every bot."""

    enabled: bool = True
    table_size: int = 2
    """Seats at a ladder table."""
    placement_blocks: int = 2
    """Duplicate blocks a new version plays before the adaptive choice takes over."""
    random_share: float = 0.2
    """Share of tables drawn uniformly at random, so that every bot stays connected."""
    concurrency: int | None = None
    """Blocks played at the same time; None: one in the ladder's process, or on a cluster as many as its
    workers have threads when the ladder connects (`SessionPlayer.blocks_in_flight`)."""
    retry_seconds: float = 30.0
    """Wait before a block whose play raised (not a bot's fault) is tried again, doubled at each
    further failure in a row up to 16 times this."""
    max_failures: int = 5
    """Failed tries in a row after which a block is set aside until an organiser puts it back."""
    secret_days: int = 7
    """Days each secret of the ladder's deals is used: its commitment is published a period before,
    the secret itself once its period is over and every block dealt from it has been played."""
    progress_minutes: int = 10
    """The ladder's process prints a line of its progress after its first session, then after a session
    at most this often (an idle ladder prints nothing)."""

    def __post_init__(self) -> None:
        if not self.retry_seconds > 0:
            raise TournamentConfigError([ConfigProblem("<service config>", None, "ladder.retry_seconds",
                                                       f"must be positive, not {self.retry_seconds!r}")])
        if self.secret_days < 1:
            raise TournamentConfigError([ConfigProblem("<service config>", None, "ladder.secret_days",
                                                       f"must be at least 1, not {self.secret_days!r}")])
        if self.progress_minutes < 1:
            raise TournamentConfigError([ConfigProblem("<service config>", None, "ladder.progress_minutes",
                                                       f"must be at least 1, not {self.progress_minutes!r}")])
        if self.max_failures < 1:
            raise TournamentConfigError([ConfigProblem("<service config>", None, "ladder.max_failures",
                                                       f"must be at least 1, not {self.max_failures!r}")])


@dataclass(frozen=True)
class ScheduleConfig:
    """A tournament that fires on a cron expression: a round robin of the latest accepted versions."""

    name: str
    cron: str
    """Five-field cron expression, in UTC (`0 2 * * *`: every night at 02:00)."""
    top: int | None = None
    """Only the ladder's best `top` bots; None: every bot with an accepted version."""
    table_size: int = 2
    sessions_per_table: int = 1
    """Duplicate blocks per table."""
    freeze_minutes: int = 0
    """Submissions are refused this long before the tournament fires."""
    publish: str = "spectator"
    """What its public report shows once it is over: `spectator` (the hands shown at showdowns) or
    `organiser` (every hand and the seed, as the ACPC publishes its logs; never a bot's own logs)."""

    def __post_init__(self) -> None:
        if (problem := name_problem(self.name)) is not None:
            raise TournamentConfigError([ConfigProblem("<service config>", None, "tournaments.name", problem)])
        if self.publish not in PUBLISH_CHOICES:
            raise TournamentConfigError([ConfigProblem("<service config>", None, "tournaments.publish",
                                                       f"must be spectator or organiser, not {self.publish!r}")])
        if (problem := cron_problem(self.cron)) is not None:
            raise TournamentConfigError([ConfigProblem("<service config>", None, "tournaments.cron", problem)])

    def settings(self) -> dict[str, Any]:
        """What the store keeps of a schedule beyond its name and cron expression."""
        return {"top": self.top, "table_size": self.table_size, "sessions_per_table": self.sessions_per_table,
                "freeze_minutes": self.freeze_minutes, "publish": self.publish}


@dataclass(frozen=True)
class ServiceConfig:
    """A checked service configuration. Build one with `load_service_config`."""

    data: Path
    """The folder holding service.sqlite, the bot store and the tournaments' results."""
    rules: Rules = GEORGIAN
    limits: BotLimits = BotLimits()
    """Limits of every bot process (a tournament file's `limits:`)."""
    isolation: Isolation | None = None
    """None: `sandbox` where the machine can, else `none` with a warning."""
    uploads: UploadLimits = UploadLimits()
    quotas: Quotas = Quotas()
    web: WebLimits = WebLimits()
    ladder: LadderConfig = LadderConfig()
    schedules: tuple[ScheduleConfig, ...] = ()
    cluster: str | None = None
    """Where the ladder's, the challenges' and the scheduled tournaments' sessions are played (`cluster:`):
    None on this machine, else `local:N` or a Dask scheduler's address (docs/service.md, "On a cluster")."""
    cluster_certificates: ClusterCertificates | None = None
    """The service's CA, certificate and key for a `tls://` cluster (`cluster: {address, ca, cert, key}`)."""
    path: Path | None = None
    """The file it was read from."""


def cron_problem(value: object) -> str | None:
    """What is wrong with a cron expression, or None.

    >>> cron_problem("0 2 * * *"), cron_problem("0 25 * * *")
    (None, "must be a five-field cron expression such as '0 2 * * *' (minute hour day month weekday), not '0 25 * * *'")
    """
    if isinstance(value, str) and len(value.split()) == 5 and croniter.is_valid(value):
        return None
    return ("must be a five-field cron expression such as '0 2 * * *' (minute hour day month weekday), "
            f"not {value!r}")


_TOP_KEYS = ("data", "profile", "table", "limits", "isolation", "uploads", "quotas", "web", "ladder",
             "tournaments", "cluster")
_QUOTA_KEYS = ("versions_per_day", "stored_mb", "min_free_disk_mb", "challenges_per_day", "challenge_blocks")
_UPLOAD_KEYS = ("archive_mb", "unpacked_mb", "files")
_WEB_KEYS = ("events_total", "events_per_client", "stalled_client_seconds", "replay_cache", "trusted_proxies")
_LADDER_KEYS = ("enabled", "table_size", "placement_blocks", "random_share", "concurrency", "retry_seconds",
                "max_failures", "secret_days", "progress_minutes")
_SCHEDULE_KEYS = ("name", "cron", "top", "table_size", "sessions_per_table", "freeze_minutes", "publish")
PUBLISH_CHOICES = ("spectator", "organiser")
"""What a scheduled tournament's public report may show once it is over (`ScheduleConfig.publish`)."""
_MEGABYTES = Bounds(1, 4096)
_FILES = Bounds(1, 1_000_000)
_STREAMS = Bounds(1, 100_000)
_STALLED_SECONDS = Bounds(1, 3600)
_DAILY = Bounds(1, 100_000)
_STORED_MB = Bounds(1, 10_000_000)
_FREE_MB = Bounds(0, 100_000_000)
_CACHED = Bounds(0, 100_000)
_TABLE_SIZE = Bounds(2, 6, enumerated=True)
_CONCURRENCY = Bounds(1, 64)
_BLOCKS = Bounds(1, 10_000)
_RETRY_SECONDS = Bounds(1, 3600)
_FAILURES = Bounds(1, 100)
_SECRET_DAYS = Bounds(1, 366)
_PROGRESS_MINUTES = Bounds(1, 1440)
_TOP = Bounds(2, 1000)
_FREEZE = Bounds(0, 7 * 24 * 60)
_CHALLENGE_BLOCKS = Bounds(1, 100)


def load_service_config(path: str | os.PathLike[str]) -> ServiceConfig:
    """Read and check a service configuration file.

    Raises:
        TournamentConfigError: listing every problem found, each with file, line and field, headed
            as the service file's (the tournament file's loader finds them).
    """
    try:
        return _load_service_config(path)
    except TournamentConfigError as error:
        raise TournamentConfigError(error.problems, document="service file") from None


def _load_service_config(path: str | os.PathLike[str]) -> ServiceConfig:
    filename, text = read_config_file(path)
    reader = ConfigReader(filename)
    root = compose_yaml(text, filename=filename)
    if root is None:
        raise TournamentConfigError([ConfigProblem(filename, 1, None, "the file is empty; a service needs `data:`")])
    config = _read(reader, root, base_dir=Path(path).resolve().parent)
    if reader.problems or config is None:
        raise TournamentConfigError(sorted(reader.problems, key=lambda problem: problem.line or 0))
    return ServiceConfig(**{**config, "path": Path(path).resolve()})


def _read(reader: ConfigReader, root: yaml.Node, *, base_dir: Path) -> dict[str, Any] | None:
    top = reader.mapping(root, "", _TOP_KEYS, "service settings")
    if top is None:
        return None
    values: dict[str, Any] = {}
    if "data" in top:
        folder = reader.text(top["data"].node, "data", example="service-data")
        if folder is not INVALID:
            values["data"] = (base_dir / os.path.expanduser(folder)).resolve()
    else:
        reader.report(node_line(root), "data", "required: the folder that holds the service's store and bots")
    rules = read_rules(reader, top)
    if rules is not INVALID:
        values["rules"] = rules
    if "limits" in top:
        limits = read_limits(reader, top["limits"].node, "limits", BotLimits())
        if limits is not INVALID:
            values["limits"] = limits
    if "isolation" in top:
        isolation = reader.choice(top["isolation"].node, "isolation", Isolation)
        if isolation is not INVALID:
            values["isolation"] = isolation
    if "uploads" in top:
        values["uploads"] = _read_uploads(reader, top["uploads"])
    if "quotas" in top:
        values["quotas"] = _read_quotas(reader, top["quotas"])
    if "web" in top:
        values["web"] = _read_web(reader, top["web"])
    if "ladder" in top:
        values["ladder"] = _read_ladder(reader, top["ladder"])
    if "tournaments" in top:
        values["schedules"] = _read_schedules(reader, top["tournaments"])
    if "cluster" in top:
        cluster, certificates = _read_cluster(reader, top["cluster"], base_dir=base_dir)
        if cluster is not INVALID and certificates is not INVALID:
            values["cluster"], values["cluster_certificates"] = cluster, certificates
    if rules is not INVALID:
        _check_table_sizes(reader, top, rules)
    return values


def _read_cluster(reader: ConfigReader, entry: ConfigEntry, *, base_dir: Path) -> tuple[Any, Any]:
    # `local:N` or an address, or `{address, ca, cert, key}` for a tls:// cluster (the certificates `run` takes);
    # refused on its line where Dask is not installed (an optional extra), rather than when the ladder starts.
    node = entry.node
    if isinstance(node, yaml.ScalarNode):
        found: tuple[Any, Any] = (reader.checked(node, "cluster", reader.scalar(node), cluster_problem), None)
    else:
        found = read_cluster(reader, node, "cluster", address_key="address", base_dir=base_dir,
                             what="cluster settings (or local:N, or a scheduler's address)")
    if found[0] is not INVALID and importlib.util.find_spec("distributed") is None:
        return reader.report(entry.key_line, "cluster", "playing on a cluster needs Dask distributed, which is not "
                                                        "installed: pip install 'seka-arena[dask]'"), None
    return found


def _check_table_sizes(reader: ConfigReader, top: dict[str, ConfigEntry], rules: Rules) -> None:
    """The ladder's and every schedule's tables seat a number of players the service's game allows, or
    the file is refused on that line (a heads-up service's 3-seat schedule failed only when it fired)."""
    sized: list[tuple[str, yaml.Node]] = []
    if "ladder" in top and isinstance(top["ladder"].node, yaml.MappingNode):
        sized += [("ladder.table_size", value) for key, value in top["ladder"].node.value
                  if key.value == "table_size"]
    if "tournaments" in top and isinstance(top["tournaments"].node, yaml.SequenceNode):
        for index, item in enumerate(top["tournaments"].node.value):
            if isinstance(item, yaml.MappingNode):
                sized += [(f"tournaments[{index}].table_size", value) for key, value in item.value
                          if key.value == "table_size"]
    for path, node in sized:
        size = reader.scalar(node)
        if isinstance(size, int) and _TABLE_SIZE.problem(size) is None and (problem := seats_problem(rules, size)):
            reader.report(node_line(node), path, problem)


def seats_problem(rules: Rules, size: int) -> str | None:
    """Why a table of `size` players cannot play this game, or None."""
    try:
        check_seats(rules, size)
    except RulesError as error:
        return f"{error} (the service's game: {rules.describe()})"
    return None


def _read_integers(reader: ConfigReader, entries: dict[str, ConfigEntry], section: str,
                   fields: tuple[tuple[str, Bounds, int, str], ...]) -> dict[str, Any]:
    """The integer settings of a section that the file gives, each checked against its bounds and scaled:
    (YAML key, bounds, scale, field name)."""
    found: dict[str, Any] = {}
    for key, bounds, scale, name in fields:
        if key in entries:
            value = reader.integer(entries[key].node, f"{section}.{key}", bounds)
            if value is not INVALID:
                found[name] = value * scale
    return found


def _read_uploads(reader: ConfigReader, entry: ConfigEntry) -> UploadLimits:
    entries = reader.mapping(entry.node, "uploads", _UPLOAD_KEYS, "upload limits") or {}
    return UploadLimits(**_read_integers(reader, entries, "uploads", (
        ("archive_mb", _MEGABYTES, _MIB, "archive_bytes"), ("unpacked_mb", _MEGABYTES, _MIB, "unpacked_bytes"),
        ("files", _FILES, 1, "files"))))


def _read_quotas(reader: ConfigReader, entry: ConfigEntry) -> Quotas:
    entries = reader.mapping(entry.node, "quotas", _QUOTA_KEYS, "quotas") or {}
    return Quotas(**_read_integers(reader, entries, "quotas", (
        ("versions_per_day", _DAILY, 1, "versions_per_day"), ("stored_mb", _STORED_MB, _MIB, "stored_bytes"),
        ("min_free_disk_mb", _FREE_MB, _MIB, "min_free_bytes"), ("challenges_per_day", _DAILY, 1, "challenges_per_day"),
        ("challenge_blocks", _CHALLENGE_BLOCKS, 1, "challenge_blocks"))))


def _read_web(reader: ConfigReader, entry: ConfigEntry) -> WebLimits:
    entries = reader.mapping(entry.node, "web", _WEB_KEYS, "web limits") or {}
    found = _read_integers(reader, entries, "web", (
        ("events_total", _STREAMS, 1, "events_total"), ("events_per_client", _STREAMS, 1, "events_per_client"),
        ("stalled_client_seconds", _STALLED_SECONDS, 1, "stalled_client_seconds"),
        ("replay_cache", _CACHED, 1, "replay_cache")))
    if "trusted_proxies" in entries:
        found["trusted_proxies"] = _read_addresses(reader, entries["trusted_proxies"].node, "web.trusted_proxies")
    return WebLimits(**found)


def _read_addresses(reader: ConfigReader, node: yaml.Node, path: str) -> tuple[str, ...]:
    if not isinstance(node, yaml.SequenceNode):
        reader.report(node_line(node), path, f"must be a list of IP addresses, not {reader.show(node)}")
        return ()
    addresses: list[str] = []
    for index, item in enumerate(node.value):
        value = reader.scalar(item)
        try:
            addresses.append(str(ipaddress.ip_address(str(value))))
        except ValueError:
            reader.report(node_line(item), f"{path}[{index}]", f"must be an IP address such as 127.0.0.1, "
                                                               f"not {reader.show(item)}")
    return tuple(addresses)


def _read_ladder(reader: ConfigReader, entry: ConfigEntry) -> LadderConfig:
    entries = reader.mapping(entry.node, "ladder", _LADDER_KEYS, "ladder settings") or {}
    found: dict[str, Any] = {}
    if "enabled" in entries:
        found["enabled"] = reader.boolean(entries["enabled"].node, "ladder.enabled")
    for key, bounds in (("table_size", _TABLE_SIZE), ("placement_blocks", _BLOCKS), ("concurrency", _CONCURRENCY),
                        ("retry_seconds", _RETRY_SECONDS), ("max_failures", _FAILURES),
                        ("secret_days", _SECRET_DAYS), ("progress_minutes", _PROGRESS_MINUTES)):
        if key in entries:
            found[key] = reader.integer(entries[key].node, f"ladder.{key}", bounds)
    if "random_share" in entries:
        node = entries["random_share"].node
        value = reader.scalar(node)
        if isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value <= 1:
            found["random_share"] = float(value)
        else:
            reader.report(node_line(node), "ladder.random_share",
                          f"must be a number from 0 to 1, not {reader.show(node)}")
    return LadderConfig(**{key: value for key, value in found.items() if value is not INVALID})


def _read_schedules(reader: ConfigReader, entry: ConfigEntry) -> tuple[ScheduleConfig, ...]:
    node = entry.node
    if not isinstance(node, yaml.SequenceNode):
        reader.report(node_line(node), "tournaments",
                      f"must be a list of scheduled tournaments, not {reader.show(node)}")
        return ()
    schedules: list[ScheduleConfig] = []
    names: dict[str, int] = {}
    for index, item in enumerate(node.value):
        path = f"tournaments[{index}]"
        before = len(reader.problems)
        entries = reader.mapping(item, path, _SCHEDULE_KEYS, "tournament settings")
        if entries is None:
            continue
        found: dict[str, Any] = {}
        for key in ("name", "cron"):
            if key not in entries:
                reader.report(node_line(item), f"{path}.{key}", "required" + (
                    ": the tournament's name" if key == "name" else ": when it fires, such as '0 2 * * *'"))
        if "name" in entries:
            found["name"] = name = reader.name(entries["name"].node, f"{path}.name")
            if name is not INVALID and name in names:
                reader.report(entries["name"].key_line, f"{path}.name",
                              f"duplicate name {name!r} (also on line {names[name]})")
            elif name is not INVALID:
                names[name] = entries["name"].key_line
        if "cron" in entries:
            cron_node = entries["cron"].node
            found["cron"] = reader.checked(cron_node, f"{path}.cron", reader.scalar(cron_node),
                                           lambda value, *, shown: cron_problem(value))
        for key, bounds in (("top", _TOP), ("table_size", _TABLE_SIZE), ("sessions_per_table", _BLOCKS),
                            ("freeze_minutes", _FREEZE)):
            if key in entries:
                found[key] = reader.integer(entries[key].node, f"{path}.{key}", bounds)
        if "publish" in entries:
            publish_node = entries["publish"].node
            found["publish"] = reader.checked(
                publish_node, f"{path}.publish", reader.scalar(publish_node), lambda value, *, shown: None
                if value in PUBLISH_CHOICES else f"must be spectator or organiser, not {shown}")
        if len(reader.problems) == before:
            schedules.append(ScheduleConfig(**found))
    return tuple(schedules)
