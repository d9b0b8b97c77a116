"""The service's configuration file: the example loads, and mistakes are reported with file:line."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from arena.service import load_service_config
from arena.tournament import TournamentConfigError

ROOT = Path(__file__).resolve().parents[2]


def test_the_example_configuration_loads() -> None:
    config = load_service_config(ROOT / "tournaments" / "service.yaml")
    assert config.data == ROOT / "service-data"
    assert config.uploads.archive_bytes == 16 << 20 and config.uploads.files == 2000
    assert [(schedule.name, schedule.cron, schedule.top) for schedule in config.schedules] == [
        ("nightly", "0 2 * * *", None), ("weekly-top", "0 18 * * 5", 8)]
    assert config.limits.time.decision_ms == 1000 and config.rules.pots_per_session == 8
    assert (config.ladder.retry_seconds, config.ladder.max_failures) == (30, 5)
    assert (config.quotas.challenges_per_day, config.quotas.challenge_blocks) == (10, 4)


def test_every_mistake_is_reported_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "service.yaml"
    path.write_text("""\
data: data
uploads:
  archive_mb: 0
  files: many
ladder:
  random_share: 2
  tables: 3
  max_failures: 0
limits: {decision_ms: 0}
tournaments:
  - name: nightly
    cron: "0 25 * * *"
  - name: nightly
    cron: "0 2 * * *"
    table_size: 9
  - cron: "0 3 * * *"
""")
    with pytest.raises(TournamentConfigError) as refused:
        load_service_config(path)
    lines = str(refused.value).splitlines()[1:]
    where = f"  {path}"
    assert lines == [
        f"{where}:3: uploads.archive_mb: must be a positive integer, not 0",
        f"{where}:4: uploads.files: must be a positive integer, not 'many'",
        f"{where}:6: ladder.random_share: must be a number from 0 to 1, not 2",
        f"{where}:7: ladder.tables: unknown key; did you mean 'table_size'?",
        f"{where}:8: ladder.max_failures: must be a positive integer, not 0",
        f"{where}:9: limits.decision_ms: must be a positive integer, not 0",
        f"{where}:12: tournaments[0].cron: must be a five-field cron expression such as '0 2 * * *' "
        "(minute hour day month weekday), not '0 25 * * *'",
        f"{where}:13: tournaments[1].name: duplicate name 'nightly' (also on line 11)",
        f"{where}:15: tournaments[1].table_size: must be an integer from 2 to 6, not 9",
        f"{where}:16: tournaments[2].name: required: the tournament's name",
    ]


def test_a_missing_data_folder_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "service.yaml"
    path.write_text("ladder: {enabled: false}\n")
    with pytest.raises(TournamentConfigError, match=r"service.yaml:1: data: required"):
        load_service_config(path)


def test_tables_the_services_game_cannot_seat_are_refused_on_their_line(tmp_path: Path) -> None:
    """A heads-up service's 3-seat schedule was accepted and failed only when it fired."""
    path = tmp_path / "service.yaml"
    path.write_text("""\
data: data
profile: svara32
ladder: {table_size: 3}
tournaments:
  - name: nightly
    cron: "0 2 * * *"
    table_size: 3
  - {name: pairs, cron: "0 3 * * *", table_size: 2}
""")
    with pytest.raises(TournamentConfigError) as refused:
        load_service_config(path)
    game = "svara32 (stack 50, dark false): ante and table stake 1, 8 pots a session, at most 200 actions a deal"
    assert str(refused.value).splitlines()[1:] == [
        f"  {path}:3: ladder.table_size: profile 'svara32' seats 2 to 2 players, not 3 (the service's game: {game})",
        f"  {path}:7: tournaments[0].table_size: profile 'svara32' seats 2 to 2 players, not 3 (the service's game: "
        f"{game})",
    ]


