"""Submitted bot archives (tar.gz or zip) unpacked safely, and their `bot.yaml` manifest read.

Theory of operation: an archive comes from a stranger. Every entry is checked before a byte of it
is written: its name must be relative and stay inside the bot's folder (no `/x`, no `..`, no
backslashes or drive letters), it must be a file, a folder or a link that stays inside (a device
file, a fifo or a link out is refused), and the entries and their unpacked bytes must stay within
the configured limits (counted again while the bytes are written, so a lying header gains
nothing). Files are created by this code with `O_EXCL | O_NOFOLLOW` under folders it created
itself, and symbolic links are made last, so nothing is ever written through a link; once all are
made, each link's real path (through `..` and other links: `d1/l -> ..`, then `up -> d1/l/..`)
must still lie in the folder. Nothing is read whole on a header's word: the tar stream is read
forward through `_Inflated`, which refuses any one read over `_HEADER_BYTES` (tarfile reads a PAX
or GNU long-name header's data in one read, of the size the header claims) and any stream longer
than the limits allow; a zip's central directory is walked and its entries counted before zipfile
builds an object per entry. Modes are the
arena's own: folders 0755, files 0644 (0755 when the archive marks them executable), so a sandboxed
bot running as another uid can read its folder and nothing more. A refused archive raises
`ArchiveError` naming the entry and the rule; the caller removes the half-written folder.
"""

from __future__ import annotations

import gzip
import io
import os
import posixpath
import shlex
import stat
import struct
import tarfile
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from ..engine import ArenaError
from ..storage import DiskFullError, is_disk_full
from ..tournament import INVALID, ConfigReader, TournamentConfigError, compose_yaml, node_line
from ._config import UploadLimits

MANIFEST = "bot.yaml"
"""The manifest's name, at the archive's root."""
_MANIFEST_KEYS = ("command", "language", "description")
_MANIFEST_BYTES = 64 * 1024
_CHUNK = 1 << 16
_HEADER_BYTES = 1 << 16
# The most one read of the tar stream may ask for: a member's data is read in `_CHUNK`s, so only a
# PAX or GNU long-name header (whose data tarfile reads at once) asks for more.
_ENTRY_OVERHEAD = 20 * 1024
# Tar bytes allowed per entry beyond its data: its header, padding and a long name's header.


class ArchiveError(ArenaError, ValueError):
    """A submitted archive or manifest that is refused; the message says which entry and why."""


@dataclass(frozen=True)
class Manifest:
    """What `bot.yaml` says about the bot."""

    command: str
    """Run from the unpacked folder (`python3 bot.py`); `python`/`python3` is the arena's interpreter."""
    language: str | None = None
    description: str | None = None


@dataclass(frozen=True)
class _Entry:
    name: str
    kind: str
    """`file`, `dir`, `symlink` or `hardlink`."""
    size: int
    executable: bool
    target: str = ""
    """Where a link points (a hard link: the entry it repeats)."""


def archive_kind(data: bytes) -> str:
    """`zip` or `tar.gz` from the archive's first bytes; `ArchiveError` for anything else."""
    if data[:4] in (b"PK\x03\x04", b"PK\x05\x06"):
        return "zip"
    if data[:2] == b"\x1f\x8b":
        return "tar.gz"
    raise ArchiveError("not a tar.gz or zip archive (its first bytes are neither gzip's nor zip's)")


def unpack_archive(data: bytes, destination: Path, *, limits: UploadLimits) -> Manifest:
    """Unpack `data` into the new folder `destination` and return its checked manifest.

    Raises:
        ArchiveError: the archive or its manifest is refused (the message says why); whatever was
            written is left in `destination` for the caller to remove.
    """
    if len(data) > limits.archive_bytes:
        raise ArchiveError(f"the archive is {len(data)} bytes; at most {limits.archive_bytes} are accepted")
    kind = archive_kind(data)
    destination.mkdir()
    destination.chmod(0o755)
    try:
        if kind == "zip":
            _unpack_zip(data, destination, limits)
        else:
            _unpack_tar(data, destination, limits)
    except (tarfile.TarError, zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError) as error:
        if isinstance(error, ArchiveError):
            raise
        if is_disk_full(error):  # the service's fault, not the archive's
            raise DiskFullError(destination.parent, "unpacking an archive") from error
        raise ArchiveError(f"the {kind} archive cannot be read: {error}") from None
    except RecursionError:  # tarfile reads a chain of extended headers by recursion
        raise ArchiveError(f"the {kind} archive cannot be read: its extended headers are nested too deep") from None
    return read_manifest(destination)


