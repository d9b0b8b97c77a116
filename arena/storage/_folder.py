"""The results folder: one arena writes in it at a time, and every file in it is replaced whole.

Theory of operation: a run holds an exclusive `flock` on `arena.lock` inside the folder for as
long as it writes there; the file names the holder's pid, so a second arena is refused with a
message saying who holds the folder. The kernel drops the lock when the holder's descriptor is
closed, at exit or SIGKILL alike, so a killed run never leaves a stale lock (the file stays, its
content is only informative). The descriptor is not inherited: bots never hold the lock.

Files are written to `<name>.partial`, flushed to disk, then renamed over the target, and the
folder is synced: a reader sees the old file or the new one, never half of one, and a file renamed
into place before a result row commits is on disk before that row. A failed write removes its
`.partial`; a run's leftovers from a SIGKILL are removed by the next holder of the lock. A file
written `once` (a history) is linked into place instead of renamed: the link fails if the name is
taken, so what is there is never replaced.

A folder the arena creates is private to its user (0700), as are the files holding a secret
(0600): a results folder holds the tournament's secret until it is revealed, and other users of
the machine have no business reading bots' logs either.
"""

from __future__ import annotations

import errno
import fcntl
import os
import time
from pathlib import Path
from types import TracebackType

from ._errors import AlreadyWrittenError, DiskFullError, StorageError, is_disk_full

LOCK_FILE = "arena.lock"
"""The lock file's name inside a results folder."""

PARTIAL_SUFFIX = ".partial"
"""Added to a file's name while it is being written."""

PRIVATE_FOLDER = 0o700
"""The mode of a folder the arena creates (results and data folders)."""
PRIVATE_FILE = 0o600
"""The mode of a file holding a secret (a store, a tournament file with its seed)."""

_SET_ASIDE_MAX = 1000
_READ_ONLY = (errno.EROFS, errno.EACCES, errno.EPERM)


class FolderBusyError(StorageError):
    """Another process holds the results folder."""

    def __init__(self, folder: Path, pid: int | None, purpose: str, *, kind: str = "results folder") -> None:
        holder = f"pid {pid}" if pid is not None else "pid unknown"
        super().__init__(f"{folder} is in use by another seka-arena ({holder}{', ' + purpose if purpose else ''}): "
                         f"wait for it to end or stop it; two arenas writing one {kind} would corrupt it")
        self.pid = pid


class FolderReadOnlyError(StorageError):
    """The results folder cannot be written (a read-only mount, or no permission)."""


class FolderLock:
    """An exclusive hold on a results folder. Take it with `FolderLock.acquire`; release it, or use `with`."""

    def __init__(self, folder: Path, descriptor: int) -> None:
        self.folder = folder
        self._descriptor: int | None = descriptor

    @classmethod
    def acquire(cls, folder: str | os.PathLike[str], *, purpose: str, kind: str = "results folder") -> FolderLock:
        """Create the folder if needed (0700) and take its lock without waiting.

        Args:
            purpose: a word or two for the message another process gets (`run`, `ratings`, `serve`).
            kind: what the folder is, for that message (`results folder`, `data folder`).

        Raises:
            FolderBusyError: another process holds the lock (the message names its pid).
            FolderReadOnlyError: the folder cannot be written.
            DiskFullError, StorageError: the folder cannot be created.
        """
        where = Path(folder)
        try:
            make_private_folder(where)
            descriptor = os.open(where / LOCK_FILE, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as error:
            raise _folder_error(where, error, "taking its lock") from error
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pid, holder_purpose = _holder(descriptor)
            os.close(descriptor)
            raise FolderBusyError(where, pid, holder_purpose, kind=kind) from None
        except BaseException:
            os.close(descriptor)
            raise
        try:
            os.ftruncate(descriptor, 0)
            os.pwrite(descriptor, f"{os.getpid()} {purpose}\n".encode(), 0)
        except OSError:
            pass  # a full disk: the lock holds all the same; a refused arena is told "pid unknown"
        return cls(where, descriptor)

    def release(self) -> None:
        """Let another arena in. The lock file stays: removing it would race with the next holder."""
        if self._descriptor is not None:
            os.close(self._descriptor)
            self._descriptor = None

    def __enter__(self) -> FolderLock:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.release()


def _holder(descriptor: int) -> tuple[int | None, str]:
    # The holder writes its pid right after it takes the lock: give it a moment to do so.
    deadline = time.monotonic() + 1.0
    while True:
        text = os.pread(descriptor, 200, 0).decode("utf-8", "replace")
        pid, _, purpose = text.strip().partition(" ")
        if pid.isdigit():
            return int(pid), purpose
        if time.monotonic() > deadline:
            return None, ""
        time.sleep(0.02)


def _folder_error(folder: Path, error: OSError, doing: str) -> StorageError:
    if is_disk_full(error):
        return DiskFullError(folder, doing)
    if error.errno in _READ_ONLY:
        return FolderReadOnlyError(f"{folder} cannot be written ({error.strerror})")
    return StorageError(f"cannot use the folder {folder} ({doing}): {error.strerror or error}")


def make_private_folder(folder: str | os.PathLike[str]) -> Path:
    """Create `folder` (and its missing parents) if needed; one it creates is 0700, whatever the umask.

    An existing folder keeps its mode: whoever made it chose it.
    """
    where = Path(folder)
    if not where.is_dir():
        where.parent.mkdir(parents=True, exist_ok=True)
        try:
            where.mkdir(mode=PRIVATE_FOLDER)
        except FileExistsError:
            return where  # made meanwhile by another process, with the mode it chose
        os.chmod(where, PRIVATE_FOLDER)  # mkdir's mode passes through the umask
    return where


def write_atomically(path: str | os.PathLike[str], data: str | bytes, *, encoding: str = "utf-8",
                     private: bool = False, once: bool = False) -> Path:
    """Write a whole file: to `<name>.partial`, synced, then renamed over `path`, and the folder synced.

    Args:
        private: the file holds a secret: it is created 0600 (else 0644 less the umask).
        once: never replace a file at `path` (a history): one there with the same bytes is kept as
            the write's own, any other is refused with `AlreadyWrittenError`.

    Raises:
        AlreadyWrittenError: with `once`, `path` holds other bytes (it is left as it was).
        DiskFullError: no space left (the `.partial` is removed; an older `path` is untouched).
        StorageError: any other failure to write, with the reason.
    """
    target = Path(path)
    temporary = target.with_name(target.name + PARTIAL_SUFFIX)
    content = data.encode(encoding) if isinstance(data, str) else data
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC,
                             PRIVATE_FILE if private else 0o644)
        with open(descriptor, "wb") as file:
            if private:
                os.fchmod(descriptor, PRIVATE_FILE)  # a `.partial` left by an older writer keeps its mode
            file.write(content)
            file.flush()
            os.fsync(file.fileno())
        if once:
            _link_once(temporary, target, content)
        else:
            os.replace(temporary, target)
        sync_folder(target.parent)
    except OSError as error:
        try:
            temporary.unlink(missing_ok=True)
        except OSError:
            pass
        if is_disk_full(error):
            raise DiskFullError(target.parent, f"writing {target.name}") from error
        raise StorageError(f"cannot write {target}: {error.strerror or error}") from error
    return target


