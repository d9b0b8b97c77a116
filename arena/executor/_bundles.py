"""Bot bundles: a bot's files packed once, named by their SHA-256, unpacked and checked on each worker.

Theory of operation: a worker on another machine has none of the driver's folders, so a bot
launched by command travels as a *bundle*: a tar archive of the folders its command names (those
the sandbox would show it as its own: the folder of each file named, each folder named, and the
program's folder when the program is a path inside the bot's `cwd`), with the paths relative to
its `cwd`. The archive is deterministic (sorted entries, no owners, no times, modes reduced to
0755/0644, `__pycache__` left out), so the same files give the same digest and bots sharing a
folder share one bundle. The bot's command is rewritten relative to that root: the arena's own
interpreter becomes `python3` again (each worker puts its own back), absolute paths inside `cwd`
become relative.

A worker checks the bytes it receives against the digest the job names before it uses them, and
unpacks through tarfile's `data` filter (no absolute paths, no links out of the bundle, no
devices) into `<cache>/<digest>/`, made under a temporary name and renamed into place, so a
folder of the cache is always a whole, checked bundle. A bot that names a file outside its `cwd`
cannot be shipped: the error says so.
"""

from __future__ import annotations

import hashlib
import io
import os
import secrets
import shutil
import stat
import sys
import tarfile
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from ..engine import ArenaError
from ..transport import BotSpec, with_our_python

MAX_BUNDLE_BYTES = 256 << 20
"""The largest bundle shipped: a bot's folder bigger than this is refused, not copied to every worker."""
_SKIPPED = frozenset({"__pycache__", ".git"})
"""Folders left out of a bundle: made again where needed, and never part of the bot."""


class BundleError(ArenaError):
    """A bot that cannot be shipped to a worker, or a bundle that does not match its digest."""


@dataclass(frozen=True)
class Bundle:
    """A bot's files as shipped: the archive and its SHA-256."""

    digest: str
    data: bytes
    folders: tuple[str, ...]
    """The folders packed, relative to the bot's `cwd` (`.` for the `cwd` itself)."""


def _folders(spec: BotSpec) -> list[Path]:
    # The folders the bot's command names, as `arena.isolation.verify_bot_folders` finds them for
    # the sandbox, except an interpreter or a program found on PATH: every worker has its own.
    assert spec.command is not None and spec.cwd is not None
    cwd = Path(spec.cwd)
    found: list[Path] = []
    for index, word in enumerate(spec.command):
        if not word or word.startswith("-") or (index == 0 and ("/" not in word or word == sys.executable)):
            continue
        path = Path(os.path.normpath(cwd / word))
        if path.is_file():
            folder = path.parent
        elif path.is_dir() and index > 0:
            folder = path
        else:
            continue
        if folder != cwd and cwd not in folder.parents:
            raise BundleError(f"bot {spec.name!r}: its command names {str(path)!r}, outside its folder "
                              f"{str(cwd)!r}: a bot shipped to cluster workers keeps its files under its cwd")
        if folder not in found:
            found.append(folder)
    return found


def _entries(cwd: Path, folders: list[Path]) -> Iterator[tuple[Path, str]]:
    # Every file, link and folder under `folders`, sorted, each once, with its name in the archive.
    seen: set[str] = set()
    for folder in sorted(folders):
        for directory, subdirectories, files in os.walk(folder):
            subdirectories[:] = sorted(name for name in subdirectories if name not in _SKIPPED)
            base = Path(directory)
            for path in [base, *(base / name for name in sorted(files))]:
                name = os.path.relpath(path, cwd)
                if name != "." and name not in seen:
                    seen.add(name)
                    yield path, name
            # A link to a folder is kept as a link, not followed.
            for name in list(subdirectories):
                if (base / name).is_symlink():
                    subdirectories.remove(name)
                    relative = os.path.relpath(base / name, cwd)
                    if relative not in seen:
                        seen.add(relative)
                        yield base / name, relative


def pack_bundle(spec: BotSpec) -> Bundle:
    """The bundle of a bot launched by command (see the module docstring).

    Raises:
        BundleError: the command names files outside the bot's `cwd`, or they are larger than
            `MAX_BUNDLE_BYTES`.
    """
    if spec.command is None or spec.cwd is None:
        raise BundleError(f"bot {spec.name!r} has no command and folder to ship")
    cwd = Path(spec.cwd)
    folders = _folders(spec)
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as archive:
        for path, name in _entries(cwd, folders):
            info = archive.gettarinfo(str(path), arcname=name)
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            info.mtime = 0
            if info.isdir():
                info.mode = 0o755
            elif info.isreg():
                info.mode = 0o755 if info.mode & stat.S_IXUSR else 0o644
            if info.isreg():
                with open(path, "rb") as file:
                    archive.addfile(info, file)
            elif info.isdir() or info.issym():
                archive.addfile(info)
            if buffer.tell() > MAX_BUNDLE_BYTES:
                raise BundleError(f"bot {spec.name!r}: its folders {[str(folder) for folder in folders]} hold more "
                                  f"than {MAX_BUNDLE_BYTES >> 20} MiB, too much to ship to every worker")
    data = buffer.getvalue()
    return Bundle(hashlib.sha256(data).hexdigest(), data,
                  tuple(os.path.relpath(folder, cwd) for folder in folders))


def shipped_spec(spec: BotSpec) -> BotSpec:
    """The bot's spec as a worker receives it: its command relative to its bundle's root, `cwd` `.`."""
    assert spec.command is not None and spec.cwd is not None
    cwd = Path(spec.cwd)
    words = list(spec.command)
    if words and words[0] == sys.executable:
        words[0] = "python3"  # the worker puts its own interpreter back (`with_our_python`)
    for index, word in enumerate(words):
        if os.path.isabs(word) and cwd in Path(os.path.normpath(word)).parents:
            words[index] = os.path.relpath(os.path.normpath(word), cwd)
    return replace(spec, command=tuple(words), cwd=".")


def unpack_bundle(data: bytes, digest: str, cache: Path, *, bot: str) -> Path:
    """The folder where the bundle `digest` is unpacked in `cache`, unpacking `data` there first if needed.

    Raises:
        BundleError: `data` does not have the SHA-256 `digest` (nothing is unpacked), or it is not
            a bundle the `data` filter accepts.
    """
    actual = hashlib.sha256(data).hexdigest()
    if actual != digest:
        raise BundleError(f"bot {bot!r}: the bundle received has SHA-256 {actual}, not {digest} as the job names: "
                          "refused")
    target = cache / digest
    if target.is_dir():
        return target
    cache.mkdir(parents=True, exist_ok=True)
    partial = cache / f"{digest}.partial-{secrets.token_hex(4)}"
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:") as archive:
            archive.extractall(partial, filter="data")
        partial.chmod(0o755)
        try:
            partial.rename(target)
        except OSError:
            if not target.is_dir():  # not a rename lost to another thread unpacking the same bundle
                raise
    except (tarfile.TarError, OSError) as error:
        raise BundleError(f"bot {bot!r}: cannot unpack its bundle {digest} in {cache}: {error}") from None
    finally:
        shutil.rmtree(partial, ignore_errors=True)
    return target


def unpacked_spec(spec: BotSpec, folder: Path) -> BotSpec:
    """A shipped bot's spec on the worker: run from its unpacked `folder`, with this worker's interpreter."""
    assert spec.command is not None
    return replace(spec, command=with_our_python(spec.command), cwd=str(folder))
