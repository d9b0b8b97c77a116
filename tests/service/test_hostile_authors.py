"""Attacks a hostile author mounts against a real `seka-arena serve` on 127.0.0.1, through its HTTP API:
archives that cost the service more than their limits, and bots whose command or links reach outside
their own folder, checked by the real check-bot in the real sandbox."""

from __future__ import annotations

import hashlib
import socket
import tarfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from arena.isolation import Isolation, isolation_problem
from arena.service import ServiceStore, UploadLimits, unpack_archive

from ._archives import file, header_bomb, member, tar_gz
from ._server import Server, bearer, post_archive, running, token, wait_for

CANARY = "CANARY-7f3e"
"""Written in every file the bots must not see: another author's bot, another tournament's results,
and what the host's socket answers."""

SNOOPER = """\
import os, socket, sys

import arena

RUNTIME = ("/proc", "/sys", "/dev", "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc",
           sys.base_prefix, sys.prefix, os.path.dirname(arena.__file__),
           os.path.join(os.path.dirname(os.path.dirname(arena.__file__)), "protos"))
out = []


def look(path):
    # A folder: its entries; a socket: connect and read; a file: read it.
    try:
        if os.path.isdir(path):
            out.append(f"LIST {path} {sorted(os.listdir(path))[:400]}")
        elif path.endswith(".sock") or os.path.exists(path) and not os.path.isfile(path):
            with socket.socket(socket.AF_UNIX) as client:
                client.settimeout(2)
                client.connect(path)
                out.append(f"SOCKET {path} {client.recv(100)!r}")
        else:
            with open(path, "rb") as opened:
                out.append(f"READ {path} {opened.read(4096)!r}")
    except OSError as error:
        out.append(f"REFUSED {path} {error}")


for word in sys.argv[1:]:
    look(word)
    if os.path.isdir(word):
        for entry in sorted(os.listdir(word))[:50]:
            look(os.path.join(word, entry))
pids = [entry for entry in os.listdir("/proc") if entry.isdigit()]
out.append(f"PIDS {len(pids)}")
for pid in pids[:400]:
    look(f"/proc/{pid}/cmdline")
for top, folders, files in os.walk("/"):
    folders[:] = [name for name in folders if not os.path.join(top, name).startswith(RUNTIME)]
    for name in files:
        out.append(f"FILE {os.path.join(top, name)}")
        look(os.path.join(top, name))
    for name in folders:
        if os.path.join(top, name).endswith(".sock"):
            look(os.path.join(top, name))
sys.stderr.write("\\n".join(out) + "\\n")
sys.exit(3)
"""
"""A bot that shows its author, through the check's stderr, everything it can reach: each folder, file
or socket its command names, the processes it sees and every file outside the runtime. It then exits,
so its check fails and its stderr comes back to its author."""

CONFIG = """\
data: data
table: {pots: 1}
uploads: {archive_mb: 1, unpacked_mb: 2, files: 32}
ladder: {enabled: false}
"""


@dataclass
class Service:
    server: Server
    client: httpx.Client
    folder: Path
    """The folder of service.yaml, with `data/` in it."""
    author: str
    """Mallory's token."""
    other: Path
    """A folder of the host's outside the service: another tournament's results, with the canary."""
    sockets: Path
    """A folder of the host's holding `host.sock`, a unix socket anyone may connect to, answering the canary."""


@contextmanager
def _host_socket(path: Path) -> Iterator[None]:
    # A socket of the host's (like a daemon's in /run), open to every user, that answers the canary.
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(path))
    path.chmod(0o777)
    listener.listen(8)
    listener.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                connection, _ = listener.accept()
            except OSError:
                continue
            with connection:
                connection.sendall(CANARY.encode())

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
        listener.close()


def _prepare(folder: Path) -> tuple[Path, Path]:
    other = folder / "other-results" / "histories"
    other.mkdir(parents=True)
    (other / "session-1.jsonl").write_text(f'{{"hand": "{CANARY}"}}\n')
    for path in (folder, folder.parent):
        path.chmod(0o755)  # the sandboxed bot's uid may cross them, as it may a host's /srv
    sockets = folder / "sockets"
    sockets.mkdir(mode=0o755)
    return other.parent, sockets


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    if (problem := isolation_problem(Isolation.SANDBOX)) is not None:
        pytest.skip(f"isolation `sandbox` is not available here: {problem}")
    folder = tmp_path_factory.mktemp("hostile-service")
    config = folder / "service.yaml"
    config.write_text(CONFIG)
    other, sockets = _prepare(folder)
    with (_host_socket(sockets / "host.sock"), running(config) as server,
          httpx.Client(base_url=server.url, timeout=120.0) as client):
        service = Service(server, client, folder, token(config, "mallory"), other, sockets)
        # Another author's bot, in the data folder like every submission.
        victim = tar_gz([file("bot.yaml", b"command: python3 bot.py\n"), file("bot.py", f"# {CANARY}\n".encode())])
        assert post_archive(client, "victim", victim, token(config, "alice")).status_code == 201
        yield service


def _memory(pid: int) -> dict[str, int]:
    # VmRSS and VmHWM (the peak since the last reset) of a process, in bytes.
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            fields[key] = int(value.split()[0]) * 1024
    return fields


