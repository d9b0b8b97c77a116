"""Bot bundles: packed once by digest, the same files giving the same bytes; refused when the digest does not match."""

from __future__ import annotations

import io
import sys
import tarfile
from pathlib import Path

import pytest

from arena.engine import GEORGIAN
from arena.executor import BundleError, SessionJob, pack_bundle, play_on_worker, shipped_spec, unpack_bundle
from arena.transport import BotSpec


def _bot(folder: Path) -> BotSpec:
    (folder / "bot").mkdir(parents=True)
    (folder / "bot" / "main.py").write_text("print('hello')\n")
    (folder / "bot" / "lib").mkdir()
    (folder / "bot" / "lib" / "helper.py").write_text("X = 1\n")
    (folder / "bot" / "__pycache__").mkdir()
    (folder / "bot" / "__pycache__" / "main.cpython-311.pyc").write_bytes(b"\0" * 10)
    (folder / "other").mkdir()
    (folder / "other" / "secret.txt").write_text("not the bot's\n")
    return BotSpec(name="b", command=(sys.executable, str(folder / "bot" / "main.py"), "--depth", "3"),
                   cwd=str(folder))


def test_a_bundle_holds_the_folders_its_command_names_and_the_same_files_give_the_same_digest(tmp_path: Path) -> None:
    spec = _bot(tmp_path / "a")
    bundle = pack_bundle(spec)
    with tarfile.open(fileobj=io.BytesIO(bundle.data)) as archive:
        names = archive.getnames()
        assert {member.mtime for member in archive.getmembers()} == {0}
    assert names == ["bot", "bot/main.py", "bot/lib", "bot/lib/helper.py"]  # sorted, no __pycache__
    copy = _bot(tmp_path / "b")  # the same files elsewhere, made later
    assert pack_bundle(copy).digest == bundle.digest
    # The worker's interpreter replaces the driver's; paths become relative to the bundle's root.
    assert shipped_spec(spec).command == ("python3", "bot/main.py", "--depth", "3")
    (tmp_path / "b" / "bot" / "main.py").write_text("print('changed')\n")
    assert pack_bundle(copy).digest != bundle.digest


def test_a_bot_naming_files_outside_its_folder_cannot_be_shipped(tmp_path: Path) -> None:
    spec = _bot(tmp_path)
    outside = BotSpec(name="b", command=(sys.executable, str(tmp_path / "bot" / "main.py")),
                      cwd=str(tmp_path / "other"))
    with pytest.raises(BundleError, match="outside its folder"):
        pack_bundle(outside)
    assert pack_bundle(spec).folders == ("bot",)


def test_a_bundle_whose_bytes_do_not_match_its_digest_is_refused_before_anything_runs(tmp_path: Path) -> None:
    bundle = pack_bundle(_bot(tmp_path / "bot"))
    cache = tmp_path / "cache"
    tampered = bundle.data.replace(b"hello", b"HELLO")
    with pytest.raises(BundleError, match=f"has SHA-256 [0-9a-f]{{64}}, not {bundle.digest}"):
        unpack_bundle(tampered, bundle.digest, cache, bot="b")
    assert not cache.exists() or not any(cache.iterdir())
    # The same through a worker: the session is refused, no bot is launched.
    spec = shipped_spec(_bot(tmp_path / "real"))
    job = SessionJob(session_id="s0001", seed="00", public_id="p", rules=GEORGIAN, bots=(spec, spec),
                     bundles=(bundle.digest, bundle.digest))
    with pytest.raises(BundleError, match="not " + bundle.digest):
        play_on_worker(job, {bundle.digest: tampered})
    folder = unpack_bundle(bundle.data, bundle.digest, cache, bot="b")
    assert (folder / "bot" / "lib" / "helper.py").read_text() == "X = 1\n"
    assert not (folder / "bot" / "__pycache__").exists() and not (folder / "other").exists()
