"""arena/storage/_folder.py: one holder per results folder, whole-file writes, leftovers removed."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from arena.storage import (
    AlreadyWrittenError,
    FolderBusyError,
    FolderLock,
    StorageError,
    discard_partial_files,
    write_atomically,
)


def test_a_folder_has_one_holder_at_a_time_even_within_a_process(tmp_path: Path) -> None:
    first = FolderLock.acquire(tmp_path / "results", purpose="run")
    assert (tmp_path / "results" / "arena.lock").read_text() == f"{os.getpid()} run\n"
    with pytest.raises(FolderBusyError, match=rf"results is in use by another seka-arena \(pid {os.getpid()}, run\)"):
        FolderLock.acquire(tmp_path / "results", purpose="ratings")
    first.release()
    with FolderLock.acquire(tmp_path / "results", purpose="ratings"):
        assert (tmp_path / "results" / "arena.lock").read_text() == f"{os.getpid()} ratings\n"


def test_the_lock_dies_with_its_holder_and_is_not_inherited_by_children(tmp_path: Path) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, subprocess, time; from arena.storage import FolderLock; "
         "FolderLock.acquire(sys.argv[1], purpose='run'); "
         "child = subprocess.Popen(['sleep', '60'], close_fds=False); "
         "print(child.pid, flush=True); time.sleep(60)", str(tmp_path)], stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None
    child = int(holder.stdout.readline())
    try:
        with pytest.raises(FolderBusyError, match=rf"in use by another seka-arena \(pid {holder.pid}, run\)"):
            FolderLock.acquire(tmp_path, purpose="run")
        holder.kill()  # SIGKILL: no clean-up code runs; its child (like a bot) lives on
        holder.wait()
        with FolderLock.acquire(tmp_path, purpose="run"):
            pass
    finally:
        holder.kill()
        os.kill(child, 9)


def test_a_whole_file_replaces_the_old_one_and_a_failed_write_leaves_no_partial(tmp_path: Path) -> None:
    target = write_atomically(tmp_path / "sub" / "standings.json", "old\n")
    write_atomically(target, "new\n")
    assert target.read_text() == "new\n" and sorted(p.name for p in target.parent.iterdir()) == ["standings.json"]
    (tmp_path / "sub" / "folder.json").mkdir()
    with pytest.raises(StorageError, match="cannot write .*folder.json"):
        write_atomically(tmp_path / "sub" / "folder.json", "x")
    assert sorted(p.name for p in target.parent.iterdir()) == ["folder.json", "standings.json"]


def test_leftover_partial_files_are_discarded_and_nothing_else(tmp_path: Path) -> None:
    (tmp_path / "histories").mkdir()
    leftovers = [tmp_path / "histories" / "s0001.jsonl.partial", tmp_path / "tournament.sqlite.77.partial",
                 tmp_path / "tournament.sqlite.77.partial-journal"]
    kept = [tmp_path / "histories" / "s0002.jsonl", tmp_path / "tournament.sqlite", tmp_path / "notes.partial.txt"]
    for path in leftovers + kept:
        path.write_text("x")
    assert sorted(discard_partial_files(tmp_path)) == sorted(leftovers)
    assert all(path.exists() for path in kept) and not any(path.exists() for path in leftovers)


def test_a_file_written_once_is_never_replaced_but_the_same_bytes_again_are_its_own(tmp_path: Path) -> None:
    path = tmp_path / "histories" / "s0001.jsonl"
    write_atomically(path, "first\n", once=True)
    write_atomically(path, "first\n", once=True)  # a retry that wrote the same: nothing is replaced
    with pytest.raises(AlreadyWrittenError, match="exists already and holds something else"):
        write_atomically(path, "second\n", once=True)
    assert path.read_text() == "first\n"
    assert sorted(item.name for item in path.parent.iterdir()) == ["s0001.jsonl"]


def test_a_private_file_is_0600_whatever_the_umask(tmp_path: Path) -> None:
    old = os.umask(0)
    try:
        written = write_atomically(tmp_path / "secret.yaml", "seed: x\n", private=True)
        assert stat.S_IMODE(written.stat().st_mode) == 0o600
    finally:
        os.umask(old)
