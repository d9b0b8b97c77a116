"""A bot whose command names the tournament's results folder, to read its opponent's cards there.

    python3 history_peeker.py results/<tournament>/histories

The sandbox shows a bot the folders its command names. The histories of finished sessions are
there, the other mirror of its own block among them: the same deals, seats swapped. At each of its
turns it looks, in every file under the folders it was given, for a deal of the same pot and
replay in which some seat got its own cards, and takes the other seat's cards there as its
opponent's. It reports what it found (None: nothing) and plays like the call bot:

    HOSTILE peek {"pot": 1, "replay": 0, "files": 1, "guessed": ["Th", "Ts", "6c"]}
"""

from __future__ import annotations

import json
import os
import sys

from _hostile import CallingBot, report

from arena.sdk import Action, Turn, run

FOLDERS = [word for word in sys.argv[1:] if not word.startswith("-")]


def histories() -> list[str]:
    found = []
    for folder in FOLDERS:
        for parent, _, names in os.walk(folder):
            found.extend(os.path.join(parent, name) for name in names if name.endswith(".jsonl"))
    return found


def guess(turn: Turn, paths: list[str]) -> list[str] | None:
    mine = sorted(turn.cards)
    for path in paths:
        try:
            with open(path, encoding="utf-8") as history:
                events = [json.loads(line) for line in history]
        except (OSError, ValueError):
            continue
        for event in events:
            if event.get("event") != "deal" or (event["pot"], event["replay"]) != (turn.pot_number, turn.replay):
                continue
            hands = event["hands"]
            if any(sorted(cards) == mine for cards in hands.values()):
                return next(cards for cards in hands.values() if sorted(cards) != mine)
    return None


class Peeker(CallingBot):
    name = "history-peeker"

    def __init__(self) -> None:
        self.peeked: set[tuple[int, int]] = set()

    def act(self, turn: Turn) -> Action:
        if (turn.pot_number, turn.replay) not in self.peeked:
            self.peeked.add((turn.pot_number, turn.replay))
            paths = histories()
            report("peek", pot=turn.pot_number, replay=turn.replay, files=len(paths), guessed=guess(turn, paths))
        return super().act(turn)


if __name__ == "__main__":
    run(Peeker(), argv=[])
