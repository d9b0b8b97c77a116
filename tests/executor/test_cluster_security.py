"""Only the run itself reaches its cluster (issue 23.1): mutual TLS from a throw-away CA, no HTTP, no plain tcp://.

On 904e8eb `--cluster local:N` listened on loopback with plain TCP and an HTTP server: any local
user (uid 65534 was tried) connected and ran code as root on every worker.
"""

from __future__ import annotations

import os
import shutil
import socket
import ssl
import stat
import subprocess
from pathlib import Path

import pytest
import trio

from arena.cli import main
from arena.executor import ClusterCertificates, ClusterError, DaskExecutor, cluster_problem
from arena.isolation import Isolation, isolation_problem
from arena.tournament import TournamentConfigError, load_config

from ..tournament._support import definition

distributed = pytest.importorskip("distributed")
psutil = pytest.importorskip("psutil")  # a dependency of distributed


def _listening(pids: list[int]) -> set[tuple[str, int]]:
    found: set[tuple[str, int]] = set()
    for pid in pids:
        try:
            connections = psutil.Process(pid).net_connections(kind="inet")
        except psutil.NoSuchProcess:
            continue
        found |= {(c.laddr.ip, c.laddr.port) for c in connections if c.status == psutil.CONN_LISTEN}
    return found


def _cluster_processes() -> list[int]:
    return [os.getpid(), *(child.pid for child in psutil.Process().children(recursive=True))]