def test_quota_and_web_mistakes_are_reported_with_their_lines(tmp_path: Path) -> None:
    path = tmp_path / "service.yaml"
    path.write_text("""\
data: data
quotas: {versions_per_day: 0, stored_mb: lots}
web:
  events_per_client: 0
  trusted_proxies: [127.0.0.1, proxy.example]
""")
    with pytest.raises(TournamentConfigError) as refused:
        load_service_config(path)
    lines = str(refused.value).splitlines()[1:]
    where = f"  {path}"
    assert lines == [
        f"{where}:2: quotas.versions_per_day: must be a positive integer, not 0",
        f"{where}:2: quotas.stored_mb: must be a positive integer, not 'lots'",
        f"{where}:4: web.events_per_client: must be a positive integer, not 0",
        f"{where}:5: web.trusted_proxies[1]: must be an IP address such as 127.0.0.1, not 'proxy.example'",
    ]
    path.write_text("data: data\nquotas: {challenges_per_day: 0, challenge_blocks: 101}\n")
    with pytest.raises(TournamentConfigError) as refused:
        load_service_config(path)
    assert str(refused.value).splitlines()[1:] == [
        f"{where}:2: quotas.challenges_per_day: must be a positive integer, not 0",
        f"{where}:2: quotas.challenge_blocks: must be at most 100, not 101"]
    path.write_text("data: data\nweb: {stalled_client_seconds: 0}\n")
    with pytest.raises(TournamentConfigError) as refused:
        load_service_config(path)
    assert str(refused.value).splitlines()[1:] == [
        f"{where}:2: web.stalled_client_seconds: must be a positive integer, not 0"]
    path.write_text("data: data\nquotas: {min_free_disk_mb: 0}\nweb: {trusted_proxies: ['::1']}\n")
    config = load_service_config(path)
    assert config.quotas.min_free_bytes == 0 and config.quotas.versions_per_day == 20
    assert config.web.trusted_proxies == ("::1",) and config.web.stalled_client_seconds == 60


def test_the_cluster_is_read_in_the_forms_run_takes_with_the_certificates_files(tmp_path: Path) -> None:
    path = tmp_path / "service.yaml"
    path.write_text("data: data\ncluster: local:2\n")
    assert load_service_config(path).cluster == "local:2"
    for name in ("ca.pem", "driver.pem", "driver.key"):
        (tmp_path / name).write_text("-----BEGIN-----\n")
    (tmp_path / "driver.key").chmod(0o600)
    path.write_text("data: data\ncluster: {address: 'tls://10.0.0.5:8786', ca: ca.pem, cert: driver.pem, "
                    "key: driver.key}\n")
    config = load_service_config(path)
    assert config.cluster == "tls://10.0.0.5:8786" and config.cluster_certificates is not None
    assert config.cluster_certificates.key == tmp_path / "driver.key"
    assert load_service_config(ROOT / "tournaments" / "service.yaml").cluster is None


@pytest.mark.parametrize(("text", "problem"), [
    ("cluster: local:0", "2: cluster: local:N starts N worker processes on this machine, 1 to 64, not 0"),
    ("cluster: sched:8786", "2: cluster: tcp://sched:8786 is neither encrypted nor authenticated"),
    ("cluster: {address: local:2, ca: ca.pem}", "2: cluster.ca: certificates are for a tls:// cluster, not local:2"),
    ("cluster: {address: 'tls://10.0.0.5:8786', ca: ca.pem}", "2: cluster.cert: required with the others"),
    ("cluster: {adress: local:2}", "2: cluster.adress: unknown key; did you mean 'address'?"),
    ("cluster:\n  ca: ca.pem", "3: cluster.address: required: local:N or a Dask scheduler's address"),
])
def test_cluster_mistakes_are_reported_with_their_line_and_field(tmp_path: Path, text: str, problem: str) -> None:
    path = tmp_path / "service.yaml"
    path.write_text(f"data: data\n{text}\n")
    with pytest.raises(TournamentConfigError) as refused:
        load_service_config(path)
    assert f"  {path}:{problem}" in str(refused.value), str(refused.value)


def test_a_cluster_without_dask_installed_is_refused_on_its_line(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "service.yaml"
    path.write_text("data: data\nladder: {concurrency: 2}\ncluster: local:2\n")
    monkeypatch.setitem(sys.modules, "distributed", None)  # as if the `dask` extra were not installed
    with pytest.raises(TournamentConfigError) as refused:
        load_service_config(path)
    assert str(refused.value).splitlines()[1:] == [
        f"  {path}:3: cluster: playing on a cluster needs Dask distributed, which is not installed: "
        "pip install 'seka-arena[dask]'"]
    path.write_text("data: data\n")
    assert load_service_config(path).cluster is None  # a service without a cluster never needs it
