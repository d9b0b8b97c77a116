"""Calling grpcio from trio without blocking the event loop.

grpcio has no trio support. We start the call with the multicallable's `future()` and let its done
callback wake the waiting task through the trio token; the event loop never blocks. Unlike
`trio.to_thread`, a trio cancellation cancels the RPC on the wire at once.
"""

from __future__ import annotations

from typing import Any, TypeVar

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
