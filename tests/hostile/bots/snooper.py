"""Hostile bot: looks for secrets wherever it can, at the first turn of every pot, then calls.

Environment:

    SNOOP_NEEDLES   JSON {label: text}: what to look for (the tests pass the tournament secret
                    and the marker the leaky bot writes next to its cards)
    SNOOP_TARGETS   paths to try first, separated by ':' (the tournament file, the results folder)
    SNOOP_BUDGET    seconds for the whole search (default 5)

It tries the targets, its parent's /proc environ, cmdline and memory, the other folders next to
its own socket folder and /root; then it reads every regular file it can under / (not /proc,
/sys, /dev, nor the system and Python folders, which it cannot write and the arena does not
either) and, for every process it can see but itself, environ, cmdline and readable memory. It
reports what it found, by label (never the secret itself):

    HOSTILE snooper {"found": {"secret": ["/tmp/t.yaml"]}, "opened": [...], "refused": {...}, ...}

It also reports the cards it was dealt, for the test to check against the history:

    HOSTILE snooper-hand {"pot": 1, "replay": 0, "cards": ["Th", "Ts", "6c"]}
"""

from __future__ import annotations

import json
import os
import re
import stat
import sys
import time
from pathlib import Path

from _hostile import CallingBot, report

from arena.sdk import Action, Deal, Turn, run

_SKIP = {"/proc", "/sys", "/dev", "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", sys.base_prefix,
         sys.prefix}
_READ = 4 << 20  # bytes read of any one file or memory region
_NEEDLES: dict[str, bytes] = {label: text.encode()
                              for label, text in json.loads(os.environ.get("SNOOP_NEEDLES", "{}")).items()}
_MAPS = re.compile(r"^([0-9a-f]+)-([0-9a-f]+) r")


class Search:
    def __init__(self, budget: float) -> None:
        self.deadline = time.monotonic() + budget
        self.found: dict[str, list[str]] = {}
        self.opened: list[str] = []
        self.refused: dict[str, str] = {}
        self.files = 0
        self.processes = 0
        self.out_of_time = False

    def late(self) -> bool:
        self.out_of_time = self.out_of_time or time.monotonic() > self.deadline
        return self.out_of_time

    def look(self, data: bytes, where: str) -> None:
        for label, needle in _NEEDLES.items():
            if needle and needle in data:
                self.found.setdefault(label, []).append(where)

    def read_file(self, path: str, *, target: bool = False) -> None:
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
        except OSError as error:
            if target:
                self.refused[path] = type(error).__name__
            return
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return
            data = os.read(fd, _READ)
        except OSError as error:
            if target:
                self.refused[path] = type(error).__name__
            return
        finally:
            os.close(fd)
        self.files += 1
        if target:
            self.opened.append(path)
        self.look(data, path)

    def walk(self, top: str, *, target: bool = False) -> None:
        if os.path.isfile(top) or not os.path.isdir(top):
            self.read_file(top, target=target)
            return
        try:
            os.listdir(top)
            if target:
                self.opened.append(top)
        except OSError as error:
            if target:
                self.refused[top] = type(error).__name__
            return
        for folder, subfolders, files in os.walk(top):
            if self.late():
                return
            subfolders[:] = [name for name in subfolders if os.path.join(folder, name) not in _SKIP]
            for name in files:
                self.read_file(os.path.join(folder, name))

    def process(self, pid: str, *, target: bool = False) -> None:
        self.processes += 1
        for part in ("environ", "cmdline"):
            self.read_file(f"/proc/{pid}/{part}", target=target)
        try:
            maps = Path(f"/proc/{pid}/maps").read_text()
            with open(f"/proc/{pid}/mem", "rb", buffering=0) as memory:
                if target:
                    self.opened.append(f"/proc/{pid}/mem")
                for line in maps.splitlines():
                    if self.late():
                        return
                    if (match := _MAPS.match(line)) is None:
                        continue
                    start, end = int(match.group(1), 16), int(match.group(2), 16)
                    try:
                        memory.seek(start)
                        self.look(memory.read(min(end - start, _READ)), f"/proc/{pid}/mem")
                    except (OSError, OverflowError, ValueError):
                        pass
        except OSError as error:
            if target:
                self.refused[f"/proc/{pid}/mem"] = type(error).__name__


def snoop() -> dict[str, object]:
    started = time.monotonic()
    search = Search(float(os.environ.get("SNOOP_BUDGET", "5")))
    me = str(os.getpid())
    for target in filter(None, os.environ.get("SNOOP_TARGETS", "").split(":")):
        search.walk(target, target=True)
    search.process(str(os.getppid()), target=True)
    own_folder = Path(os.environ.get("SEKA_BOT_ADDRESS", "unix:/").removeprefix("unix:")).parent
    neighbours = [str(path) for path in own_folder.parent.glob("*") if path != own_folder]
    for neighbour in [*neighbours, "/root"]:
        search.walk(neighbour, target=True)
    search.walk("/")
    visible = sorted(entry for entry in os.listdir("/proc") if entry.isdigit())
    for pid in visible:
        if pid != me and not search.late():
            search.process(pid)
    return {"found": search.found, "opened": search.opened, "refused": search.refused, "files": search.files,
            "processes": search.processes, "visible_pids": len(visible), "neighbours": neighbours,
            "uid": os.getuid(), "root": sorted(os.listdir("/")), "env": sorted(os.environ),
            "out_of_time": search.out_of_time, "seconds": round(time.monotonic() - started, 3)}


class Snooper(CallingBot):
    name = "snooper"

    def __init__(self) -> None:
        self.snooped: set[int] = set()

    def on_deal(self, deal: Deal) -> None:
        report("snooper-hand", pot=deal.pot_number, replay=deal.replay, cards=list(deal.cards))

    def act(self, turn: Turn) -> Action:
        if turn.pot_number not in self.snooped:
            self.snooped.add(turn.pot_number)
            report("snooper", **snoop())
        return super().act(turn)


if __name__ == "__main__":
    run(Snooper())
