"""Not a bot: a minimal arena that plays one session among faulty bots, for tests that signal it.

    python arena_session.py OUT_DIR MODE [MODE ...]

Seat i runs `faulty_bot.py --mode MODE_i --pid-file OUT_DIR/seat<i>.pid --tag=seka-test-<P>-<O>`
(P and O: the names of OUT_DIR's parent and of OUT_DIR itself) under a one-minute decision
limit, so a session with a hanging bot stays in play until the test signals this process. Each
bot's forked child, if any, writes its pid to OUT_DIR/seat<i>.child. With SEKA_TEST_ISOLATION=limits
or sandbox in the environment the bots run at that isolation level; sandboxed bots write their
markers to stderr instead, kept in OUT_DIR/logs/seat<i>.stderr.log (see faulty_bot.py).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import trio

from arena.engine import GEORGIAN
from arena.isolation import Isolation
from arena.match import run_session
from arena.transport import BotSpec, TimeLimit


def main() -> None:
    out = Path(sys.argv[1])
    bot = Path(__file__).with_name("faulty_bot.py")
    isolation = Isolation(os.environ.get("SEKA_TEST_ISOLATION", "none"))
    tag = f"--tag=seka-test-{out.parent.name}-{out.name}"
    specs = [BotSpec(name=f"seat{seat}", limit=TimeLimit(decision_ms=60_000), isolation=isolation,
                     command=(sys.executable, str(bot), "--mode", mode, tag, "--pid-file",
                              "stderr" if isolation is Isolation.SANDBOX else str(out / f"seat{seat}.pid")))
             for seat, mode in enumerate(sys.argv[2:])]
    trio.run(lambda: run_session(GEORGIAN, specs, seed="signals", session_id="signals", log_dir=out / "logs"))


if __name__ == "__main__":
    main()
