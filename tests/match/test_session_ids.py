"""The exact session id each entry point tells its bots, as a recording bot saw it (issue 17.1).

The shuffle is public, so an id that names the session (`s0001`, `play-7`) lets a bot derive the
deals. Every entry point must send HMAC-SHA256(key, "session|<internal id>")[:16] under a key no bot
sees: a random key stored with a tournament's results (not its secret), or a fresh key per run. The
expected ids are computed here from that definition, not with the arena's function, so a change of
what is sent fails these tests.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from arena.cli import main
from arena.match import run_session
from arena.storage import Store

from ._support import BOTS, RELAXED, ROOT, SAMPLE_BOTS, TWO_POTS, sample_spec, spec

KEY = bytes(range(32))
"""The per-run key that `play`, `check-bot` and `sprt` draw, fixed by `fixed_run_key`."""


def told(key: bytes | str, internal: str) -> str:
    raw = key.encode() if isinstance(key, str) else key
    return hmac.new(raw, f"session|{internal}".encode(), hashlib.sha256).hexdigest()[:16]


def ids_in(record: Path) -> dict[str, set[str]]:
    """Method -> every session id its requests carried (notices inside them included)."""
    found: dict[str, set[str]] = {}
    for line in record.read_text().splitlines():
        method, _, request = line.partition(" ")
        found.setdefault(method, set()).update(re.findall(r'session_id: "([^"]*)"', request))
    return found


@pytest.fixture
def fixed_run_key(monkeypatch: pytest.MonkeyPatch) -> bytes:
    """The run's key, drawn where every entry point draws it, made known to the test."""
    monkeypatch.setattr("arena.match._ids.secrets", SimpleNamespace(token_bytes=lambda size: KEY[:size]))
    return KEY


def recorder(record: Path) -> str:
    return f"rec=python3 {BOTS / 'recording_bot.py'} --record {record}"


def test_play_tells_the_bots_an_hmac_of_play_seed_under_the_runs_key(
        fixed_run_key: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = tmp_path / "record.txt"
    assert main(["play", "--isolation", "none", "--seed", "7", "--out", str(tmp_path), "--quiet",
                 recorder(record), f"python3 {SAMPLE_BOTS / 'call_bot.py'}"]) == 0
    expected = told(fixed_run_key, "play-7")
    seen = ids_in(record)
    assert seen["Hello"] == {expected}
    assert set().union(*seen.values()) == {expected}
    out = capsys.readouterr().out
    assert f"The bots were told session id {expected}." in out
    assert (tmp_path / "play-7.jsonl").exists()  # the history keeps the internal id


def test_check_bot_tells_the_bot_an_hmac_of_each_scenarios_id(
        fixed_run_key: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = tmp_path / "record.txt"
    assert main(["check-bot", "--isolation", "none", "--logs", str(tmp_path / "logs"), "--",
                 "python3", str(BOTS / "recording_bot.py"), "--record", str(record)]) == 0, capsys.readouterr().out
    seen = ids_in(record)
    assert seen["Hello"] == {told(fixed_run_key, f"check-{number}") for number in (1, 2, 3)}
    assert set().union(*seen.values()) == seen["Hello"]


TOURNAMENT = """\
name: ids
participants:
  - {name: rec, command: %(python)s %(bots)s/recording_bot.py --record %(record)s --play call}
  - {name: threshold, command: python3 sample_bots/threshold_bot.py, cwd: %(root)s}
table: {pots: 2}
table_size: 2
sessions_per_table: 1
duplicate: true
seed: b2ab1619cf52016c5268679961a77867
concurrency: 1
isolation: none
"""


def test_a_tournament_tells_the_bots_an_hmac_of_the_session_under_its_stored_random_key(tmp_path: Path) -> None:
    record = tmp_path / "record.txt"
    definition = tmp_path / "ids.yaml"
    definition.write_text(TOURNAMENT % {"python": sys.executable, "bots": BOTS, "record": record, "root": ROOT})
    assert main(["run", str(definition), "--out", str(tmp_path / "out")]) == 0
    seen = ids_in(record)
    with Store.open(tmp_path / "out" / "results" / "ids" / "tournament.sqlite") as store:
        tournament = store.tournament()
        assert tournament is not None and tournament.session_key is not None
        key = tournament.session_key
    assert re.fullmatch(r"[0-9a-f]{64}", key)  # 256 random bits, not the secret
    assert seen["Hello"] == {told(key, "s0001"), told(key, "s0002")}
    assert set().union(*seen.values()) == seen["Hello"]
    with Store.open(tmp_path / "out" / "results" / "ids" / "tournament.sqlite") as store:
        # What the bot called itself is kept for information; its results are under the participant's name.
        assert {record.telemetry["rec"]["hello"]["name"] for record in store.finished_results()} == {"recorder"}


async def test_a_session_played_without_a_public_id_tells_the_bots_none_of_its_own(tmp_path: Path) -> None:
    record = tmp_path / "record.txt"
    specs = [spec("rec", "recording_bot.py", "--record", str(record), limit=RELAXED),
             sample_spec("call", "call_bot.py", limit=RELAXED)]
    await run_session(TWO_POTS, specs, seed="internal-seed", session_id="internal-seed", log_dir=tmp_path / "logs")
    (sent,) = set().union(*ids_in(record).values())
    assert re.fullmatch(r"[0-9a-f]{16}", sent) and sent != told(b"", "internal-seed")


def test_sprt_tells_the_bots_an_hmac_of_each_pair_and_mirror_under_the_runs_key(
        fixed_run_key: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = tmp_path / "record.txt"
    assert main(["sprt", "--isolation", "none", "--max-pairs", "1", "--concurrency", "1", "--seed", "5",
                 "--out", str(tmp_path), f"python3 {BOTS / 'recording_bot.py'} --record {record}",
                 f"python3 {SAMPLE_BOTS / 'call_bot.py'}"]) == 0, capsys.readouterr().out
    seen = ids_in(record)
    assert seen["Hello"] == {told(fixed_run_key, "p0001-0"), told(fixed_run_key, "p0001-1")}
    assert set().union(*seen.values()) == seen["Hello"]
