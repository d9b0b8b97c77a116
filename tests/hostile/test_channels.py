"""Side channels: no sandboxed bot learns what it must not through the kernel, its command line
or its socket, and none can reach what the arena keeps on the host."""

from __future__ import annotations

import json
import mmap
import os
import secrets
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import trio

from arena.engine import GEORGIAN
from arena.isolation import Isolation, SandboxError
from arena.match import SessionResult, run_session
from arena.tournament import TournamentRunner, load_config
from arena.transport import BotSpec

from ..match._support import SAMPLE_BOTS, records, wait_until
from ._support import HOSTILE, LIMITS, RELAXED, SANDBOX, TWO_POTS, caller, hostile, reports, tournament_file


def _deals(result: SessionResult, seat: int) -> dict[int, list[str]]:
    """The cards of `seat` at each pot's first deal."""
    return {record["pot"]: record["hands"][str(seat)] for record in records(result.events)
            if record["event"] == "deal" and record["replay"] == 0 and str(seat) in record["hands"]}


async def test_two_copies_of_a_bot_in_mirrored_sessions_at_once_cannot_signal_through_a_per_user_counter(
        tmp_path: Path) -> None:
    # The two mirrors of a duplicate block, played at the same time: the signaller sends from seat 0
    # of the first the cards that its opponent holds in seat 0 of the second, where its copy sits in seat 1.
    rules = GEORGIAN.with_table(pots_per_session=4, max_actions=12)
    signaller = hostile("signaller", "inotify_signaller.py", limit=RELAXED)
    results: dict[int, SessionResult] = {}

    async def play(mirror: int, seating: list[BotSpec]) -> None:
        results[mirror] = await run_session(rules, seating, seed="mirrored", session_id=f"mirror-{mirror}",
                                            log_dir=tmp_path / f"mirror-{mirror}")

    async with trio.open_nursery() as nursery:
        nursery.start_soon(play, 0, [signaller, caller()])
        nursery.start_soon(play, 1, [caller(), signaller])
    for result in results.values():
        assert all(seat.telemetry["faults"] == {} and seat.dead is None for seat in result.seats), result.seats
    opponent_cards = _deals(results[1], 0)
    assert opponent_cards == _deals(results[0], 0)  # the same deals: what the sender knows is worth knowing
    guesses: list[dict[str, Any]] = reports(tmp_path / "mirror-1", "signaller", "inotify")
    assert {guess["pot"] for guess in guesses} == set(opponent_cards), guesses
    assert all(guess["guessed"] is None for guess in guesses), (guesses, opponent_cards)


def _first_deals(history: Path, seat: int) -> dict[int, list[str]]:
    """The cards of `seat` at each pot's first deal, from a stored history."""
    deals = [json.loads(line) for line in history.read_text().splitlines()]
    return {deal["pot"]: deal["hands"][str(seat)] for deal in deals
            if deal["event"] == "deal" and deal["replay"] == 0 and str(seat) in deal["hands"]}


async def test_a_warm_copy_of_a_bot_cannot_tell_its_twin_in_the_next_mirror_the_cards_through_the_pty_count(
        tmp_path: Path) -> None:
    # One block, its mirrors one after the other, with warm processes: the signaller's copy from
    # the first mirror (seat 0) keeps sending the cards it was dealt through /proc/sys/kernel/pty/nr,
    # which its twin in the second (seat 1, facing those very cards) reads.
    path = tournament_file(tmp_path / "pty.yaml", [
        {"name": "signaller", "command": f"python3 {HOSTILE / 'pty_signaller.py'}"},
        {"name": "call", "command": f"python3 {SAMPLE_BOTS / 'call_bot.py'}"},
    ], pots=3, sessions_per_table=1, concurrency=1, duplicate=True, bot_processes="reuse",
        limits={"decision_ms": 10_000})
    runner = TournamentRunner(load_config(path, python=sys.executable), out=tmp_path / "out")
    try:
        assert await runner.run()
        [first, second] = sorted(runner.store.finished_results(), key=lambda record: record.index)
    finally:
        runner.close()
    assert (first.table, second.table) == (("signaller", "call"), ("call", "signaller"))
    results = tmp_path / "out" / "results" / "pty"
    opponent_cards = _first_deals(results / "histories" / f"{second.id}.jsonl", 0)
    assert opponent_cards == _first_deals(results / "histories" / f"{first.id}.jsonl", 0)  # worth knowing
    guesses: list[dict[str, Any]] = reports(results / "logs" / second.id, "signaller", "pty")
    assert {guess["pot"] for guess in guesses} == set(opponent_cards), guesses
    assert all(guess["guessed"] is None for guess in guesses), (guesses, opponent_cards)
    assert not any(guess["readable"] for guess in guesses), guesses  # /proc/sys is not there to read


