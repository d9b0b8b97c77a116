"""Quotas against a real `seka-arena serve` on 127.0.0.1, as an author flooding the service would try:
versions per day, stored bytes, the disk's floor, and identical re-submissions that must not restart a
bot's placement."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from ._archives import MANIFEST, ROOT, file, sample_archive, tar_gz, zip_archive
from ._server import bearer, post_archive, running, token, wait_for

CONFIG = """\
data: data
table: {pots: 1}
ladder: {placement_blocks: 1, random_share: 0.0}
quotas: {versions_per_day: 3, stored_mb: 1}
"""


class Quotas:
    def __init__(self, url: str, config: Path) -> None:
        self.client = httpx.Client(base_url=url, timeout=60.0)
        self.config = config
        self.bots = config.parent / "data" / "bots"


@pytest.fixture(scope="module")
def quotas(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Quotas]:
    folder = tmp_path_factory.mktemp("quotas")
    config = folder / "service.yaml"
    config.write_text(CONFIG)
    with running(config) as server:
        quotas = Quotas(server.url, config)
        yield quotas
        quotas.client.close()


def _small_bot(marker: str) -> bytes:
    """A distinct small bot: the minimal sample with a comment of its own."""
    code = (ROOT / "sample_bots" / "minimal_bot.py").read_bytes() + f"# {marker}\n".encode()
    return tar_gz([file("bot.yaml", MANIFEST), file("bot.py", code)])


def _board(client: httpx.Client) -> dict[str, dict[str, object]]:
    return {str(row["name"]): row for row in client.get("/api/leaderboard").json()}


def test_an_identical_resubmission_answers_with_the_existing_version_and_keeps_its_ratings(quotas: Quotas) -> None:
    alice, erin = token(quotas.config, "alice"), token(quotas.config, "erin")  # a rated table seats two authors
    for name, author in (("call", erin), ("threshold", alice)):
        assert post_archive(quotas.client, name, sample_archive(name), author).status_code == 201
    board = wait_for("both bots rated", lambda: (found := _board(quotas.client)) and all(
        int(str(found.get(name, {}).get("sessions", 0))) >= 2 for name in ("call", "threshold")) and found)
    # The same files repacked as a zip, in another order: the same bot.
    files = {"bot.py": (ROOT / "sample_bots" / "threshold_bot.py").read_bytes(), "bot.yaml": MANIFEST}
    bots_before = sorted(path.name for path in quotas.bots.iterdir())
    again = post_archive(quotas.client, "threshold", zip_archive(
        [(name, data, 0o100644) for name, data in sorted(files.items(), reverse=True)]), alice)
    assert again.status_code == 200, again.text
    assert again.json()["id"] == 1 and again.json()["status"] == "accepted"
    assert again.headers["location"] == "/api/bots/threshold/versions/1"
    assert sorted(path.name for path in quotas.bots.iterdir()) == bots_before  # nothing unpacked stays
    after = _board(quotas.client)["threshold"]
    assert after["version"] == 1 and int(str(after["sessions"])) >= int(str(board["threshold"]["sessions"]))
    assert after["rating"] is not None  # still rated: no placement again
    # A changed file is a new version.
    changed = post_archive(quotas.client, "threshold", tar_gz([file("bot.yaml", MANIFEST), file(
        "bot.py", files["bot.py"] + b"# v2\n")]), alice)
    assert changed.status_code == 201 and changed.json()["id"] == 2


def test_versions_per_day_are_capped_with_retry_after(quotas: Quotas) -> None:
    bob = token(quotas.config, "bob")
    for number in range(3):
        assert post_archive(quotas.client, f"rate{number}", _small_bot(f"rate {number}"), bob).status_code == 201
    refused = post_archive(quotas.client, "rate3", _small_bot("rate 3"), bob)
    assert refused.status_code == 429 and "quotas.versions_per_day" in refused.json()["error"]
    assert 86_000 < int(refused.headers["retry-after"]) <= 86_400
    assert quotas.client.get("/api/bots/rate3/versions/latest", headers=bearer(bob)).status_code == 404
    # Another author is not held back by bob's uploads.
    assert post_archive(quotas.client, "other", _small_bot("other"), token(quotas.config, "dave")).status_code == 201


def test_an_authors_stored_bytes_are_capped_and_a_refused_upload_leaves_nothing(quotas: Quotas) -> None:
    carol = token(quotas.config, "carol")
    assert post_archive(quotas.client, "lean", _small_bot("lean"), carol).status_code == 201
    bots_before = sorted(path.name for path in quotas.bots.iterdir())
    weights = os.urandom(600 * 1024)  # incompressible: 600 KiB archived, 600 KiB unpacked, over 1 MiB together
    heavy = tar_gz([file("bot.yaml", MANIFEST), file("bot.py", (ROOT / "sample_bots" / "minimal_bot.py").read_bytes()),
                    file("weights.bin", weights)])
    refused = post_archive(quotas.client, "heavy", heavy, carol)
    assert refused.status_code == 507 and "quotas.stored_mb" in refused.json()["error"]
    assert sorted(path.name for path in quotas.bots.iterdir()) == bots_before
    assert not any(path.name.startswith(".") for path in quotas.bots.iterdir())


def test_uploads_are_refused_while_the_disk_is_under_its_floor(tmp_path: Path) -> None:
    config = tmp_path / "service.yaml"
    config.write_text("data: data\nladder: {enabled: false}\nquotas: {min_free_disk_mb: 100000000}\n")
    alice = token(config, "alice")
    with running(config) as server, httpx.Client(base_url=server.url, timeout=60.0) as client:
        refused = post_archive(client, "late", sample_archive("minimal"), alice)
        assert refused.status_code == 507 and "quotas.min_free_disk_mb" in refused.json()["error"]
        assert client.get("/api/bots/late/versions/latest", headers=bearer(alice)).status_code == 404
    assert list((tmp_path / "data" / "bots").iterdir()) == []
