"""The Starlette app: the JSON API and the web pages over one `Service`."""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

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
                     exception_handlers={HTTPException: http_error})


