"""Hostile bot: at its first turn allocates (and touches) memory in 64 MiB steps, up to 3 GiB.

It reports each step before taking it, so the last line says how far it got:

    HOSTILE memory-hog {"mib": 192}

Had it reached 3 GiB it would report `{"reached": 3072}`, free everything and play on.
"""

from __future__ import annotations

from _hostile import CallingBot, report

from arena.sdk import Action, Turn, run

_STEP_MIB = 64
_MOST_MIB = 3072


class MemoryHog(CallingBot):
    name = "memory-hog"

    def __init__(self) -> None:
        self.hogged = False

    def act(self, turn: Turn) -> Action:
        if not self.hogged:
            self.hogged = True
            held = []
            for step in range(_MOST_MIB // _STEP_MIB):
                report("memory-hog", mib=step * _STEP_MIB)
                held.append(b"\x01" * (_STEP_MIB << 20))  # filled, so every page is really used
            report("memory-hog", reached=_MOST_MIB)
            del held
        return super().act(turn)


if __name__ == "__main__":
    run(MemoryHog())
