"""The ladder's process, started by `serve` (`_ladder_process.ladder_command`): `main(CONFIG)`.

A module of its own, which the package does not import, so that starting the process is its first import.
"""

from __future__ import annotations

from pathlib import Path

import trio

from ._ladder_process import play_until_stdin_ends


def main(config: str) -> None:
    """Play the ladder of the service configured in the file `config` until stdin ends (`play_until_stdin_ends`)."""
    trio.run(play_until_stdin_ends, Path(config))
