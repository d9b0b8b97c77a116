"""`python -m arena.service._collusion_worker STORE`: the collusion reports' process, started by `Analyses`.

A module of its own, which the package does not import, so that running it is its first import.
"""

from __future__ import annotations

import sys
from pathlib import Path

from ._collusion import work

if __name__ == "__main__":
    work(Path(sys.argv[1]))
