"""Not hostile: a fair bot that burns a fixed amount of CPU at every decision, then calls.

The victim of `noisy_neighbour.py`. Each `act` and `svara` spins until this thread has used
`MS` milliseconds of CPU (its own CPU time, not the wall clock, so a busy machine makes it slower,
never shorter), well inside its decision limit on an idle core.

    python fair_burner.py MS
"""

from __future__ import annotations

import time

from _hostile import CallingBot, arg

from arena.sdk import Action, SvaraOffer, Turn, run

_CPU = float(arg(1, "300")) / 1000


def burn(seconds: float) -> None:
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


class FairBurner(CallingBot):
    name = "fair-burner"

    def act(self, turn: Turn) -> Action:
        burn(_CPU)
        return super().act(turn)

    def svara(self, offer: SvaraOffer) -> bool:
        burn(_CPU)
        return super().svara(offer)


if __name__ == "__main__":
    run(FairBurner())