def _link_once(temporary: Path, target: Path, content: bytes) -> None:
    # A hard link never replaces an existing name: the check and the write are one system call.
    try:
        os.link(temporary, target)
    except FileExistsError:
        if target.read_bytes() != content:
            raise AlreadyWrittenError(f"{target} exists already and holds something else: it is written once and "
                                      "never replaced; move it away if it is not wanted") from None
    finally:
        temporary.unlink(missing_ok=True)


def make_way_for_replay(path: str | os.PathLike[str], *, interrupted: bool) -> Path | None:
    """Before a session is played: free the name of its history, which is written `once`.

    A history already there when the store holds no result for the session was written by an
    attempt killed before its result was stored (`interrupted`: the store marked the session
    running before): it is renamed `<name>.interrupted-N`, kept, not replaced; returned. Otherwise
    it is another store's (a store replaced or lost): refused before anything is played.

    Raises:
        AlreadyWrittenError: a history is there and the session was never started.
    """
    target = Path(path)
    if not (target.is_file() or target.is_symlink()):
        return None  # nothing there (or not a file: the write says what stands in its way)
    if not interrupted:
        raise AlreadyWrittenError(f"{target} exists already, but its session was never played with this store: it "
                                  "belongs to results stored elsewhere (a store lost or replaced), and a history is "
                                  "never replaced; restore that store, or move the history away")
    for number in range(1, _SET_ASIDE_MAX + 1):
        kept = target.with_name(f"{target.name}.interrupted-{number}")
        try:
            os.link(target, kept)
        except FileExistsError:
            continue
        except OSError as error:
            raise _folder_error(target.parent, error, f"setting aside {target.name}") from error
        target.unlink()
        sync_folder(target.parent)
        return kept
    raise StorageError(f"{target}: {_SET_ASIDE_MAX} interrupted attempts are set aside already; look into why")


def sync_folder(folder: str | os.PathLike[str]) -> None:
    """Make the folder's entries (a rename, a new file) durable."""
    descriptor = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def discard_partial_files(folder: str | os.PathLike[str]) -> list[Path]:
    """Remove the `.partial` files a killed writer left in the folder and its subfolders; return them.

    Call it only while holding the folder's lock: another writer's `.partial` is a file in progress.
    """
    removed: list[Path] = []
    for pattern in (f"*{PARTIAL_SUFFIX}", f"*{PARTIAL_SUFFIX}-*"):  # the second: SQLite's journal beside it
        for path in Path(folder).rglob(pattern):
            if path.is_file():
                path.unlink(missing_ok=True)
                removed.append(path)
    return removed
