"""Attacks a hostile author mounts against a real `seka-arena serve` on 127.0.0.1, through its HTTP API:
archives that cost the service more than their limits, and bots whose command or links reach outside
their own folder, checked by the real check-bot in the real sandbox."""

from __future__ import annotations

import tarfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from ._archives import header_bomb
from ._server import Server, post_archive, running, token

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


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    folder = tmp_path_factory.mktemp("hostile-service")
    config = folder / "service.yaml"
    config.write_text(CONFIG)
    with running(config) as server, httpx.Client(base_url=server.url, timeout=120.0) as client:
        yield Service(server, client, folder, token(config, "mallory"))


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
