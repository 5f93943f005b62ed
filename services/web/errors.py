"""Errors on browser routes are pages; errors on API routes stay RFC 9457 problems.

The API's exception handlers answer ``application/problem+json``. A person who mistypes a page
address (``/no/such/page``, ``/bots/abc``) should get the site's error page instead, with its
layout and Content-Security-Policy. :func:`pages_for_browser_routes` wraps the API's handlers
so that every path outside the API (:data:`API_PREFIXES`) is answered by the pages' own error
page; the API's paths keep their problem documents.
"""

from __future__ import annotations

from typing import Any

from litestar import Request, Response
from litestar.types import ExceptionHandler, ExceptionHandlersMap

from services.web.pages.error import html_error

API_PREFIXES = ("/v1", "/schema", "/health")


def is_api_path(path: str) -> bool:
    """True for the API's own paths (``/v1``, ``/v1/...``, ``/schema...``, ``/health``)."""
    return any(path == prefix or path.startswith(prefix + "/") for prefix in API_PREFIXES)


def _for_browsers(api_handler: ExceptionHandler[Any]) -> ExceptionHandler[Any]:
    def handle(request: Request[Any, Any, Any], exc: Exception) -> Response[Any]:
        if is_api_path(request.url.path):
            return api_handler(request, exc)
        return html_error(request, exc)

    return handle


def pages_for_browser_routes(api_handlers: ExceptionHandlersMap) -> ExceptionHandlersMap:
    """``api_handlers``, answering with the site's HTML error page off the API's paths."""
    return {key: _for_browsers(handler) for key, handler in api_handlers.items()}
