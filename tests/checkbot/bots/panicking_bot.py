"""Broken on purpose: at its first turn it writes a long Go-style panic to stderr (the cause on
the first line, then 40 frames) and exits with status 2, as a Go program that panics does."""

import os
import sys

from arena.sdk import Bot, run


class PanickingBot(Bot):
    name = "panicking"

    def act(self, turn):
        print("panic: runtime error: index out of range [3] with length 3", file=sys.stderr)
        print("\ngoroutine 7 [running]:", file=sys.stderr)
        for frame in range(40):
            print(f"main.frame{frame}(...)\n\t/src/bot.go:{frame}", file=sys.stderr)
        sys.stderr.flush()
        os._exit(2)


if __name__ == "__main__":
    run(PanickingBot())
