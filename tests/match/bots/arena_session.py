"""Not a bot: a minimal arena that plays one session among faulty bots, for tests that signal it.

    python arena_session.py OUT_DIR MODE [MODE ...]

Seat i runs `faulty_bot.py --mode MODE_i --pid-file OUT_DIR/seat<i>.pid` under a one-minute
decision limit, so a session with a hanging bot stays in play until the test signals this
process. Each bot's forked child, if any, writes its pid to OUT_DIR/seat<i>.child.
"""

from __future__ import annotations

import sys
from pathlib import Path

import trio

from arena.engine import GEORGIAN
from arena.match import run_session
from arena.transport import BotSpec, Limit


def main() -> None:
    out = Path(sys.argv[1])
    bot = Path(__file__).with_name("faulty_bot.py")
    specs = [BotSpec(name=f"seat{seat}", limit=Limit(decision=60.0),
                     command=(sys.executable, str(bot), "--mode", mode, "--pid-file", str(out / f"seat{seat}.pid")))
             for seat, mode in enumerate(sys.argv[2:])]
    trio.run(lambda: run_session(GEORGIAN, specs, seed="signals", session_id="signals", log_dir=out / "logs"))


if __name__ == "__main__":
    main()
