"""A careless bot, the snooper's victim: it leaves its cards wherever a neighbour might look.

At every deal it writes `$LEAK_MARKER <cards>` to a file in /tmp, in its socket folder and in the
folder named by $LEAK_DIR (if it can), and keeps the line in memory. It plays like the call bot.
Nothing it leaks may reach another bot. (The marker comes from the environment, so that the
bot's own source, which a neighbour in the same folder can read, does not hold it.)
"""

from __future__ import annotations

import os
from pathlib import Path

from _hostile import CallingBot, report

from arena.sdk import Deal, run

MARKER = os.environ.get("LEAK_MARKER", "leak")
LEAKED: list[str] = []


class Leaky(CallingBot):
    name = "leaky"

    def on_deal(self, deal: Deal) -> None:
        line = f"{MARKER} {deal.session_id} {deal.pot_number} {' '.join(deal.cards)}\n"
        LEAKED.append(line)
        places = [Path("/tmp"), Path(os.environ.get("SEKA_BOT_ADDRESS", "unix:/").removeprefix("unix:")).parent]
        if os.environ.get("LEAK_DIR"):
            places.append(Path(os.environ["LEAK_DIR"]))
        written = []
        for place in places:
            try:
                with open(place / f"leak-{os.getpid()}.txt", "a") as leak:
                    leak.write(line)
                written.append(str(place))
            except OSError:
                pass
        report("leaky", written=written)


if __name__ == "__main__":
    run(Leaky())
