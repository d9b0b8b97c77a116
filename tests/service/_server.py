"""A real `seka-arena serve` process on 127.0.0.1 for the service's tests."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, redirect_stdout
from io import StringIO
from pathlib import Path
from typing import Any

import httpx

from arena.cli import main
from arena.engine import profile
from arena.isolation import Isolation
from arena.service import Author, ServiceConfig, open_service

SEKA_ARENA = Path(sys.executable).parent / "seka-arena"
_LISTENING = re.compile(r"listening on (http://\S+)")


class Server:
    """A serve process: its URL, and what it printed."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.process = process
        self.lines: list[str] = []
        self.url = ""
        self._found = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line)
            if (match := _LISTENING.search(line)) is not None and not self.url:
                self.url = match.group(1)
                self._found.set()
        self._found.set()

    def wait_listening(self, timeout: float = 60.0) -> str:
        if not self._found.wait(timeout) or not self.url:
            raise AssertionError("the server did not start:\n" + "".join(self.lines))
        return self.url

    def output(self) -> str:
        return "".join(self.lines)


@contextmanager
def running(config: Path, *, stop: signal.Signals = signal.SIGTERM,
            env: dict[str, str] | None = None, group: bool = False) -> Iterator[Server]:
    """`seka-arena serve CONFIG` on a free port of 127.0.0.1 (in `env`: this process's environment
    unless given), stopped with `stop` afterwards; `group`: in a process group of its own, as a
    terminal starts it (a Ctrl-C there is `os.killpg(pid, SIGINT)`)."""
    process = subprocess.Popen([str(SEKA_ARENA), "serve", str(config), "--bind", "127.0.0.1:0"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                               start_new_session=group)
    server = Server(process)
    try:
        server.wait_listening()
        yield server
    finally:
        if process.poll() is None:
            process.send_signal(stop)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def wait_for(what: str, check: Callable[[], Any], *, timeout: float = 120.0, every: float = 0.3,
             output: Callable[[], str] | None = None) -> Any:
    """`check()`'s first true value, polled; AssertionError naming `what` after `timeout` seconds (with
    what `output` returns then: the server's output, say)."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            shown = f"\n{output()}" if output is not None else ""
            raise AssertionError(f"timed out waiting for {what} (last: {value!r}){shown}")
        time.sleep(every)


def token(config: Path, author: str, *, organiser: bool = False) -> str:
    """A new token, from the `token` command run in this process: a process of its own costs about a second
    of start-up (0.8 s of CPU) per token, and the service tests ask for dozens (the command's own process is
    tested in test_cli_usage, test_web and test_data_folder)."""
    with redirect_stdout(StringIO()) as printed:
        status = main(["token", str(config), "--author", author, *(["--organiser"] if organiser else [])])
    assert status == 0, f"seka-arena token exited with {status}"
    return printed.getvalue().strip()


def bearer(value: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {value}"}


def post_archive(client: httpx.Client, bot: str, data: bytes, token_value: str | None) -> httpx.Response:
    return client.post(f"/api/bots/{bot}/versions", headers=bearer(token_value) if token_value else {},
                       files={"archive": (f"{bot}.tar.gz", data, "application/gzip")})


CUP = """\
data: data
isolation: none
profile: %s
table: {pots: 3}
ladder: {enabled: false}
tournaments:
  - {name: cup, cron: "0 2 29 2 *"}
"""
"""A service file (its profile left as `%s`) with the ladder off and one scheduled tournament, `cup`."""


def served(folder: Path, text: str, rules_profile: str, bots: dict[str, bytes]) -> Path:
    """A service file `folder/service.yaml` (`text`, its `%s` the profile) with a data folder `folder/data`
    where `bots` are accepted already (the check is not under test), each its own author's (a rated
    table seats two authors); the file's path, for `running`."""
    service = open_service(ServiceConfig(data=folder / "data", isolation=Isolation.NONE, rules=profile(rules_profile)))
    for name, archive in bots.items():
        version = service.registry.submit(Author(f"author-{name}", organiser=False), name, archive)
        service.store.finish_check(version.id, accepted=True, report="not checked: a served test", stderr="")
    service.store.close()
    config = folder / "service.yaml"
    config.write_text(text % rules_profile)
    return config


def children(pid: int) -> list[int]:
    """The processes `pid`'s threads started, as /proc lists them now."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        try:
            found += [int(child) for child in task.read_text().split()]
        except OSError:  # the thread ended meanwhile
            pass
    return found


def command_line(pid: int) -> str:
    """`pid`'s command line, words joined by spaces ("" once it is gone)."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""
