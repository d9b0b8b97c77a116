"""`python -m arena.service._ladder_worker CONFIG`: the ladder's process, started by `serve` (`_ladder_process`).

A module of its own, which the package does not import, so that running it is its first import.
"""

from __future__ import annotations

import sys
from pathlib import Path

import trio

from ._ladder_process import play_until_stdin_ends

if __name__ == "__main__":
    trio.run(play_until_stdin_ends, Path(sys.argv[1]))
