"""A broken launch chain for the tests of the arena's own launch failures (`arena_launch_failure`)."""

from __future__ import annotations

import shutil
from pathlib import Path


def path_without_prlimit(folder: Path) -> str:
    """A PATH (a new folder `folder/bin`) holding setpriv and sh but not prlimit: every bot launched with
    limits fails before its own command runs ("setpriv: failed to execute prlimit"), the arena's fault."""
    programs = folder / "bin"
    programs.mkdir()
    for program in ("setpriv", "sh"):
        found = shutil.which(program)
        assert found is not None
        (programs / program).symlink_to(found)
    return str(programs)
