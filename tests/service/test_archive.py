"""Submitted archives: what is unpacked, and every hostile kind refused with nothing written outside."""

from __future__ import annotations

import os
import stat
import tarfile
import tracemalloc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from arena.service import ArchiveError, UploadLimits, unpack_archive

from ._archives import GOOD, MANIFEST, REFUSED, file, header_bomb, member, tar_gz, zip_archive, zip_directory_bomb

LIMITS = UploadLimits(archive_bytes=1 << 20, unpacked_bytes=2 << 20, files=32)


def _everything(folder: Path) -> set[str]:
    return {str(path.relative_to(folder)) for path in folder.rglob("*")}


def test_a_good_archive_is_unpacked_with_the_arenas_own_modes(tmp_path: Path) -> None:
    data = tar_gz([*GOOD, file("run.sh", b"#!/bin/sh\n", mode=0o4777), member("lib", b"5", mode=0o700),
                   file("lib/util.py", b"x = 1\n", mode=0o600), member("util.py", b"2", target="lib/util.py"),
                   member("copy.py", b"1", target="bot.py")])
    manifest = unpack_archive(data, tmp_path / "bot", limits=LIMITS)
    folder = tmp_path / "bot"
    assert (manifest.command, manifest.language) == ("python3 bot.py", "python")
    assert _everything(folder) == {"bot.yaml", "bot.py", "run.sh", "lib", "lib/util.py", "util.py", "copy.py"}
    assert stat.S_IMODE((folder / "run.sh").stat().st_mode) == 0o755  # no setuid, readable by the bot's uid
    assert stat.S_IMODE((folder / "lib").stat().st_mode) == 0o755
    assert stat.S_IMODE((folder / "lib" / "util.py").stat().st_mode) == 0o644
    assert os.readlink(folder / "util.py") == "lib/util.py"
    assert not (folder / "copy.py").is_symlink() and (folder / "copy.py").read_bytes() == b"print('hi')\n"


def test_a_zip_is_unpacked_too(tmp_path: Path) -> None:
    data = zip_archive([("bot.yaml", MANIFEST, 0o100644), ("src/", b"", stat.S_IFDIR | 0o755),
                        ("src/bot.py", b"x", 0o100755)])
    unpack_archive(data, tmp_path / "bot", limits=LIMITS)
    assert _everything(tmp_path / "bot") == {"bot.yaml", "src", "src/bot.py"}
    assert stat.S_IMODE((tmp_path / "bot" / "src" / "bot.py").stat().st_mode) == 0o755


@pytest.mark.parametrize("kind", sorted(REFUSED))
def test_every_hostile_archive_is_refused_and_nothing_is_written_outside(tmp_path: Path, kind: str) -> None:
    build, words = REFUSED[kind]
    outside = tmp_path / "outside"
    outside.mkdir()
    with pytest.raises(ArchiveError) as refused:
        unpack_archive(build(), outside / "bot", limits=LIMITS)
    assert words in str(refused.value)
    assert {path for path in _everything(outside) if not path.startswith("bot")} == set()
    assert not Path("/tmp/seka-evil").exists()


def test_an_archive_over_the_size_limit_is_refused_before_it_is_opened(tmp_path: Path) -> None:
    with pytest.raises(ArchiveError, match="at most 1048576 are accepted"):
        unpack_archive(b"\x1f\x8b" + b"\0" * (1 << 20), tmp_path / "bot", limits=LIMITS)
    assert not (tmp_path / "bot").exists()


@contextmanager
def _peak_allocated() -> Iterator[list[int]]:
    # The most bytes Python held at once meanwhile (tracemalloc), in the list once the block ends.
    peak: list[int] = []
    tracemalloc.start()
    try:
        yield peak
    finally:
        peak.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()


@pytest.mark.parametrize("kind", [tarfile.XHDTYPE, tarfile.GNUTYPE_LONGNAME], ids=["pax", "gnu-long-name"])
def test_a_header_claiming_a_gibibyte_is_refused_before_it_is_read(tmp_path: Path, kind: bytes) -> None:
    # tarfile reads such a header's data in one read: 1 GiB of zeros, from 1 MiB, before any limit counted.
    data = header_bomb(kind)
    assert len(data) < 1 << 20
    with _peak_allocated() as peak, pytest.raises(ArchiveError) as refused:
        unpack_archive(data, tmp_path / "bot", limits=LIMITS)
    assert "claims 1073741824 bytes (a PAX or GNU long-name header); at most 65536 are accepted" in str(refused.value)
    assert peak[0] < 16 << 20, f"{peak[0] >> 20} MiB held while refusing a header bomb"


def test_a_zip_directory_of_300_000_entries_is_counted_before_zipfile_reads_it(tmp_path: Path) -> None:
    # zipfile builds an object per record of the central directory (whatever count the end record
    # claims): 138 MiB for these 300,000 records before the entries could be counted.
    data = zip_directory_bomb(300_000)
    limits = UploadLimits(archive_bytes=16 << 20, unpacked_bytes=2 << 20, files=32)
    with _peak_allocated() as peak, pytest.raises(ArchiveError, match="more than 32 entries"):
        unpack_archive(data, tmp_path / "bot", limits=limits)
    assert peak[0] < 16 << 20, f"{peak[0] >> 20} MiB held while counting a zip's entries"


@pytest.mark.parametrize("build", [
    lambda: tar_gz([*GOOD, member("d1", tarfile.DIRTYPE), member("d1/l", tarfile.SYMTYPE, target=".."),
                    member("d1/self", tarfile.SYMTYPE, target="l/d1"), member("lib", tarfile.SYMTYPE, target="d1/l")]),
    lambda: zip_archive([("bot.yaml", MANIFEST, 0o100644), ("src/bot.py", b"x", 0o100644),
                         ("src/up", b"..", stat.S_IFLNK | 0o777),
                         ("main.py", b"src/up/src/bot.py", stat.S_IFLNK | 0o777)]),
], ids=["tar", "zip"])
def test_links_through_links_that_stay_inside_are_kept(tmp_path: Path, build: Callable[[], bytes]) -> None:
    unpack_archive(build(), tmp_path / "bot", limits=LIMITS)
    real = os.path.realpath(tmp_path / "bot")
    assert all(os.path.realpath(path).startswith(real) for path in (tmp_path / "bot").rglob("*"))
