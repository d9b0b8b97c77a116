"""What a tournament file means on this machine: folders, programs on PATH, socket paths, the drawn secret.

Paths and commands:

- `cwd` of a participant, when relative, is relative to the folder holding the YAML file; without
  `cwd` a bot runs in the folder the arena was started from. It is resolved to an absolute path
  and must be an existing folder.
- `command` is split like a shell would (`shlex.split`, by the loader), but no shell runs it. A
  command whose program is `python` or `python3` runs with the interpreter running the arena
  (`arena.transport.with_our_python`), so bots written in Python see the arena's virtual environment.
- The program of a command must exist: a name without a slash is looked up on `PATH` (the
  participant's `env` may override `PATH`); a relative path with a slash is taken relative to the
  bot's `cwd`; an absolute path is taken as it is.
- An `address` of the form `unix:PATH` with a relative PATH is relative to the folder holding the
  YAML file, like `cwd`, so the file means the same from wherever the arena is started.
"""

from __future__ import annotations

import os
import secrets
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path

from ..transport import with_our_python

_SECRET_BYTES = 16


class MachineError(ValueError):
    """A definition that is well formed but names something this machine lacks; the message says what."""


def resolve_folder(base_dir: Path, text: str) -> Path:
    """The absolute folder `text` names, relative to `base_dir`; `MachineError` unless it is a folder."""
    folder = (base_dir / os.path.expanduser(text)).resolve()
    if not folder.is_dir():
        raise MachineError(f"no such folder: {str(folder)!r} (from {text!r})")
    return folder


def resolve_command(words: Sequence[str], *, cwd: Path, env: Mapping[str, str],
                    python: str | None = None) -> tuple[str, ...]:
    """The command to run, its `python` replaced; `MachineError` when its program cannot be found.

    Args:
        words: the command, already split.
        cwd: the folder the command runs in, where a relative program path is looked for.
        env: the bot's own variables; its `PATH`, if any, replaces the arena's for the lookup.
        python: the interpreter that replaces `python`/`python3` (default: the arena's own).
    """
    command = with_our_python(words)
    if python is not None and command[0] != words[0]:
        command = (python, *command[1:])
    program = command[0]
    if os.path.isabs(program):
        if not os.path.exists(program):
            raise MachineError(f"program {program!r} does not exist")
        if not os.path.isfile(program):
            raise MachineError(f"program {program!r} is not a file")
    elif "/" in program or os.sep in program:
        if not (cwd / program).is_file():
            raise MachineError(f"program {program!r} not found in {str(cwd)!r}")
    elif shutil.which(program, path=env.get("PATH", os.environ.get("PATH"))) is None:
        raise MachineError(f"program {program!r} not found on PATH")
    return command


def resolve_address(address: str, base_dir: Path) -> str:
    """`address` with a relative `unix:` socket path made absolute against `base_dir`.

    >>> resolve_address("unix:bots/b.sock", Path("/srv/t")), resolve_address("unix:/tmp/b.sock", Path("/srv/t"))
    ('unix:/srv/t/bots/b.sock', 'unix:/tmp/b.sock')
    >>> resolve_address("localhost:5001", Path("/srv/t")), resolve_address("unix:///tmp/b.sock", Path("/srv/t"))
    ('localhost:5001', 'unix:///tmp/b.sock')
    """
    scheme, colon, path = address.partition(":")
    if scheme != "unix" or not colon or path.startswith("//"):
        return address
    path = os.path.expanduser(path)
    return f"unix:{path}" if os.path.isabs(path) else f"unix:{base_dir / path}"


def draw_secret() -> str:
    """A fresh tournament secret: 128 random bits in hex."""
    return secrets.token_hex(_SECRET_BYTES)
