"""A bot that tries to fill the host's disk through its socket folder, the one place on the host
it may write before it is ready.

Before serving, it makes a folder and a file in its socket folder and keeps both open. At every
turn it tries to create a new file in the socket folder and in its folder (by the descriptor it
holds, in case the folder was taken away), and to append to the file it holds; it reports what
worked. It writes at most a few kilobytes in all, and plays like the call bot.
"""

from __future__ import annotations

import os
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


class DiskFiller(CallingBot):
    name = "disk-filler"
    turns = 0

    def act(self, turn: Turn) -> Action:
        self.turns += 1
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
    run(DiskFiller())
