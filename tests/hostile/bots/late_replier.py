"""Hostile bot: its first turn answers late (after `--late` seconds, default 0.5), then it plays on.

The arena has given up on that call by then; the late answer must be dropped, and every later
call answered at once must count. Reports `HOSTILE late-replier {"late": true}` once it has sent
the late answer.
"""

from __future__ import annotations

import time

from _hostile import CallingBot, arg, report

from arena.sdk import Action, Turn, run


class LateReplier(CallingBot):
    name = "late-replier"

    def __init__(self, late: float) -> None:
        self.late = late
        self.turns = 0

    def act(self, turn: Turn) -> Action:
        self.turns += 1
        action = super().act(turn)
        if self.turns == 1:
            time.sleep(self.late)
            report("late-replier", late=True)
        return action


if __name__ == "__main__":
    run(LateReplier(float(arg(1, "0.5"))), argv=[])
