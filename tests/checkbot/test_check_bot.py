"""`seka-arena check-bot` against every sample bot and against bots broken on purpose."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BROKEN = Path(__file__).resolve().parent / "bots"


def _check(*command: str, decision_ms: int = 1000) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena", "check-bot", "--decision-ms", str(decision_ms), "--", *command],
        cwd=ROOT, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("script", ["random_bot.py", "call_bot.py", "threshold_bot.py", "strong_bot.py",
                                    "minimal_bot.py"])
def test_every_python_sample_bot_conforms(script: str) -> None:
    result = _check("python3", f"sample_bots/{script}")
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert not [line for line in lines if line.startswith("FAIL")]
    assert any("svara offer (price 11/2" in line for line in lines)
    assert any("svara offer (price 39/4" in line for line in lines)
    assert sum(line.startswith("PASS  turn") for line in lines) >= 6


def test_the_javascript_sample_bot_conforms() -> None:
    if shutil.which("node") is None or not (ROOT / "sample_bots/js_bot/node_modules").is_dir():
        pytest.fail("node and sample_bots/js_bot/node_modules are needed: run `make test`, which installs them")
    result = _check("node", "sample_bots/js_bot/index.js")
    assert result.returncode == 0, result.stdout + result.stderr


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