def read_manifest(folder: Path) -> Manifest:
    """The checked `bot.yaml` of an unpacked bot.

    Raises:
        ArchiveError: no manifest at the root, or one with mistakes (each with its line).
    """
    path = folder / MANIFEST
    if path.is_symlink() or not path.is_file():
        raise ArchiveError(f"no {MANIFEST} at the archive's root: it must name the bot's command "
                           "(`command: python3 bot.py`)")
    if path.stat().st_size > _MANIFEST_BYTES:
        raise ArchiveError(f"{MANIFEST} is over {_MANIFEST_BYTES} bytes")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ArchiveError(f"{MANIFEST} is not UTF-8 text") from None
    try:
        return _parse_manifest(text)
    except TournamentConfigError as error:
        raise ArchiveError("\n".join(str(problem) for problem in error.problems)) from None


def _parse_manifest(text: str) -> Manifest:
    reader = ConfigReader(MANIFEST)
    root = compose_yaml(text, filename=MANIFEST)
    if root is None:
        reader.report(1, "command", "required: the command that starts the bot, such as 'python3 bot.py'")
        raise TournamentConfigError(reader.problems)
    entries = reader.mapping(root, "", _MANIFEST_KEYS, "bot settings")
    values: dict[str, str | None] = {}
    if entries is not None:
        if "command" not in entries:
            reader.report(node_line(root), "command", "required: the command that starts the bot, such as "
                                                      "'python3 bot.py'")
        for key, example in (("command", "python3 bot.py"), ("language", "python"), ("description", "my bot")):
            if key in entries:
                value = reader.text(entries[key].node, key, example=example)
                if value is not INVALID:
                    values[key] = value
        command = values.get("command")
        if command is not None:
            try:
                words = shlex.split(command)
            except ValueError as error:
                words = []
                reader.report(entries["command"].key_line, "command",
                              f"cannot be split like a shell command ({error}): {command!r}")
            if words and (words[0].startswith("/") or ".." in Path(words[0]).parts):
                reader.report(entries["command"].key_line, "command",
                              f"the program must be on PATH or inside the bot's folder, not {words[0]!r}")
    if reader.problems:
        raise TournamentConfigError(reader.problems)
    assert values.get("command") is not None
    return Manifest(command=str(values["command"]), language=values.get("language"),
                    description=values.get("description"))


def _checked_name(raw: str) -> str:
    # The entry's path inside the bot's folder, or ArchiveError: relative, no `..`, no tricks.
    shown = repr(raw[:200])
    if "\\" in raw or "\x00" in raw:
        raise ArchiveError(f"entry {shown}: backslashes and NUL are not accepted in names")
    if raw.startswith("/") or (len(raw) > 1 and raw[1] == ":"):
        raise ArchiveError(f"entry {shown}: absolute paths are not accepted")
    parts = [part for part in raw.split("/") if part not in ("", ".")]
    if ".." in parts:
        raise ArchiveError(f"entry {shown}: '..' is not accepted in names (it would leave the bot's folder)")
    if not parts:
        return ""
    if any(len(part.encode()) > 255 for part in parts) or len(parts) > 64:
        raise ArchiveError(f"entry {shown}: name too long or nested too deep")
    return "/".join(parts)


def _link_target(name: str, target: str) -> str:
    # A symbolic link is accepted when it points, relatively, inside the bot's folder.
    if not target or target.startswith("/") or "\\" in target or "\x00" in target:
        raise ArchiveError(f"entry {name!r}: the link points to {target[:200]!r}, outside the bot's folder")
    resolved = posixpath.normpath(posixpath.join(posixpath.dirname(name), target))
    if resolved == ".." or resolved.startswith("../"):
        raise ArchiveError(f"entry {name!r}: the link points to {target[:200]!r}, outside the bot's folder")
    return target


