"""Calling grpcio from trio without blocking the event loop.

grpcio has no trio support. We start the call with the multicallable's `future()` and let its done
callback wake the waiting task through the trio token; the event loop never blocks. Unlike
`trio.to_thread`, a trio cancellation cancels the RPC on the wire at once.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Generic, TypeVar

import grpc
import trio

_Request = TypeVar("_Request")
_Reply = TypeVar("_Reply")


async def call_unary(method: grpc.UnaryUnaryMultiCallable[_Request, _Reply], request: _Request, *,
                     timeout: float) -> _Reply:
    """Send one unary call and wait for its reply without blocking trio.

    `timeout` becomes the gRPC deadline; the caller's cancel scopes also cancel the call.

    Raises:
        grpc.RpcError: the call failed; `.code()` says how.
    """
    token = trio.lowlevel.current_trio_token()
    task = trio.lowlevel.current_task()
    future = method.future(request, timeout=timeout)

    def wake(_: grpc.Future[_Reply]) -> None:
        try:
            token.run_sync_soon(trio.lowlevel.reschedule, task)
        except trio.RunFinishedError:  # the run ended (interrupted): nobody is waiting any more
            pass

    cancelled: list[Any] = []

    def abort(raise_cancel: Any) -> trio.lowlevel.Abort:
        # Cancelling the future ends the RPC on the wire; its done callback then wakes us, and we
        # raise the Cancelled that trio handed us.
        cancelled.append(raise_cancel)
        future.cancel()  # type: ignore[no-untyped-call]  # grpc-stubs: RpcContext.cancel is unannotated
        return trio.lowlevel.Abort.FAILED

    future.add_done_callback(wake)
    await trio.lowlevel.wait_task_rescheduled(abort)
    if cancelled:
        cancelled[0]()
    return future.result()


class PendingCall(Generic[_Request, _Reply]):
    """A unary call in flight, for a caller that waits under deadlines it may move, and judges the
    reply by when it arrived rather than by when trio got round to it.

    `arrived` is taken in grpcio's thread as the call completes (reply or error): a loop that is
    busy when the reply comes in does not make it late.
    """

    def __init__(self, method: grpc.UnaryUnaryMultiCallable[_Request, _Reply], request: _Request, *,
                 timeout: float) -> None:
        self._token = trio.lowlevel.current_trio_token()
        self._waiter: trio.lowlevel.Task | None = None
        self.arrived: float | None = None
        """time.monotonic() when the call completed, None while it is in flight."""
        self.thread: int | None = None
        """The native id of grpcio's thread that took the call in (the channel's own)."""
        self._future = method.future(request, timeout=timeout)
        self._future.add_done_callback(self._done)

    def _done(self, _: grpc.Future[_Reply]) -> None:  # in grpcio's thread (or at once, if already done)
        self.arrived = time.monotonic()
        self.thread = threading.get_native_id()
        try:
            self._token.run_sync_soon(self._wake)
        except trio.RunFinishedError:  # the run ended (interrupted): nobody is waiting any more
            pass

    def _wake(self) -> None:
        if self._waiter is not None:
            trio.lowlevel.reschedule(self._waiter)
            self._waiter = None

    async def wait(self, deadline: float) -> bool:
        """Wait until the call completes or trio's clock reaches `deadline`; whether it completed."""
        if self.arrived is None:
            with trio.CancelScope(deadline=deadline):
                self._waiter = trio.lowlevel.current_task()

                def abort(_: Any) -> trio.lowlevel.Abort:
                    self._waiter = None
                    return trio.lowlevel.Abort.SUCCEEDED

                await trio.lowlevel.wait_task_rescheduled(abort)
        return self.arrived is not None

    def cancel(self) -> None:
        """End the call on the wire (the bot sees CANCELLED)."""
        self._future.cancel()  # type: ignore[no-untyped-call]

    def result(self) -> _Reply:
        """The reply of a completed call.

        Raises:
            grpc.RpcError: the call failed; `.code()` says how.
        """
        return self._future.result()
