"""`seka-arena check-bot` against every sample bot and against bots broken on purpose."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from arena.isolation import Isolation, isolation_problem

ROOT = Path(__file__).resolve().parents[2]
BROKEN = Path(__file__).resolve().parent / "bots"


def _check(*command: str, decision_ms: int = 1000, start_ms: int = 10_000,
           isolation: str | None = None) -> subprocess.CompletedProcess[str]:
    level = [] if isolation is None else ["--isolation", isolation]
    return _check_bot("--decision-ms", str(decision_ms), "--start-ms", str(start_ms), *level, "--", *command,
                      timeout=120)


def _check_bot(*arguments: str, timeout: int) -> subprocess.CompletedProcess[str]:
    """`seka-arena check-bot` in a subprocess, the bot's logs in a folder removed afterwards (by default
    check-bot leaves them in a new temporary folder for its user to read)."""
    with tempfile.TemporaryDirectory(prefix="seka-check-test-") as logs:
        return subprocess.run([sys.executable, "-m", "arena", "check-bot", "--logs", logs, *arguments],
                              cwd=ROOT, capture_output=True, text=True, timeout=timeout)


def _conforms(result: subprocess.CompletedProcess[str]) -> None:
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert not [line for line in lines if not line.startswith(("PASS", "--", "conforms"))], result.stdout
    assert any("svara offer (price 11/2" in line for line in lines)
    assert any("svara offer (price 39/4" in line for line in lines)
    assert sum(line.startswith("PASS  turn") for line in lines) >= 6
    assert lines[-2].startswith("PASS  stop: ended "), result.stdout  # it stopped on SIGTERM


def _needs_node() -> None:
    if shutil.which("node") is None or not (ROOT / "sample_bots/js_bot/node_modules").is_dir():
        pytest.fail("node and sample_bots/js_bot/node_modules are needed: run `make test`, which installs them")


@pytest.mark.parametrize("script", ["random_bot.py", "call_bot.py", "threshold_bot.py", "strong_bot.py",
                                    "minimal_bot.py"])
def test_every_python_sample_bot_conforms(script: str) -> None:
    _conforms(_check("python3", f"sample_bots/{script}"))  # at the default level: sandbox where there is one


def test_the_javascript_sample_bot_conforms() -> None:
    _needs_node()
    _conforms(_check("node", "sample_bots/js_bot/index.js"))


@pytest.mark.parametrize("isolation", [level.value for level in Isolation])
@pytest.mark.parametrize("command", [("python3", "sample_bots/minimal_bot.py"),
                                     ("node", "sample_bots/js_bot/index.js")], ids=["python", "javascript"])
def test_sample_bots_conform_at_every_isolation_level(command: tuple[str, ...], isolation: str) -> None:
    if (problem := isolation_problem(Isolation(isolation))) is not None:
        pytest.skip(problem)
    if command[0] == "node":
        _needs_node()
    _conforms(_check(*command, isolation=isolation))


def test_a_health_service_that_knows_only_the_whole_server_passes_with_a_warning() -> None:
    result = _check("python3", "tests/match/bots/raw_bot.py", "--mode", "only-root", isolation="none")
    assert result.returncode == 0, result.stdout + result.stderr
    (ready,) = [line for line in result.stdout.splitlines() if "ready" in line]
    assert ready.startswith("WARN  ready: health SERVING after ")
    assert ready.endswith(' for "" only: the health service does not know "seka.v1.SekaBot" (NOT_FOUND); '
                          'set both "" and "seka.v1.SekaBot" to SERVING, as docs/protocol.md asks')


def test_a_bot_that_ignores_sigterm_is_reported_killed_after_the_grace_period() -> None:
    result = _check("python3", str(BROKEN / "stubborn_bot.py"), isolation="none")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "WARN  stop: still running 1 s after SIGTERM: killed by SIGKILL" in result.stdout


def test_a_bot_without_a_health_service_fails_readiness_saying_so() -> None:
    result = _check("python3", "tests/match/bots/raw_bot.py", "--mode", "never-ready", start_ms=3000, isolation="none")
    assert result.returncode == 1
    assert ("FAIL  ready: timeout: not ready within 3s: no health service: "
            "grpc.health.v1.Health/Check is not implemented") in result.stdout


def test_illegal_amounts_fail_with_the_amount_and_the_bounds() -> None:
    result = _check("python3", str(BROKEN / "illegal_bot.py"))
    assert result.returncode == 1
    fails = [line for line in result.stdout.splitlines() if line.startswith("FAIL")]
    assert fails and all("turn" in line for line in fails)
    assert "illegal bet 11: seat 1 may pay 1 to 10, not 11" in result.stdout


def test_a_late_bot_fails_with_the_deadline() -> None:
    result = _check("python3", str(BROKEN / "sleepy_bot.py"), decision_ms=300)
    assert result.returncode == 1
    assert ("FAIL  turn (2 in the deal, opening, no previous bet): timeout: Act not answered within 300 ms"
            in result.stdout)


def test_a_bot_that_crashes_on_a_svara_offer_fails_with_its_exit_status_and_stderr() -> None:
    result = _check("python3", str(BROKEN / "svara_crash_bot.py"))
    assert result.returncode == 1
    fail = next(line for line in result.stdout.split("\n") if line.startswith("FAIL"))
    assert fail.startswith("FAIL  svara offer (price 11/2, frozen pot 11): crash:")
    assert "exit status 7" in result.stdout
    assert "cannot handle a svara at 11/2" in result.stdout


def test_a_bot_that_never_starts_fails_the_readiness_check(tmp_path: Path) -> None:
    result = _check("python3", "-c", "import sys; print('no luck', file=sys.stderr); sys.exit(3)")
    assert result.returncode == 1
    assert "FAIL  ready: crash: exited before it was ready (exit status 3)" in result.stdout
    assert "no luck" in result.stdout


# ------------------------------------------------------------------ other profiles

DARK_SPLIT = ("--profile", "georgian", "--dark", "true", "--tie", "split", "--deck", "32")


def _check_profile(options: tuple[str, ...], *command: str) -> subprocess.CompletedProcess[str]:
    # A generous limit: the strong bot values a new deck's hands at its first decision, and the
    # machine may be busy (speed is measured in benchmarks/, not here).
    return _check_bot("--isolation", "none", "--decision-ms", "3000", *options, "--", *command, timeout=180)


def _conforms_to_profile(result: subprocess.CompletedProcess[str]) -> list[str]:
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert not [line for line in lines if not line.startswith(("PASS", "--", "conforms"))], result.stdout
    return lines


@pytest.mark.parametrize("command", [("python3", "sample_bots/random_bot.py"), ("python3", "sample_bots/strong_bot.py"),
                                     ("node", "sample_bots/js_bot/index.js")], ids=["random", "strong", "javascript"])
def test_sample_bots_conform_to_dark_play_and_split_ties(command: tuple[str, ...]) -> None:
    if command[0] == "node":
        _needs_node()
    lines = _conforms_to_profile(_check_profile(DARK_SPLIT, *command))
    assert lines[0] == "-- rules: georgian (deck 32, tie split, dark true): ante 1, opening stake 1, payments up to " \
                       "10, 8 pots a session, at most 200 actions a deal"  # the report says which game it played
    titles = [line for line in lines if line.startswith("-- scenario")]
    assert [title.split(": ", 1)[1] for title in titles] == [
        "heads-up: opening, facing a payment, a comparison", "three players, a tie: split",
        "dark play: a dark turn without cards, a dark bet", "dark play: look, then act"]
    assert sum("turn (cards not seen yet, may bet dark 1 to 5, may look)" in line for line in lines) >= 3
    assert any("carried notices: look" in line for line in lines)  # asked again once it looked
    assert any("carried notices: showdown, split" in line for line in lines)


def test_a_bot_for_plain_georgian_only_conforms_there_but_not_to_dark_play() -> None:
    bot = ("python3", str(BROKEN / "profile_blind_bot.py"), "--mode", "bet")
    assert _check_profile(("--profile", "georgian"), *bot).returncode == 0
    result = _check_profile(DARK_SPLIT, *bot)
    assert result.returncode == 1, result.stdout
    assert ("FAIL  turn (cards not seen yet, may bet dark 1 to 5, may look): illegal bet 0: seat 1 may not bet now"
            in result.stdout), result.stdout


def test_a_bot_that_reads_cards_it_has_not_seen_crashes_on_the_dark_turn() -> None:
    result = _check_profile(DARK_SPLIT, "python3", str(BROKEN / "profile_blind_bot.py"), "--mode", "cards")
    assert result.returncode == 1, result.stdout
    assert "FAIL  turn (cards not seen yet, may bet dark 1 to 5, may look): crash: " in result.stdout
    assert "ValueError: not enough values to unpack" in result.stdout


def test_an_option_the_profile_does_not_have_is_refused() -> None:
    result = _check_profile(("--profile", "georgian", "--wild", "black7"), "python3", "sample_bots/call_bot.py")
    assert result.returncode != 0
    assert "profile 'georgian' has no option 'wild'" in result.stdout + result.stderr


@pytest.mark.parametrize(("options", "titles"), [
    (("--profile", "seka36", "--dark", "true"), ["heads-up", "a tie", "dark play", "dark play", "a stack too short"]),
    (("--profile", "svara32"), ["heads-up", "a tie", "a stack too short"]),
    (("--profile", "classic", "--open", "multiway", "--cards", "2"), ["heads-up", "three players", "multiway open"]),
], ids=["seka36-dark", "svara32", "classic-multiway-two-cards"])
def test_the_threshold_bot_conforms_to_each_profiles_edge_cases(options: tuple[str, ...], titles: list[str]) -> None:
    lines = _conforms_to_profile(_check_profile(options, "python3", "sample_bots/threshold_bot.py"))
    scenarios = [line.split(": ", 1)[1] for line in lines if line.startswith("-- scenario")]
    assert len(scenarios) == len(titles) and all(
        scenario.startswith(title) for scenario, title in zip(scenarios, titles, strict=True)), scenarios
    if "seka36" in options or "svara32" in options:
        assert any("short of chips" in line and line.startswith("PASS  turn") for line in lines)
        assert any("carried notices: short of chips" in line for line in lines)
        assert not any("returned chips" in line for line in lines)  # a raise is always answerable in full
    if "classic" in options:
        assert any("may open against seat" in line for line in lines)


def test_a_bot_for_plain_georgian_only_bets_illegally_in_a_stake_profile() -> None:
    result = _check_profile(("--profile", "seka21"), "python3", str(BROKEN / "profile_blind_bot.py"), "--mode", "bet")
    assert result.returncode == 1, result.stdout
    failure = "FAIL  turn (2 in the deal, opening, no previous bet, stake 1): illegal bet 0: "
    assert failure in result.stdout, result.stdout


MIXES = [
    ("negative", "malformed reply: a malformed mix: entry 1 has a negative probability -0.5"),
    ("sum", "malformed reply: a malformed mix: the probabilities sum to 0.75, not 1 (within 1e-09)"),
    ("nan", "malformed reply: a malformed mix: entry 1 has probability nan: not a finite number"),
    ("inf", "malformed reply: a malformed mix: entry 1 has probability inf: not a finite number"),
    ("duplicate", "malformed reply: a malformed mix: entry 2 repeats Fold(): each action may appear once"),
    ("too-many", "malformed reply: a mix of 65 entries; at most 64 are allowed"),
    ("empty", "malformed reply: a malformed mix: a mix without entries"),
    ("illegal", "illegal mix fold 0.5, bet 11 0.5: entry 2 of the mix: "),
]


@pytest.mark.parametrize("mode, reason", MIXES, ids=[mode for mode, _ in MIXES])
def test_a_malformed_distribution_fails_each_turn_with_what_is_wrong(mode: str, reason: str) -> None:
    result = _check("python3", "tests/match/bots/mixing_bot.py", "--mode", mode, isolation="none")
    assert result.returncode == 1, result.stdout + result.stderr
    turns = [line for line in result.stdout.splitlines() if line.startswith(("PASS  turn", "FAIL  turn"))]
    failed = [line for line in turns if line.startswith("FAIL")]
    assert failed and reason in failed[0], result.stdout
    assert all(line.startswith("FAIL") for line in turns), result.stdout


def test_a_well_formed_distribution_passes_and_is_described() -> None:
    result = _check("python3", "tests/match/bots/mixing_bot.py", "--mode", "valid", isolation="none")
    assert result.returncode == 0, result.stdout + result.stderr
    assert any(line.startswith("PASS  turn (2 in the deal, opening, no previous bet): mix fold 0.25, bet 1 0.75, ")
               for line in result.stdout.splitlines()), result.stdout