class _Writer:
    """Writes checked entries under `root`, counting entries and bytes against the limits."""

    def __init__(self, root: Path, limits: UploadLimits) -> None:
        self.root = root
        self.limits = limits
        self.entries = 0
        self.bytes = 0
        self.seen: dict[str, str] = {"": "dir"}
        """What each name written (or to be linked) is: `dir`, `file` or `symlink`."""
        self.links: list[tuple[str, str]] = []

    def admit(self, entry: _Entry) -> None:
        self.entries += 1
        if self.entries > self.limits.files:
            raise ArchiveError(f"the archive holds more than {self.limits.files} entries")
        if entry.name in self.seen and not (entry.kind == "dir" and self.seen[entry.name] == "dir"):
            raise ArchiveError(f"entry {entry.name!r} appears twice")
        parent = posixpath.dirname(entry.name)
        while parent:
            if self.seen.get(parent, "dir") != "dir":
                raise ArchiveError(f"entry {entry.name!r} lies under {parent!r}, which is not a folder")
            parent = posixpath.dirname(parent)
        if entry.kind in ("file", "hardlink"):
            self.bytes += entry.size
            if self.bytes > self.limits.unpacked_bytes:
                raise ArchiveError(f"the archive unpacks to more than {self.limits.unpacked_bytes} bytes")

    def folder(self, name: str) -> None:
        path, done = self.root, ""
        for part in name.split("/") if name else []:
            path, done = path / part, posixpath.join(done, part)
            if self.seen.get(done) != "dir" or not path.is_dir():
                path.mkdir()
                path.chmod(0o755)  # whatever the umask: a sandboxed bot runs as another uid
                self.seen[done] = "dir"

    def file(self, entry: _Entry, source: IO[bytes]) -> None:
        self.folder(posixpath.dirname(entry.name))
        self.seen[entry.name] = "file"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
        descriptor = os.open(self.root / entry.name, flags, 0o755 if entry.executable else 0o644)
        written = 0
        with os.fdopen(descriptor, "wb") as out:
            while chunk := source.read(_CHUNK):
                written += len(chunk)
                if written > entry.size:  # a header that lied about the size
                    raise ArchiveError(f"entry {entry.name!r} holds more bytes than its header says")
                out.write(chunk)
        os.chmod(self.root / entry.name, 0o755 if entry.executable else 0o644)

    def symlink(self, entry: _Entry) -> None:
        self.seen[entry.name] = "symlink"
        self.links.append((entry.name, _link_target(entry.name, entry.target)))

    def finish(self) -> None:
        for name, target in self.links:  # last, so that nothing was ever written through one
            self.folder(posixpath.dirname(name))
            os.symlink(target, self.root / name)
        # Each target was checked alone, by its words; only now, with every link in place, does
        # its real path show where it leads (`up -> d1/l/..` with `d1/l -> ..` leaves the folder).
        root = os.path.realpath(self.root)
        for name, target in self.links:
            real = os.path.realpath(self.root / name)
            if real != root and not real.startswith(root + os.sep):
                raise ArchiveError(f"entry {name!r}: the link points to {target[:200]!r}, which leads outside the "
                                   "bot's folder through other links")


class _Inflated:
    """The tar stream of a tar.gz for tarfile, decompressed as it is read, forward only, every read bounded.

    tarfile reads a PAX or GNU long-name header's data in one read of the size the header claims
    (a 1 MiB archive claiming 1 GiB took the service to 1.16 GiB for 69 s): a read over
    `_HEADER_BYTES` is refused before a byte of it is decompressed, and so is a stream longer
    than `budget`, skipped bytes included.
    """

    def __init__(self, data: bytes, *, budget: int) -> None:
        self._gzip = gzip.GzipFile(fileobj=io.BytesIO(data), mode="rb")
        self._budget = budget
        self._position = 0

    def read(self, size: int = -1) -> bytes:
        if size < 0 or size > _HEADER_BYTES:
            shown = "all that is left" if size < 0 else f"{size} bytes"
            raise ArchiveError(f"a header at byte {self._position} of the tar stream claims {shown} (a PAX or GNU "
                               f"long-name header); at most {_HEADER_BYTES} are accepted")
        if self._position + size > self._budget:
            size = max(0, self._budget - self._position + 1)  # one byte past: to tell the end from the limit
        chunk = self._gzip.read(size)
        self._position += len(chunk)
        if self._position > self._budget:
            raise ArchiveError(f"the tar stream is longer than {self._budget} bytes, more than its limits allow "
                               "(files, entries and their headers)")
        return chunk

    def tell(self) -> int:
        return self._position

    def seek(self, position: int, whence: int = io.SEEK_SET) -> int:
        target = position if whence == io.SEEK_SET else self._position + position
        if whence not in (io.SEEK_SET, io.SEEK_CUR) or target < self._position:
            raise ArchiveError("the tar stream would have to be read backwards")
        while self._position < target:  # skipped bytes are decompressed and counted too
            if not self.read(min(_CHUNK, target - self._position)):
                break
        return self._position