def _http_answer(port: int) -> bytes:
    """What a plain HTTP request for /health gets on `port` (Dask's scheduler answered `ok`)."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as connection:
        connection.sendall(b"GET /health HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
        try:
            return connection.recv(200)
        except (ConnectionResetError, TimeoutError):
            return b""


def _tls_without_a_certificate(port: int) -> str:
    """A TLS client that trusts anything but shows no certificate: what it gets."""
    context = ssl.create_default_context()
    context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as raw, \
                context.wrap_socket(raw) as connection:
            connection.sendall(b"\x00" * 8)
            return "answered" if connection.recv(1) else "closed"
    except (ssl.SSLError, ConnectionResetError, BrokenPipeError) as error:
        return f"refused: {error}"


def _connect(address: str, security: object = None) -> str:
    try:
        client = distributed.Client(address, timeout=5, set_as_default=False, security=security)
    except Exception as error:  # what Dask raises differs between a reset and a certificate mismatch
        return f"refused: {type(error).__name__}"
    client.close()
    return "CONNECTED"


async def test_a_local_cluster_admits_only_the_runs_own_certificates() -> None:
    before = _listening(_cluster_processes())
    async with DaskExecutor("local:1", isolation=Isolation.NONE) as executor:
        address = executor.scheduler_address
        credentials = executor.credentials
        assert address is not None and address.startswith("tls://127.0.0.1:"), address
        assert credentials is not None
        folder = credentials.folder
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700 and folder.stat().st_uid == os.getuid()
        files = sorted(path.name for path in folder.iterdir())
        assert files == ["ca.pem", "client.key", "client.pem", "scheduler.key", "scheduler.pem", "worker.key",
                         "worker.pem"]  # the CA's own key is never written
        assert {stat.S_IMODE((folder / name).stat().st_mode) for name in files} == {0o600}

        ports = _listening(_cluster_processes()) - before
        assert ports and all(host == "127.0.0.1" for host, _ in ports), ports
        scheduler_port = int(address.rsplit(":", 1)[1])
        for _, port in sorted(ports):  # scheduler, nanny and worker: TLS with a client certificate, no HTTP
            answer = await trio.to_thread.run_sync(_http_answer, port)
            assert not answer.startswith(b"HTTP"), (port, answer)
            assert (await trio.to_thread.run_sync(_tls_without_a_certificate, port)).startswith("refused"), port
        assert await trio.to_thread.run_sync(_connect, f"tcp://127.0.0.1:{scheduler_port}") != "CONNECTED"
        other_ca = distributed.Security.temporary()
        assert await trio.to_thread.run_sync(_connect, address, other_ca) != "CONNECTED"

        # Another user cannot even read the keys it would need (uid 65534, as in the attack).
        if os.getuid() == 0:
            for name in ("client.key", "worker.key", "scheduler.key"):
                denied = subprocess.run(["cat", str(folder / name)], capture_output=True, user=65534, timeout=10)
                assert denied.returncode != 0 and not denied.stdout, name

        # The run's own client still plays: the workers answer it.
        assert executor.limit >= 1
    assert not folder.exists()  # the keys went with the cluster
    assert not _listening(_cluster_processes()) - before


def test_plain_tcp_to_another_machine_is_refused_with_how_to_secure_it(tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    for address in ("tcp://10.0.0.5:8786", "10.0.0.5:8786", "tcp://sched.example:8786"):
        problem = cluster_problem(address)
        assert problem is not None and "tls://" in problem and "docs/scaling.md" in problem, address
    assert cluster_problem("tcp://127.0.0.1:8786") is None and cluster_problem("tcp://[::1]:8786") is None
    assert cluster_problem("localhost:8786") is None and cluster_problem("tls://10.0.0.5:8786") is None
    with pytest.raises(SystemExit):
        main(["run", str(definition(tmp_path)), "--cluster", "tcp://10.0.0.5:8786"])
    assert "tcp://10.0.0.5:8786 is neither encrypted nor authenticated" in capsys.readouterr().err
    path = definition(tmp_path)
    path.write_text(path.read_text() + "executor: {cluster: 'tcp://10.0.0.5:8786'}\n")
    with pytest.raises(TournamentConfigError, match=r"small\.yaml:\d+: executor\.cluster: tcp://10\.0\.0\.5:8786 is "
                                                    r"neither encrypted nor authenticated"):
        load_config(path)


def _certificate_files(folder: Path) -> ClusterCertificates:
    folder.mkdir()
    for name in ("ca.pem", "driver.pem", "driver.key"):
        (folder / name).write_text("PEM")
    (folder / "driver.key").chmod(0o600)
    return ClusterCertificates(folder / "ca.pem", folder / "driver.pem", folder / "driver.key")


def test_a_tls_cluster_takes_the_drivers_certificate_from_the_file_or_the_command_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = _certificate_files(tmp_path / "tls")
    path = definition(tmp_path)
    text = path.read_text()
    path.write_text(text + "executor: {cluster: 'tls://10.0.0.5:8786', ca: tls/ca.pem, cert: tls/driver.pem, "
                    "key: tls/driver.key}\n")
    config = load_config(path)
    assert (config.cluster, config.cluster_certificates) == ("tls://10.0.0.5:8786", files)
    files.key.chmod(0o644)
    with pytest.raises(TournamentConfigError, match=r"small\.yaml:\d+: executor: the key .*driver\.key may be read "
                                                    r"by other users \(mode 644\): chmod 600"):
        load_config(path)
    path.write_text(text + "executor: {cluster: 'tls://10.0.0.5:8786', ca: tls/ca.pem}\n")
    with pytest.raises(TournamentConfigError, match=r"executor\.cert: required with the others"):
        load_config(path)
    path.write_text(text + "executor: {cluster: local:2, ca: tls/ca.pem, cert: tls/driver.pem, key: tls/driver.key}\n")
    with pytest.raises(TournamentConfigError, match=r"executor\.ca: certificates are for a tls:// cluster"):
        load_config(path)
    path.write_text(text)
    assert main(["run", str(path), "--cluster", "tls://10.0.0.5:8786", "--cluster-ca", str(files.ca)]) == 1
    assert "--cluster-cert, --cluster-key missing" in capsys.readouterr().err
    # Without any certificate (nor Dask's configuration naming one), refused before anything is stored.
    assert main(["run", str(path), "--out", str(tmp_path / "out"), "--cluster", "tls://10.0.0.5:8786"]) == 1
    assert "needs the cluster's CA and this driver's certificate and key" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


@pytest.mark.skipif(isolation_problem(Isolation.SANDBOX) is not None, reason="a cluster at an address needs sandbox")
async def test_a_tls_cluster_at_an_address_admits_the_driver_with_the_clusters_certificate(tmp_path: Path) -> None:
    # A cluster started by someone else, with a CA of their own: here the one a local run makes.
    from arena.executor._local_cluster import start_local_cluster
    from arena.executor._tls import make_credentials

    credentials = make_credentials()
    try:
        cluster = await trio.to_thread.run_sync(start_local_cluster, 1, 1, credentials)
        try:
            address = str(cluster.scheduler_address)
            driver = ClusterCertificates(credentials.ca_file, credentials.cert("client"), credentials.key("client"))
            async with DaskExecutor(address, isolation=Isolation.SANDBOX, certificates=driver) as executor:
                assert executor.limit == 1
            with pytest.raises(ClusterError, match="needs the cluster's CA and this driver's certificate and key"):
                DaskExecutor(address, isolation=Isolation.SANDBOX).verify([])
            stranger = _certificate_files(tmp_path / "stranger")
            with pytest.raises(ClusterError, match="may be read by other users"):
                stranger.key.chmod(0o640)
                DaskExecutor(address, isolation=Isolation.SANDBOX, certificates=stranger)
        finally:
            await trio.to_thread.run_sync(cluster.close)
    finally:
        shutil.rmtree(credentials.folder, ignore_errors=True)
