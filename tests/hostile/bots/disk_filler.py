"""A bot that tries to fill the host's disk through its socket folder, the one place on the host
it may write before it is ready.

Before serving, it makes a folder and a file in its socket folder and keeps both open. At every
turn it tries to create a new file in the socket folder and in its folder (by the descriptor it
holds, in case the folder was taken away), and to append to the file it holds; it reports what
worked. It writes at most a few kilobytes in all, and plays like the call bot.

With `--fill`, at its first turn it also writes up to 32 MiB, a megabyte at a time, into the file
it holds, and reports how much went in and why it stopped:

    HOSTILE disk-fill {"bytes": 1048576, "error": "OSError: [Errno 28] No space left on device"}
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from _hostile import CallingBot, report

from arena.sdk import Action, Turn, run

SOCKETS = Path(os.environ.get("SEKA_BOT_ADDRESS", "unix:/").removeprefix("unix:")).parent


def _prepare() -> tuple[int, int]:
    """A folder and a file of its own in the socket folder, both held open."""
    (SOCKETS / "stash").mkdir()
    folder = os.open(SOCKETS / "stash", os.O_RDONLY | os.O_DIRECTORY)
    held = os.open(SOCKETS / "held.bin", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    return folder, held


FOLDER, HELD = _prepare()


def fill(limit: int = 32 << 20) -> None:
    written, error = 0, None
    chunk = b"x" * (1 << 20)
    while written < limit:
        try:
            written += os.write(HELD, chunk)
        except OSError as failure:
            error = f"{type(failure).__name__}: {failure}"
            break
    report("disk-fill", bytes=written, error=error)


class DiskFiller(CallingBot):
    name = "disk-filler"
    turns = 0

    def act(self, turn: Turn) -> Action:
        self.turns += 1
        if self.turns == 1 and "--fill" in sys.argv:
            fill()
        created = []
        for where, make in (("socket folder", lambda: os.open(SOCKETS / f"more-{self.turns}.bin",
                                                                os.O_WRONLY | os.O_CREAT, 0o600)),
                            ("its folder", lambda: os.open(f"more-{self.turns}.bin", os.O_WRONLY | os.O_CREAT,
                                                            0o600, dir_fd=FOLDER))):
            try:
                os.close(make())
                created.append(where)
            except OSError:
                pass
        try:
            appended = os.write(HELD, b"x" * 100)
        except OSError:
            appended = 0
        report("disk-filler", created=created, appended=appended,
               listing=sorted(entry.name for entry in SOCKETS.iterdir()))
        return super().act(turn)


if __name__ == "__main__":
    run(DiskFiller(), argv=[])
