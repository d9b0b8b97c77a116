"""Start sample bots as real processes, the way the arena does, and wait until they serve."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from arena._proto.seka.v1 import seka_pb2_grpc as pb_grpc

REPO = Path(__file__).resolve().parents[2]
JS_BOT = REPO / "sample_bots" / "js_bot"
GO_BOT = REPO / "sample_bots" / "go_bot" / "go_bot"

BOT_COMMANDS: dict[str, list[str]] = {
    "minimal": [sys.executable, "sample_bots/minimal_bot.py"],
    "random": [sys.executable, "sample_bots/random_bot.py", "--seed", "7"],
    "call": [sys.executable, "sample_bots/call_bot.py"],
    "threshold": [sys.executable, "sample_bots/threshold_bot.py"],
    "strong": [sys.executable, "sample_bots/strong_bot.py"],
    "js": ["node", "sample_bots/js_bot/index.js"],
    "go": ["sample_bots/go_bot/go_bot"],
}

# Reconnect quickly while the bot is starting: the default first backoff is a whole second.
CHANNEL_OPTIONS = [
    ("grpc.initial_reconnect_backoff_ms", 50),
    ("grpc.min_reconnect_backoff_ms", 50),
    ("grpc.max_reconnect_backoff_ms", 200),
]


def needs_go_bot() -> None:
    """The Go sample bot is part of the suite ("any language" is tested in three): fail, not skip."""
    if not GO_BOT.is_file():
        pytest.fail("sample_bots/go_bot/go_bot is not built: run `make go_bot` (make test does)")


def skip_unless_runnable(name: str) -> None:
    if name == "go":
        needs_go_bot()
    if name == "js":
        if shutil.which("node") is None:
            pytest.skip("node is not installed")
        if not (JS_BOT / "node_modules").is_dir():
            pytest.skip("sample_bots/js_bot/node_modules is missing: run `npm install` there (make test does)")


def free_tcp_address() -> str:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{probe.getsockname()[1]}"


@dataclass
class RunningBot:
    name: str
    address: str
    process: subprocess.Popen[bytes]
    log: Path
    channel: grpc.Channel
    stub: pb_grpc.SekaBotStub
    health: health_pb2_grpc.HealthStub

    def stderr(self) -> str:
        return self.log.read_text(errors="replace")


def wait_until_serving(process: subprocess.Popen[bytes], health: health_pb2_grpc.HealthStub, log: Path,
                       *, timeout: float = 15.0) -> float:
    """Poll the health service until it reports SERVING for ""; return the seconds it took."""
    started = time.monotonic()
    while True:
        if process.poll() is not None:
            pytest.fail(f"the bot exited with {process.returncode} before serving:\n{log.read_text()}")
        try:
            reply = health.Check(health_pb2.HealthCheckRequest(service=""), timeout=0.5)
            if reply.status == health_pb2.HealthCheckResponse.SERVING:
                return time.monotonic() - started
        except grpc.RpcError:
            pass
        if time.monotonic() - started > timeout:
            pytest.fail(f"the bot did not report SERVING within {timeout} s:\n{log.read_text()}")
        time.sleep(0.02)


@contextmanager
def launched(name: str, address: str, log: Path, *, via: str = "env", extra_env: dict[str, str] | None = None,
             extra_args: Sequence[str] = ()) -> Iterator[RunningBot]:
    """Run a sample bot listening on `address`, given in SEKA_BOT_ADDRESS (`via="env"`) or as
    `--address` (`via="argv"`, with a decoy in the environment to show the flag wins).

    On exit the bot gets SIGTERM and must stop cleanly, with exit status 0, within five seconds.
    """
    env = dict(os.environ, PYTHONPATH=str(REPO), **(extra_env or {}))
    command = [*BOT_COMMANDS[name], *extra_args]
    if via == "env":
        env["SEKA_BOT_ADDRESS"] = address
    else:
        env["SEKA_BOT_ADDRESS"] = f"unix:{log.with_suffix('.decoy.sock')}"
        command += ["--address", address]
    with log.open("wb") as sink:
        process = subprocess.Popen(command, cwd=REPO, env=env, stdin=subprocess.DEVNULL, stdout=sink, stderr=sink)
    channel = grpc.insecure_channel(address, options=CHANNEL_OPTIONS)
    try:
        health = health_pb2_grpc.HealthStub(channel)
        wait_until_serving(process, health, log)
        yield RunningBot(name, address, process, log, channel, pb_grpc.SekaBotStub(channel), health)
        assert process.poll() is None, f"the bot died during the test:\n{log.read_text()}"
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=5) == 0, f"the bot did not stop cleanly on SIGTERM:\n{log.read_text()}"
    finally:
        channel.close()
        if process.poll() is None:
            process.kill()
            process.wait()
