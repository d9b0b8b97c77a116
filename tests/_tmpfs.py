"""Small real filesystems for tests: a tmpfs of a given size (to fill it), remounted bigger or read-only.

Mounting needs root (CAP_SYS_ADMIN). Elsewhere the tests that need it are skipped with the reason,
except under CI (CI set), where a machine that cannot mount fails loudly instead of passing quietly.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


def _mount(*arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["mount", *arguments], capture_output=True, text=True)


@contextmanager
def tmpfs(path: Path, *, size: str) -> Iterator[Path]:
    """A fresh tmpfs of `size` (`200k`) mounted at `path` (created) for the block; unmounted after."""
    if os.geteuid() != 0 and not os.environ.get("CI"):
        pytest.skip("mounting a small tmpfs needs root (CI runs as root)")
    path.mkdir(parents=True, exist_ok=True)
    mounted = _mount("-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(path))
    if mounted.returncode != 0:
        if os.environ.get("CI"):
            pytest.fail(f"cannot mount a tmpfs at {path}: {mounted.stderr.strip()}")
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip()}")
    try:
        yield path
    finally:
        subprocess.run(["umount", "--lazy", str(path)], capture_output=True)


def remount(path: Path, *, size: str | None = None, read_only: bool = False) -> None:
    """Change a mounted tmpfs: another size (its files kept), or read-only, or writable again."""
    options = ["remount", "ro" if read_only else "rw", *([f"size={size}"] if size else [])]
    done = _mount("-o", ",".join(options), str(path))
    assert done.returncode == 0, done.stderr
