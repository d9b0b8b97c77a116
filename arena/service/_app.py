"""The Starlette app: the JSON API and the web pages over one `Service`."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..storage import DiskFullError, is_disk_full
from . import _api, _pages
from ._service import Service


def build_app(service: Service) -> Starlette:
    """The ASGI app serving `service` (run it under Hypercorn's trio worker, or trio's TestClient)."""

    async def http_error(request: Request, error: Exception) -> Response:
        assert isinstance(error, HTTPException)
        if request.url.path.startswith("/api/"):
            response: Response = JSONResponse({"error": error.detail}, status_code=error.status_code,
                                              headers=error.headers)
        else:
            response = await _pages.error_page(service, request, error)
        if "content-length" in request.headers or "transfer-encoding" in request.headers:
            # A request refused with its body perhaps unread (a 401 upload): the server may drop the rest
            # with the connection, so the client must not send its next request down it (seen as "Server
            # disconnected without sending a response" on the client's next request).
            response.headers["Connection"] = "close"
        return response

    return Starlette(routes=[*_api.routes(service), *_pages.routes(service)],
                     exception_handlers={HTTPException: http_error},
                     middleware=[Middleware(SameSiteOnly, refuse=http_error),
                                 Middleware(DiskFullAnswer, service=service, refuse=http_error)])


class SameSiteOnly:
    """Refuses (403, on the error page or as the API's JSON) a state change another site may have forged
    (`_api.cross_site_problem`), before any route reads it."""

    def __init__(self, app: ASGIApp, refuse: Callable[[Request, Exception], Awaitable[Response]]) -> None:
        self.app = app
        self.refuse = refuse

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            request = Request(scope)
            if (problem := _api.cross_site_problem(request)) is not None:
                response = await self.refuse(request, HTTPException(403, problem))
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)




DISK_FULL = ("insufficient storage: the service's disk is full, so nothing of this request was stored; "
             "try again once the organisers have freed space")
"""The reason a request that met a full disk is given (507), whatever it was writing."""


class DiskFullAnswer:
    """Answers 507 Insufficient Storage with the reason (JSON under /api/, else the error page) to a
    request whose writes met a full disk: the service's fault, never a 422 blaming an upload nor a
    500 with a traceback. The episode is logged once (`Service.disk_full`), until a write succeeds."""

    def __init__(self, app: ASGIApp, service: Service,
                 refuse: Callable[[Request, Exception], Awaitable[Response]]) -> None:
        self.app = app
        self.service = service
        self.refuse = refuse

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        status = 0

        async def watched(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, watched)
        except Exception as error:
            full = disk_full_in(error)
            if status or full is None:
                raise
            self.service.disk_full.met(full, f"answering {scope['method']} {scope['path']}")
            response = await self.refuse(Request(scope), HTTPException(507, DISK_FULL))
            await response(scope, receive, send)
            return
        if scope["method"] not in ("GET", "HEAD") and 200 <= status < 300:
            self.service.disk_full.cleared()  # a state change was stored: the disk takes writes again


def disk_full_in(error: BaseException) -> BaseException | None:
    """The full-disk error in `error` (itself, what caused it, or a leaf of an exception group), or None."""
    if isinstance(error, BaseExceptionGroup):
        return next((found for leaf in error.exceptions if (found := disk_full_in(leaf)) is not None), None)
    return error if isinstance(error, DiskFullError) or is_disk_full(error) else None
