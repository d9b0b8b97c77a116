"""Two copies of this bot, one in each mirror of a duplicate block, tell each other the cards
through the machine's count of pseudo-terminals, `/proc/sys/kernel/pty/nr`, which every process
can move by opening `/dev/ptmx` and read, whatever its namespaces and its uid.

The mirrors are never played at once; but with `bot_processes: reuse`, the copy that played the
first mirror waited, warm, while its twin played the second. The copy in seat 0 (the sender) keeps
broadcasting, after its session too, in slots of 200 ms on the monotonic clock (one clock for the
whole machine), frames of six symbols: a zero mark, a sync mark (60), the pot, and its three cards
by index (0..35), for every pot it was dealt. A symbol is sent by holding that many ptys for the slot.
The copy in seat 1 (the receiver) reads the count in the middle of each slot, and the symbols as
counts above the zero mark's; at each of its turns it waits up to 6 s for the frame of the pot
(none once it found the count unreadable) and reports what it read (None: nothing):

    HOSTILE pty {"pot": 1, "guessed": ["Th", "Ts", "6c"], "readable": true}

It holds at most 60 ptys, sends for at most 60 s, and plays like the call bot.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

from _hostile import CallingBot, report

from arena.sdk import Action, Deal, Hello, Turn, run

SLOT = 0.2
SYNC = 60
FRAME = 6
RANKS, SUITS = "6789TJQKA", "cdhs"
WAIT = 6.0
SENDING = 60.0
COUNT = Path("/proc/sys/kernel/pty/nr")


def index(card: str) -> int:
    return RANKS.index(card[0]) * 4 + SUITS.index(card[1])


def card(number: int) -> str:
    return RANKS[number >> 2] + SUITS[number & 3]


def pty_count() -> int | None:
    try:
        return int(COUNT.read_text())
    except (OSError, ValueError):
        return None


class Signaller(CallingBot):
    name = "pty-signaller"

    def __init__(self) -> None:
        self.seat = -1
        self.hands: dict[int, list[int]] = {}  # the sender's: pot -> card indexes
        self.read: dict[int, list[str]] = {}  # the receiver's: pot -> cards read
        self.readable: bool | None = None  # the receiver's: whether it could read the count
        self.reported: set[int] = set()
        self.lock = threading.Lock()
        self.started = False

    def on_hello(self, hello: Hello) -> None:
        self.seat = hello.seat
        if not self.started:
            self.started = True
            threading.Thread(target=self.send if self.seat == 0 else self.receive, daemon=True).start()

    def on_deal(self, deal: Deal) -> None:
        if deal.replay == 0 and self.seat == 0:
            with self.lock:
                self.hands[deal.pot_number] = [index(card) for card in deal.cards]

    def send(self) -> None:
        held: list[int] = []
        until = time.monotonic() + SENDING
        while time.monotonic() < until:
            slot = int(time.monotonic() / SLOT)
            with self.lock:
                frames = [[0, SYNC, pot, *cards] for pot, cards in sorted(self.hands.items())]
            symbol = frames[(slot // FRAME) % len(frames)][slot % FRAME] if frames else 0
            while len(held) > symbol:
                os.close(held.pop())
            try:
                while len(held) < symbol:
                    held.append(os.open("/dev/ptmx", os.O_RDWR | os.O_NOCTTY))
            except OSError:
                pass
            time.sleep(max(0.0, (slot + 1) * SLOT - time.monotonic()) + 0.002)
        for fd in held:
            os.close(fd)

    def receive(self) -> None:
        values: dict[int, int | None] = {}
        until = time.monotonic() + SENDING
        while time.monotonic() < until:
            slot = int(time.monotonic() / SLOT) + 1
            time.sleep(max(0.0, (slot + 0.5) * SLOT - time.monotonic()))
            values[slot] = pty_count()
            self.readable = bool(self.readable) or values[slot] is not None
            start = slot - FRAME + 1
            frame = [values.get(start + offset) for offset in range(FRAME)]
            if start % FRAME == 0 and all(value is not None for value in frame):
                zero = frame[0]
                assert zero is not None
                symbols = [value - zero for value in frame if value is not None]
                _, sync, pot, *cards = symbols
                if sync == SYNC and all(0 <= value < 36 for value in cards) and len(set(cards)) == 3:
                    with self.lock:
                        self.read[pot] = [card(value) for value in cards]
            values.pop(slot - 2 * FRAME, None)

    def act(self, turn: Turn) -> Action:
        if self.seat == 1 and turn.replay == 0 and turn.pot_number not in self.reported:
            self.reported.add(turn.pot_number)
            deadline = time.monotonic() + WAIT
            while time.monotonic() < deadline and turn.pot_number not in self.read and self.readable is not False:
                time.sleep(0.01)
            with self.lock:
                guessed = self.read.get(turn.pot_number)
            report("pty", pot=turn.pot_number, guessed=guessed, readable=self.readable)
        return super().act(turn)


if __name__ == "__main__":
    run(Signaller())
