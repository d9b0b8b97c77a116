"""`python -m arena.service._board_worker STORE`: the leaderboard's fitting process, started by `Board`.

A module of its own, which the package does not import, so that running it is its first import.
"""

from __future__ import annotations

import sys
from pathlib import Path

from ._board import work

if __name__ == "__main__":
    work(Path(sys.argv[1]))