@pytest.mark.parametrize("kind", [tarfile.XHDTYPE, tarfile.GNUTYPE_LONGNAME], ids=["pax", "gnu-long-name"])
def test_a_header_bomb_is_refused_at_once_and_the_service_does_not_grow(service: Service, kind: bytes) -> None:
    # A 1 MiB tar.gz whose first header claims 1 GiB took the service from 126 MiB to 1.16 GiB for 69 s.
    data = header_bomb(kind)
    assert len(data) < 1 << 20
    pid = service.server.process.pid
    Path(f"/proc/{pid}/clear_refs").write_text("5")  # the peak (VmHWM) starts again from the current RSS
    before = _memory(pid)["VmRSS"]
    response = post_archive(service.client, "bomb", data, service.author)
    grown = _memory(pid)["VmHWM"] - before
    assert response.status_code == 422, response.text
    assert grown < 64 << 20, f"the service grew by {grown >> 20} MiB while refusing a header bomb"
    assert "claims 1073741824 bytes (a PAX or GNU long-name header)" in response.json()["error"]


def _snooper(command: str, *extra: tuple[tarfile.TarInfo, bytes] | tarfile.TarInfo) -> bytes:
    return tar_gz([file("bot.yaml", f"command: {command}\n".encode()), file("bot.py", SNOOPER.encode()), *extra])


def _checked(service: Service, bot: str) -> dict[str, object]:
    def done() -> dict[str, object] | None:
        response = service.client.get(f"/api/bots/{bot}/versions/latest", headers=bearer(service.author))
        version = dict(response.json())
        return version if version["status"] != "pending" else None

    return dict(wait_for(f"the check of {bot}", done))


def _attacks(service: Service) -> dict[str, tuple[bytes, str]]:
    # Each attack's archive and the word its refusal must name.
    data = service.folder / "data"
    chain = [member("d1", tarfile.DIRTYPE), member("d1/l", tarfile.SYMTYPE, target=".."),
             member("up", tarfile.SYMTYPE, target="d1/l/..")]
    return {
        "the data folder spelled //": (_snooper(f"python3 bot.py /{data}/bots"), f"'/{data}/bots' is an absolute"),
        "a host socket's folder": (_snooper(f"python3 bot.py {service.sockets}"),
                                   f"{str(service.sockets)!r} is an absolute path"),
        "a chain of links": (_snooper("python3 bot.py up", *chain), "'d1/l/..', which leads outside"),
    }


def _refused(service: Service, data: bytes, words: str) -> None:
    response = post_archive(service.client, "snooper", data, service.author)
    assert response.status_code == 422, f"accepted: {response.text}\n{_checked(service, 'snooper')['stderr']}"
    assert words in response.json()["error"]


@pytest.mark.parametrize("attack", ["the data folder spelled //", "a host socket's folder", "a chain of links"])
def test_a_command_reaching_outside_the_bots_folder_is_refused_at_submit(service: Service, attack: str) -> None:
    # Before: each was accepted, and its check's stderr showed its author what the words reached
    # (every author's unpacked bot, the socket's answer, the folder holding every bot).
    _refused(service, *_attacks(service)[attack])


def test_a_bot_naming_host_folders_is_refused_and_without_them_is_shown_nothing_foreign(service: Service) -> None:
    # Before: accepted, and its check's stderr showed its author the host's 142 processes (every
    # sandbox's command line, the service's own), /var/log and another tournament's histories.
    _refused(service, _snooper(f"python3 bot.py /proc /var/log {service.other}"), "'/proc' is an absolute path")
    # The same bot with a command the service accepts: what it reports to its author in its check's
    # stderr is its own folder and the runtime, nothing else.
    data = _snooper("python3 bot.py . bot.py")
    response = post_archive(service.client, "honest-snooper", data, service.author)
    assert response.status_code == 201, response.text
    stderr = str(_checked(service, "honest-snooper")["stderr"])
    own = str(service.folder / "data" / "bots" / hashlib.sha256(data).hexdigest())
    assert "PIDS " in stderr and CANARY not in stderr, stderr
    files = [line.split()[1] for line in stderr.splitlines() if line.startswith("FILE ")]
    assert sorted(files) == [f"{own}/bot.py", f"{own}/bot.yaml"], stderr
    pids = int(next(line for line in stderr.splitlines() if line.startswith("PIDS ")).split()[1])
    assert pids <= 3, stderr  # its own processes: the sandbox's init and itself


def test_a_stored_command_reaching_outside_is_refused_again_at_launch(tmp_path: Path) -> None:
    # A version stored before its command was refused at submit (an older release, a restored
    # backup) is pending: its check at the next start refuses to launch it, and no byte of what it
    # would have read reaches its author.
    if (problem := isolation_problem(Isolation.SANDBOX)) is not None:
        pytest.skip(f"isolation `sandbox` is not available here: {problem}")
    config = tmp_path / "service.yaml"
    config.write_text(CONFIG)
    other, _ = _prepare(tmp_path)
    author = token(config, "mallory")
    command = f"python3 bot.py /proc /var/log {other}"
    data = _snooper(command)
    sha256 = hashlib.sha256(data).hexdigest()
    (tmp_path / "data" / "bots").mkdir(parents=True)
    unpack_archive(data, tmp_path / "data" / "bots" / sha256, limits=UploadLimits())
    store = ServiceStore.open(tmp_path / "data" / "service.sqlite")
    try:
        store.add_version("legacy", "mallory", sha256=sha256, kind="tar.gz", size=len(data), command=command,
                          language=None, description=None)
    finally:
        store.close()
    with running(config) as server, httpx.Client(base_url=server.url, timeout=120.0) as client:
        version = wait_for("the check of legacy", lambda: (found := client.get(
            "/api/bots/legacy/versions/latest", headers=bearer(author)).json())["status"] != "pending" and found,
            timeout=30, output=server.output)
    assert version["status"] == "refused"
    assert "FAIL  ready: crash: not started: its command '/proc' is an absolute path" in version["report"], (
        version["report"])
    assert CANARY not in version["stderr"] and "PIDS" not in version["stderr"], version["stderr"]
