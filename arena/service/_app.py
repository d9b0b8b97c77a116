"""The Starlette app: the JSON API and the web pages over one `Service`."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from . import _api, _pages
from ._service import Service


def build_app(service: Service) -> Starlette:
    """The ASGI app serving `service` (run it under Hypercorn's trio worker, or trio's TestClient)."""

    async def http_error(request: Request, error: Exception) -> Response:
        assert isinstance(error, HTTPException)
        if request.url.path.startswith("/api/"):
            return JSONResponse({"error": error.detail}, status_code=error.status_code, headers=error.headers)
        return await _pages.error_page(service, request, error)

    return Starlette(routes=[*_api.routes(service), *_pages.routes(service)],
                     exception_handlers={HTTPException: http_error},
                     middleware=[Middleware(SameSiteOnly, refuse=http_error)])


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


