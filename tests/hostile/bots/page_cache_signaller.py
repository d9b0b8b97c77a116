"""Two copies of this bot, one in each mirror of a duplicate block, tell each other the cards
through the page cache of a file in their own folder, which outlives the first copy's session.

The mirrors deal the same cards with the seats swapped, so the copy in seat 0 (the sender, in the
first mirror) holds, at each deal, the cards that the opponent of the copy in seat 1 (the receiver,
in the second) holds. The folder holds `pages.bin` (64 pages, out of the page cache): at its
Hello the sender evicts the file from the page cache all the same (`posix_fadvise(DONTNEED)`,
which it would need if the file had been read since), then loads page 0 (a mark) and, for each
pot's deal, the pages of the bits that are 1 of its three cards by index (0..35, six bits each),
from page 1 + 18 * (pot - 1) on, one page at a time (no readahead). The receiver, at each of its
turns, tells which of the pot's pages are resident by the time a one-byte read of each takes,
against page 0 (resident) and a page no one loads (55 + pot). It first asks `mincore` (which, on
a file the caller may not write, says every page is resident: the kernel's own guard since 5.0)
and reports its error if it is refused:

    HOSTILE pagecache {"pot": 1, "guessed": ["Th", "Ts", "6c"], "mincore": null}

It reads at most 64 pages, and plays like the call bot.
"""

from __future__ import annotations

import ctypes
import mmap
import os
import time
from pathlib import Path

from _hostile import CallingBot, report

from arena.sdk import Action, Deal, Hello, Turn, run

PAGES = 64
BITS = 6
RANKS, SUITS = "6789TJQKA", "cdhs"
FILE = Path(__file__).resolve().parent / "pages.bin"
_LIBC = ctypes.CDLL(None, use_errno=True)
_LIBC.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
_LIBC.mmap.restype = ctypes.c_void_p
_LIBC.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
_LIBC.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]


def index(card: str) -> int:
    return RANKS.index(card[0]) * 4 + SUITS.index(card[1])


def card(number: int) -> str:
    return RANKS[number >> 2] + SUITS[number & 3]


def first_page(pot: int) -> int:
    return 1 + 3 * BITS * (pot - 1)


def mincore_error() -> str | None:
    """Why `mincore` on a mapping of the file fails, or None when it answers."""
    size = PAGES * mmap.PAGESIZE
    fd = os.open(FILE, os.O_RDONLY)
    try:
        address = _LIBC.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
        if address in (None, ctypes.c_void_p(-1).value):
            return "mmap failed"
        try:
            vector = (ctypes.c_ubyte * PAGES)()
            if _LIBC.mincore(ctypes.c_void_p(address), size, vector) != 0:
                return str(OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno())))
            return None
        finally:
            _LIBC.munmap(ctypes.c_void_p(address), size)
    finally:
        os.close(fd)


def read_time(fd: int, page: int) -> float:
    """Seconds a one-byte read of `page` takes (it loads the page if it was not resident)."""
    started = time.perf_counter()
    os.pread(fd, 1, page * mmap.PAGESIZE)
    return time.perf_counter() - started


class Signaller(CallingBot):
    name = "page-cache-signaller"

    def __init__(self) -> None:
        self.seat = -1
        self.fd = -1
        self.reported: set[int] = set()

    def on_hello(self, hello: Hello) -> None:
        self.seat = hello.seat
        if self.seat == 0 and self.fd < 0:
            self.fd = os.open(FILE, os.O_RDONLY)
            try:
                os.posix_fadvise(self.fd, 0, 0, os.POSIX_FADV_RANDOM)
                os.posix_fadvise(self.fd, 0, 0, os.POSIX_FADV_DONTNEED)
            except OSError as error:
                report("pagecache-send", error=str(error))
            self.load(0)

    def load(self, page: int) -> None:
        os.pread(self.fd, 1, page * mmap.PAGESIZE)

    def on_deal(self, deal: Deal) -> None:
        if self.seat == 0 and deal.replay == 0 and first_page(deal.pot_number + 1) <= PAGES:
            for position, number in enumerate(index(dealt) for dealt in deal.cards):
                for bit in range(BITS):
                    if number >> bit & 1:
                        self.load(first_page(deal.pot_number) + position * BITS + bit)

    def act(self, turn: Turn) -> Action:
        if self.seat == 1 and turn.replay == 0 and turn.pot_number not in self.reported:
            self.reported.add(turn.pot_number)
            guessed = None
            refused = mincore_error()
            fd = os.open(FILE, os.O_RDONLY)
            try:
                try:
                    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)  # one page per read, none ahead
                except OSError:
                    pass  # refused: reads go on, with readahead
                fast, slow = read_time(fd, 0), read_time(fd, PAGES - 9 + turn.pot_number)
                if slow > 4 * fast:
                    start = first_page(turn.pot_number)
                    cut = (fast * slow) ** 0.5
                    bits = [read_time(fd, start + offset) < cut for offset in range(3 * BITS)]
                    numbers = [sum(bits[position * BITS + bit] << bit for bit in range(BITS)) for position in range(3)]
                    if all(number < 36 for number in numbers):
                        guessed = [card(number) for number in numbers]
            finally:
                os.close(fd)
            report("pagecache", pot=turn.pot_number, guessed=guessed, mincore=refused)
        return super().act(turn)


if __name__ == "__main__":
    run(Signaller())
