"""Every test has a time limit (pytest-timeout, `timeout` in pyproject.toml), trio runs included.

pytest-timeout's signal method fails a test in place by raising from a SIGALRM handler. Raised
inside a running trio loop, that leaves trio half torn down (the next trio test then fails with
"Attempted to call run() from inside a run()") and the test's bot processes running. So while a
test runs, every `trio.run` in this process (pytest-trio's, and the CLI's in tests that call
`main`) runs under a cancel scope that the alarm cancels instead: every nursery and bot context
manager cleans up as after a deadline, and the test then fails with the timeout message. Outside
trio the alarm fails the test in place, as pytest-timeout does. Whatever ignores both (a call
blocked outside Python, a trio loop stuck in a blocking call) gets `_GRACE` more seconds, then the
run ends as pytest-timeout's thread method ends it: every thread's stack printed and the process
exited with status 1, so CI fails instead of stalling.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Awaitable, Callable
from types import FrameType
from typing import Any

import pytest
import pytest_timeout  # type: ignore[import-untyped]
import trio

_GRACE = 30.0

_ORIGINAL_RUN = trio.run
# The trio runs in progress and whether the current test's alarm has gone off. Only appends,
# removals and reads of whole objects: the alarm handler may interrupt the main thread anywhere.
_ACTIVE: list[tuple[trio.lowlevel.TrioToken, trio.CancelScope]] = []
_FIRED = threading.Event()
_LIMIT: list[float] = [0.0]


def _message() -> str:
    return f"{pytest_timeout.PYTEST_FAILURE_MESSAGE % _LIMIT[0]}: the trio run was cancelled"


def _run_under_deadline(async_fn: Callable[..., Awaitable[Any]], *args: Any, **options: Any) -> Any:
    """`trio.run`, cancelled as a whole when the test's time is up."""

    async def guarded() -> Any:
        with trio.CancelScope() as scope:
            entry = (trio.lowlevel.current_trio_token(), scope)
            _ACTIVE.append(entry)
            try:
                return await async_fn(*args)
            except BaseException as error:
                if _FIRED.is_set():
                    raise pytest.fail.Exception(_message()) from error
                raise
            finally:
                _ACTIVE.remove(entry)
        pytest.fail(_message())  # only reached when the scope swallowed the cancellation

    result = _ORIGINAL_RUN(guarded, **options)
    if _FIRED.is_set():
        pytest.fail(_message())  # the code under test caught the cancellation and returned
    return result


def pytest_configure(config: pytest.Config) -> None:
    # Before collection, so that pytest-trio, which reads trio.run when it marks the async tests,
    # runs them through the guard too.
    trio.run = _run_under_deadline  # type: ignore[assignment]  # same call, but untyped generics


def pytest_unconfigure(config: pytest.Config) -> None:
    trio.run = _ORIGINAL_RUN


@pytest.hookimpl(tryfirst=True)
def pytest_timeout_set_timer(item: pytest.Item, settings: Any) -> bool | None:
    if settings.method != "signal" or threading.current_thread() is not threading.main_thread():
        return None  # pytest-timeout's own way
    _FIRED.clear()
    _LIMIT[0] = settings.timeout
    finished = threading.Event()

    def on_alarm(signum: int, frame: FrameType | None) -> None:
        __tracebackhide__ = True
        _FIRED.set()
        runs = list(_ACTIVE)
        for token, scope in runs:
            try:
                token.run_sync_soon(scope.cancel)  # signal-safe
            except trio.RunFinishedError:
                pass
        if not runs:
            pytest_timeout.timeout_sigalrm(item, settings)  # prints the other threads' stacks, fails

    def backstop() -> None:
        if not finished.wait(settings.timeout + _GRACE):
            pytest_timeout.timeout_timer(item, settings)  # prints every stack, then os._exit(1)

    watcher = threading.Thread(target=backstop, name=f"timeout backstop {item.nodeid}", daemon=True)

    def cancel() -> None:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, signal.SIG_DFL)
        finished.set()
        watcher.join()

    item.cancel_timeout = cancel  # type: ignore[attr-defined]  # where pytest-timeout looks for it
    signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, settings.timeout)
    watcher.start()
    return True