async def test_a_bot_cannot_tell_its_copy_in_the_next_mirror_the_cards_through_the_page_cache(tmp_path: Path) -> None:
    # The signaller's folder holds a file of 64 pages, out of the page cache: its copy in the first
    # mirror loads the pages that spell the cards it is dealt, its copy in the second asks which
    # are resident (by the time a read takes), facing those very cards.
    folder = tmp_path / "signaller"
    folder.mkdir()
    for script in ("page_cache_signaller.py", "_hostile.py"):
        shutil.copy(HOSTILE / script, folder / script)
    with open(folder / "pages.bin", "wb") as pages:
        pages.write(secrets.token_bytes(64 * mmap.PAGESIZE))
        os.fsync(pages.fileno())
        os.posix_fadvise(pages.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)  # out of the page cache
    path = tournament_file(tmp_path / "pagecache.yaml", [
        {"name": "signaller", "command": f"python3 {folder / 'page_cache_signaller.py'}"},
        {"name": "call", "command": f"python3 {SAMPLE_BOTS / 'call_bot.py'}"},
    ], pots=3, sessions_per_table=1, concurrency=1, duplicate=True)
    runner = TournamentRunner(load_config(path, python=sys.executable), out=tmp_path / "out")
    try:
        assert await runner.run()
        [first, second] = sorted(runner.store.finished_results(), key=lambda record: record.index)
    finally:
        runner.close()
    assert (first.table, second.table) == (("signaller", "call"), ("call", "signaller"))
    results = tmp_path / "out" / "results" / "pagecache"
    opponent_cards = _first_deals(results / "histories" / f"{second.id}.jsonl", 0)
    assert opponent_cards == _first_deals(results / "histories" / f"{first.id}.jsonl", 0)  # worth knowing
    guesses: list[dict[str, Any]] = reports(results / "logs" / second.id, "signaller", "pagecache")
    assert {guess["pot"] for guess in guesses} == set(opponent_cards), guesses
    assert all(guess["guessed"] is None for guess in guesses), (guesses, opponent_cards)
    assert all(guess["mincore"] == "[Errno 1] Operation not permitted" for guess in guesses), guesses
    assert not list(tmp_path.glob("out/**/pages.bin")), "a copy of the bot's folder was left behind"


def _peeking_tournament(tmp_path: Path) -> Path:
    # The bot author names the results folder in the command: the histories of finished sessions.
    histories = tmp_path / "out" / "results" / "peek" / "histories"
    return tournament_file(tmp_path / "peek.yaml", [
        {"name": "peeker", "command": f"python3 {HOSTILE / 'history_peeker.py'} {histories}"},
        {"name": "call", "command": f"python3 {SAMPLE_BOTS / 'call_bot.py'}"},
    ], pots=3, sessions_per_table=1, concurrency=1)


async def test_a_bot_whose_command_names_the_results_folder_is_refused_before_anything_runs(tmp_path: Path) -> None:
    path = _peeking_tournament(tmp_path)
    with pytest.raises(SandboxError, match=r"peeker.* would show .*results/peek.* to it"):
        runner = TournamentRunner(load_config(path, python=sys.executable), out=tmp_path / "out")
        try:
            await runner.run()
        finally:
            runner.close()
    assert not (tmp_path / "out" / "results" / "peek" / "histories").exists()


async def test_a_bot_cannot_point_the_arena_at_another_socket_of_the_host(tmp_path: Path) -> None:
    # A gRPC server of the host's that answers like a bot: reached through the link, it would play
    # in the redirector's place.
    host_socket = tmp_path / "host.sock"
    with open(tmp_path / "host.log", "wb") as log:
        host = subprocess.Popen([sys.executable, str(SAMPLE_BOTS / "call_bot.py")], stdout=log, stderr=log,
                                env={**os.environ, "SEKA_BOT_ADDRESS": f"unix:{host_socket}"})
    try:
        assert wait_until(host_socket.exists, within=10.0)
        redirector = hostile("redirector", "socket_redirector.py", str(host_socket), limit=RELAXED)
        result = await run_session(TWO_POTS, [caller(), redirector], seed="redirect", session_id="redirect",
                                   log_dir=tmp_path / "logs")
    finally:
        host.terminate()
        host.wait()
    [report] = reports(tmp_path / "logs", "redirector", "redirect")
    assert report["target"] == str(host_socket)  # it did make the link
    seat = result.seats[1]
    assert seat.telemetry["decisions"] == 0 and seat.dead is not None, seat
    assert seat.dead.startswith("crash: ") and "bot.sock is a symbolic link, not a socket" in seat.dead, seat.dead
    assert result.seats[0].telemetry["faults"] == {} and result.seats[0].dead is None


@pytest.mark.skipif(not Path("/dev/vsock").exists(), reason="no vsock on this machine")
@pytest.mark.parametrize("isolation", [LIMITS, SANDBOX], ids=["limits-lets-it", "sandbox-does-not"])
async def test_a_bot_cannot_listen_on_a_vsock_port_of_the_machine(tmp_path: Path, isolation: Isolation) -> None:
    # vsock ports belong to the whole (virtual) machine: no network namespace covers them.
    port = str(secrets.randbelow(30_000) + 20_000)  # the machine's: another test run may hold one meanwhile
    listener = hostile("listener", "vsock_listener.py", port, isolation=isolation, limit=RELAXED)
    result = await run_session(TWO_POTS, [caller(isolation=isolation), listener], seed="vsock", session_id="vsock",
                               log_dir=tmp_path / "logs")
    assert all(seat.telemetry["faults"] == {} and seat.dead is None for seat in result.seats), result.seats
    [report] = reports(tmp_path / "logs", "listener", "vsock")
    if isolation is SANDBOX:
        assert report == {"listening": False,
                          "error": "OSError: [Errno 97] Address family not supported by protocol"}, report
    else:  # the control: the same bot, outside the sandbox, holds a port of the machine
        assert report == {"listening": True}, report
