"""Without the `dask` extra the arena plays in-process as before, and `--cluster` says what to install."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import trio

from arena.executor import ClusterError
from arena.tournament import TournamentRunner, load_config

from ..tournament._support import definition


def test_a_cluster_without_dask_installed_says_which_extra_to_install(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # `import distributed` fails as if not installed
    runner = TournamentRunner(load_config(definition(tmp_path)), out=tmp_path / "out", cluster="local:2")
    try:
        with pytest.raises(ClusterError, match=r"pip install 'seka-arena\[dask\]'"):
            trio.run(runner.run)
    finally:
        runner.close()


def test_a_local_cluster_without_cryptography_says_which_extra_to_install(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("distributed")
    monkeypatch.setitem(sys.modules, "cryptography", None)  # its CA cannot be made: no cluster without TLS
    runner = TournamentRunner(load_config(definition(tmp_path)), out=tmp_path / "out", cluster="local:2")
    try:
        with pytest.raises(ClusterError, match=r"needs cryptography for its TLS: pip install 'seka-arena\[dask\]'"):
            trio.run(runner.run)
    finally:
        runner.close()
