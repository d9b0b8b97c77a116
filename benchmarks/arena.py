"""The arena's benchmark: time per bot decision beside a raw grpcio call, and sessions in flight.

Run: .venv/bin/python -m benchmarks.arena [--quick] [--json FILE]
The same sections as `seka-arena bench --only decisions --only inflight`; docs/benchmarks.md
explains each figure.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from benchmarks.bench import main as bench_main


def main(argv: Sequence[str] | None = None) -> int:
    return bench_main([*(sys.argv[1:] if argv is None else argv), "--only", "decisions", "--only", "inflight"])


if __name__ == "__main__":
    sys.exit(main())