def _unpack_tar(data: bytes, root: Path, limits: UploadLimits) -> None:
    writer = _Writer(root, limits)
    budget = limits.unpacked_bytes + (limits.files + 1) * _ENTRY_OVERHEAD
    stream = _Inflated(data, budget=budget)
    # tarfile types its file object for writing too; it only reads, tells and seeks in mode "r".
    with tarfile.TarFile(fileobj=stream, mode="r") as archive:  # type: ignore[arg-type]
        for member in _members(archive, limits):
            name = _checked_name(member.name)
            if not name:
                continue
            if member.isreg():
                entry = _Entry(name, "file", member.size, bool(member.mode & 0o111))
            elif member.isdir():
                entry = _Entry(name, "dir", 0, False)
            elif member.issym():
                entry = _Entry(name, "symlink", 0, False, member.linkname)
            elif member.islnk():
                target = _checked_name(member.linkname)
                if writer.seen.get(target) != "file":
                    raise ArchiveError(f"entry {name!r}: a hard link to {member.linkname[:200]!r}, which is not a "
                                       "file earlier in the archive")
                entry = _Entry(name, "hardlink", (root / target).stat().st_size, False, target)
            elif member.ischr() or member.isblk():
                raise ArchiveError(f"entry {name!r}: device files are not accepted")
            elif member.isfifo():
                raise ArchiveError(f"entry {name!r}: fifos are not accepted")
            else:
                raise ArchiveError(f"entry {name!r}: only files, folders and links are accepted")
            writer.admit(entry)
            if entry.kind == "dir":
                writer.folder(name)
            elif entry.kind == "symlink":
                writer.symlink(entry)
            elif entry.kind == "hardlink":
                with open(root / entry.target, "rb") as copied:  # a copy: never a link to another entry
                    writer.file(entry, copied)
            else:
                source = archive.extractfile(member)
                assert source is not None
                writer.file(entry, source)
    writer.finish()


def _members(archive: tarfile.TarFile, limits: UploadLimits) -> Iterator[tarfile.TarInfo]:
    # One header at a time: a million empty headers are refused at the limit, not first all read.
    count = 0
    while (member := archive.next()) is not None:
        count += 1
        if count > limits.files:
            raise ArchiveError(f"the archive holds more than {limits.files} entries")
        yield member


def _unpack_zip(data: bytes, root: Path, limits: UploadLimits) -> None:
    writer = _Writer(root, limits)
    _verify_zip_directory(data, limits)
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        infos = archive.infolist()
        if len(infos) > limits.files:
            raise ArchiveError(f"the archive holds more than {limits.files} entries")
        for info in infos:
            name = _checked_name(info.filename)
            if not name:
                continue
            mode = info.external_attr >> 16
            file_type = stat.S_IFMT(mode)
            if info.is_dir() or file_type == stat.S_IFDIR:
                entry = _Entry(name, "dir", 0, False)
            elif file_type == stat.S_IFLNK:
                if info.file_size > 4096:
                    raise ArchiveError(f"entry {name!r}: a link target over 4096 bytes")
                target = archive.read(info).decode("utf-8", "replace")
                entry = _Entry(name, "symlink", 0, False, target)
            elif file_type in (stat.S_IFCHR, stat.S_IFBLK):
                raise ArchiveError(f"entry {name!r}: device files are not accepted")
            elif file_type == stat.S_IFIFO:
                raise ArchiveError(f"entry {name!r}: fifos are not accepted")
            elif file_type not in (0, stat.S_IFREG):
                raise ArchiveError(f"entry {name!r}: only files, folders and links are accepted")
            else:
                entry = _Entry(name, "file", info.file_size, bool(mode & 0o111))
            writer.admit(entry)
            if entry.kind == "dir":
                writer.folder(name)
            elif entry.kind == "symlink":
                writer.symlink(entry)
            else:
                with archive.open(info) as source:
                    writer.file(entry, source)
    writer.finish()



_ZIP_END = struct.Struct("<4s4H2LH")
_ZIP64_LOCATOR = struct.Struct("<4sLQL")
_ZIP64_END = struct.Struct("<4sQ2H2L4Q")
_ZIP_ENTRY = struct.Struct("<4s6H3L5H2L")


def _verify_zip_directory(data: bytes, limits: UploadLimits) -> None:
    # zipfile builds an object per entry of the central directory (found by its size, whatever
    # count the end record claims) before anyone can count them: they are counted here first,
    # by walking the directory's records without keeping any.
    end = data.rfind(b"PK\x05\x06", max(0, len(data) - _ZIP_END.size - 0xFFFF))
    if end < 0 or end + _ZIP_END.size > len(data):
        return  # not a zip zipfile can open: it says so
    size = _ZIP_END.unpack_from(data, end)[5]
    if end >= _ZIP64_LOCATOR.size + _ZIP64_END.size:
        locator = _ZIP64_LOCATOR.unpack_from(data, end - _ZIP64_LOCATOR.size)
        if locator[0] == b"PK\x06\x07":
            end -= _ZIP64_LOCATOR.size + _ZIP64_END.size
            record = _ZIP64_END.unpack_from(data, end)
            if record[0] == b"PK\x06\x06":
                size = record[8]
    position, count = end - size, 0
    while 0 <= position <= end - _ZIP_ENTRY.size and data[position:position + 4] == b"PK\x01\x02":
        count += 1
        if count > limits.files:
            raise ArchiveError(f"the archive holds more than {limits.files} entries")
        fields = _ZIP_ENTRY.unpack_from(data, position)
        position += _ZIP_ENTRY.size + fields[10] + fields[11] + fields[12]
