"""Archives built by hand for the service's tests: the sample bots packed as submissions, and every
kind of hostile archive the service must refuse."""

from __future__ import annotations

import gzip
import io
import stat
import struct
import tarfile
import zipfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MANIFEST = b"command: python3 bot.py\nlanguage: python\n"


def tar_gz(entries: list[tarfile.TarInfo | tuple[tarfile.TarInfo, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", format=tarfile.GNU_FORMAT) as archive:
        for entry in entries:
            if isinstance(entry, tuple):
                info, data = entry
                info.size = len(data)
                archive.addfile(info, io.BytesIO(data))
            else:
                archive.addfile(entry)
    return buffer.getvalue()


def member(name: str, kind: bytes = tarfile.REGTYPE, *, target: str = "", mode: int = 0o644) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = target
    info.mode = mode
    return info


def file(name: str, data: bytes, *, mode: int = 0o644) -> tuple[tarfile.TarInfo, bytes]:
    return member(name, mode=mode), data


def sample_bot(name: str) -> dict[str, bytes]:
    """A sample bot's files as a submission holds them: bot.py and bot.yaml."""
    return {"bot.py": (ROOT / "sample_bots" / f"{name}_bot.py").read_bytes(), "bot.yaml": MANIFEST}


def sample_archive(name: str) -> bytes:
    return tar_gz([file(path, data) for path, data in sample_bot(name).items()])


def slow_archive(seconds: float, *, medium: int = 21) -> bytes:
    """The threshold bot (it folds weak hands: short deals), `seconds` per decision: a session lasts long
    enough to be caught in flight. `medium`: the least total it calls with (below it, it folds to a bet)."""
    files = sample_bot("threshold")
    source = files["bot.py"].decode().replace("from arena.sdk", "import time\n\nfrom arena.sdk", 1)
    assert "MEDIUM = 21\n" in source
    source = source.replace("MEDIUM = 21\n", f"MEDIUM = {medium}\n", 1)
    files["bot.py"] = source.replace("    def act(self, turn: Turn) -> Action:\n",
                                     f"    def act(self, turn: Turn) -> Action:\n        time.sleep({seconds})\n",
                                     1).encode()
    assert b"time.sleep" in files["bot.py"]
    return tar_gz([file(path, data) for path, data in files.items()])


def zip_archive(entries: list[tuple[str, bytes, int]]) -> bytes:
    """A zip of (name, data, unix mode) entries; the mode's type bits say what an entry is."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data, mode in entries:
            info = zipfile.ZipInfo(name)
            info.external_attr = mode << 16
            archive.writestr(info, data)
    return buffer.getvalue()


GOOD = [file("bot.yaml", MANIFEST), file("bot.py", b"print('hi')\n")]

REFUSED: dict[str, tuple[Callable[[], bytes], str]] = {
    "absolute path": (lambda: tar_gz([*GOOD, file("/tmp/seka-evil", b"x")]), "absolute paths are not accepted"),
    "dot-dot": (lambda: tar_gz([*GOOD, file("lib/../../evil.py", b"x")]), "'..' is not accepted"),
    "symlink out (absolute)": (lambda: tar_gz([*GOOD, member("passwd", tarfile.SYMTYPE, target="/etc/passwd")]),
                               "outside the bot's folder"),
    "symlink out (relative)": (lambda: tar_gz([*GOOD, member("lib/up", tarfile.SYMTYPE, target="../../x")]),
                               "outside the bot's folder"),
    "hard link out": (lambda: tar_gz([*GOOD, member("shadow", tarfile.LNKTYPE, target="/etc/shadow")]),
                      "absolute paths are not accepted"),
    "link chain out": (lambda: tar_gz([*GOOD, member("d1", tarfile.DIRTYPE),
                                       member("d1/l", tarfile.SYMTYPE, target=".."),
                                       member("up", tarfile.SYMTYPE, target="d1/l/..")]),
                       "'d1/l/..', which leads outside the bot's folder through other links"),
    "write through a link": (lambda: tar_gz([*GOOD, member("lib", tarfile.SYMTYPE, target="."),
                                             file("lib/x.py", b"x")]), "which is not a folder"),
    "character device": (lambda: tar_gz([*GOOD, member("null", tarfile.CHRTYPE)]), "device files are not accepted"),
    "block device": (lambda: tar_gz([*GOOD, member("sda", tarfile.BLKTYPE)]), "device files are not accepted"),
    "fifo": (lambda: tar_gz([*GOOD, member("pipe", tarfile.FIFOTYPE)]), "fifos are not accepted"),
    "too many files": (lambda: tar_gz([*GOOD, *(file(f"f{index}.txt", b"") for index in range(40))]),
                       "more than 32 entries"),
    "too many bytes": (lambda: tar_gz([*GOOD, file("big.bin", b"\0" * (3 << 20))]), "unpacks to more than"),
    "not an archive": (lambda: b"#!/bin/sh\necho hello\n", "not a tar.gz or zip archive"),
    "corrupt gzip": (lambda: b"\x1f\x8b" + b"\0" * 64, "cannot be read"),
    "no manifest": (lambda: tar_gz([file("bot.py", b"x")]), "no bot.yaml at the archive's root"),
    "manifest in a subfolder": (lambda: tar_gz([file("mybot/bot.yaml", MANIFEST), file("mybot/bot.py", b"x")]),
                                "no bot.yaml at the archive's root"),
    "manifest without command": (lambda: tar_gz([file("bot.yaml", b"language: python\ndescription: x\n")]),
                                 "bot.yaml:1: command: required"),
    "manifest with an unknown key": (lambda: tar_gz([file("bot.yaml", MANIFEST + b"comand: x\n")]),
                                     "bot.yaml:3: comand: unknown key"),
    "manifest not YAML": (lambda: tar_gz([file("bot.yaml", b"command: [python3\n")]), "bot.yaml:2: YAML syntax"),
    "program outside the folder": (lambda: tar_gz([file("bot.yaml", b"command: ../other/bot.py\n")]),
                                   "must be on PATH or inside the bot's folder"),
    "zip absolute path": (lambda: zip_archive([("bot.yaml", MANIFEST, 0o100644), ("/etc/x", b"x", 0o100644)]),
                          "absolute paths are not accepted"),
    "zip dot-dot": (lambda: zip_archive([("bot.yaml", MANIFEST, 0o100644), ("../x", b"x", 0o100644)]),
                    "'..' is not accepted"),
    "zip symlink out": (lambda: zip_archive([("bot.yaml", MANIFEST, 0o100644),
                                             ("etc", b"/etc", stat.S_IFLNK | 0o777)]), "outside the bot's folder"),
    "zip fifo": (lambda: zip_archive([("bot.yaml", MANIFEST, 0o100644), ("p", b"", stat.S_IFIFO | 0o644)]),
                 "fifos are not accepted"),
}
"""Each hostile archive, and the words its refusal must contain (the limits: 32 files, 2 MiB unpacked)."""


def header_bomb(kind: bytes, claimed: int = 1 << 30) -> bytes:
    """A tar.gz of about 1 MiB whose first header, a PAX header (`tarfile.XHDTYPE`) or a GNU long name
    (`tarfile.GNUTYPE_LONGNAME`), claims `claimed` bytes of data, all there (zeros): what tarfile reads
    in one go. Concatenated gzip members, so that only 64 MiB of zeros is ever compressed."""
    info = tarfile.TarInfo("././@PaxHeader" if kind == tarfile.XHDTYPE else "././@LongLink")
    info.type = kind
    info.size = claimed
    header = info.tobuf(format=tarfile.GNU_FORMAT)
    chunk = 64 << 20
    zeros = bytes(chunk)
    first = gzip.compress(header + zeros[:chunk - len(header)], compresslevel=9, mtime=0)
    return first + gzip.compress(zeros, compresslevel=9, mtime=0) * (claimed // chunk - 1)


def zip_directory_bomb(entries: int) -> bytes:
    """A zip's central directory of `entries` records of empty files, with one local entry (the first
    bytes of a zip): zipfile builds an object for each record before anything counts them."""
    records = [struct.pack("<4s6H3L5H2L", b"PK\x01\x02", 20, 20, 0, 0, 0, 0, 0, 0, 0, len(name), 0, 0, 0, 0,
                           0o100644 << 16, 0) + name for name in (f"{index:x}".encode() for index in range(entries))]
    directory = b"".join(records)
    local = struct.pack("<4s5H3L2H", b"PK\x03\x04", 20, 0, 0, 0, 0, 0, 0, 0, 1, 0) + b"0"
    end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, min(entries, 0xFFFF), min(entries, 0xFFFF), len(directory),
                      len(local), 0)
    return local + directory + end
