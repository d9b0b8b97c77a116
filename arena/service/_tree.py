"""One digest of a bot's unpacked files: what makes two submissions the same bot, whatever archive
carried them (tar.gz or zip, members in another order, other times or owners)."""

from __future__ import annotations

import hashlib
import json
import os
import stat
from pathlib import Path

_CHUNK = 1 << 20


def tree_digest(folder: Path) -> tuple[str, int]:
    """The SHA-256 of a folder's entries and the total bytes of its files.

    The digest covers every entry, in the order of their relative paths: a folder by its path, a link
    by its path and target, a file by its path, whether it is executable and its contents' SHA-256.
    Each entry is one JSON line, so no two different trees give the same text.
    """
    entries: list[tuple[str, os.stat_result]] = []
    for root, folders, files in os.walk(folder):  # links to folders are listed, not followed
        for name in (*folders, *files):
            path = Path(root) / name
            entries.append((path.relative_to(folder).as_posix(), path.lstat()))
    digest = hashlib.sha256()
    total = 0
    for relative, status in sorted(entries, key=lambda entry: entry[0]):
        path = folder / relative
        if stat.S_ISLNK(status.st_mode):
            record: list[object] = ["link", relative, os.readlink(path)]
        elif stat.S_ISDIR(status.st_mode):
            record = ["folder", relative]
        else:
            total += status.st_size
            record = ["file", relative, bool(status.st_mode & 0o111), _file_digest(path)]
        digest.update(json.dumps(record).encode("utf-8") + b"\n")
    return digest.hexdigest(), total


def _file_digest(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        while chunk := file.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()
