"""Two copies of this bot, one in each mirror of a duplicate block played at the same time,
tell each other the cards through a kernel counter kept per user.

The two mirrors deal the same cards with the seats swapped, so the copy in seat 0 holds, at each
deal, the cards the opponent of the copy in seat 1 holds in the other session. The kernel allows
each user `/proc/sys/fs/inotify/max_user_instances` inotify instances (128), counted across every
namespace: if both copies run as the same user, the number of instances one holds is the number
the other can no longer open.

- In seat 0 (the sender) it broadcasts, in slots of 50 ms on the monotonic clock (one clock for
  the whole machine), frames of five symbols: a sync mark (100), the pot, and its three cards by
  index (0..35), for its last two deals. A symbol is sent by holding that many instances for the
  slot. It takes 1.5 s over its first turn of each pot, so that its session, which would end long
  before, keeps pace with the other.
- In seat 1 (the receiver) it counts, in the middle of each slot, how many instances it can
  open, and so how many another process of its user holds; at each of its turns it waits up to
  2 s for the frame of the pot and reports what it read (None: nothing):

      HOSTILE inotify {"pot": 1, "guessed": ["Th", "Ts", "6c"]}

It holds at most 100 instances, reads for at most the session, and plays like the call bot.
"""

from __future__ import annotations

import ctypes
import threading
import time
from pathlib import Path

from _hostile import CallingBot, report

from arena.sdk import Action, Deal, Hello, Turn, run

SLOT = 0.05
SYNC = 100
FRAME = 5
RANKS, SUITS = "6789TJQKA", "cdhs"
WAIT = 2.0
PACE = 1.5

_LIBC = ctypes.CDLL(None, use_errno=True)
_IN_CLOEXEC = 0o2000000


def _limit() -> int:
    # The sandbox hides /proc/sys: then the kernel's default, which the sender does not know better.
    try:
        return int(Path("/proc/sys/fs/inotify/max_user_instances").read_text())
    except OSError:
        return 128


LIMIT = _limit()


def _open_instance() -> int:
    return int(_LIBC.inotify_init1(_IN_CLOEXEC))


def _close(fds: list[int]) -> None:
    for fd in fds:
        _LIBC.close(fd)
    fds.clear()


def held_by_others() -> int:
    """How many inotify instances other processes of this user hold: the limit less what opens."""
    opened: list[int] = []
    while len(opened) < LIMIT:
        fd = _open_instance()
        if fd < 0:
            break
        opened.append(fd)
    count = len(opened)
    _close(opened)
    return LIMIT - count


def index(card: str) -> int:
    return RANKS.index(card[0]) * 4 + SUITS.index(card[1])


def card(number: int) -> str:
    return RANKS[number >> 2] + SUITS[number & 3]


class Signaller(CallingBot):
    name = "inotify-signaller"

    def __init__(self) -> None:
        self.seat = -1
        self.hands: dict[int, list[int]] = {}  # the sender's: pot -> card indexes
        self.read: dict[int, list[str]] = {}  # the receiver's: pot -> cards read
        self.reported: set[int] = set()
        self.lock = threading.Lock()
        self.started = False

    def on_hello(self, hello: Hello) -> None:
        self.seat = hello.seat
        if not self.started:
            self.started = True
            threading.Thread(target=self.send if self.seat == 0 else self.receive, daemon=True).start()

    def on_deal(self, deal: Deal) -> None:
        if deal.replay == 0:
            with self.lock:
                self.hands[deal.pot_number] = [index(card) for card in deal.cards]

    def send(self) -> None:
        held: list[int] = []
        while True:
            slot = int(time.monotonic() / SLOT)
            with self.lock:
                frames = [[SYNC, pot, *cards] for pot, cards in sorted(self.hands.items())[-2:]]
            symbol = frames[(slot // FRAME) % len(frames)][slot % FRAME] if frames else 0
            while len(held) > symbol:
                _LIBC.close(held.pop())
            for _ in range(20):  # the receiver may hold the rest for a moment, mid-slot
                while len(held) < symbol and (fd := _open_instance()) >= 0:
                    held.append(fd)
                if len(held) == symbol:
                    break
                time.sleep(0.001)
            time.sleep(max(0.0, (slot + 1) * SLOT - time.monotonic()) + 0.002)

    def receive(self) -> None:
        values: dict[int, int] = {}
        while True:
            slot = int(time.monotonic() / SLOT) + 1
            time.sleep(max(0.0, (slot + 0.5) * SLOT - time.monotonic()))
            values[slot] = held_by_others()
            start = slot - FRAME + 1
            frame = [values.get(start + offset) for offset in range(FRAME)]
            if start % FRAME == 0 and frame[0] == SYNC and all(value is not None for value in frame):
                _, pot, *cards = frame
                assert pot is not None
                if all(value is not None and 0 <= value < 36 for value in cards) and len(set(cards)) == 3:
                    with self.lock:
                        self.read[pot] = [card(value) for value in cards if value is not None]
            values.pop(slot - 2 * FRAME, None)

    def act(self, turn: Turn) -> Action:
        if self.seat == 0 and turn.replay == 0 and turn.pot_number not in self.reported:
            self.reported.add(turn.pot_number)
            time.sleep(PACE)
        if self.seat == 1 and turn.replay == 0 and turn.pot_number not in self.reported:
            self.reported.add(turn.pot_number)
            deadline = time.monotonic() + WAIT
            while time.monotonic() < deadline and turn.pot_number not in self.read:
                time.sleep(0.01)
            with self.lock:
                guessed = self.read.get(turn.pot_number)
            report("inotify", pot=turn.pot_number, guessed=guessed)
        return super().act(turn)


if __name__ == "__main__":
    run(Signaller())
