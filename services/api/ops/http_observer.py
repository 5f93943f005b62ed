"""Every HTTP request counted and timed, by method, route TEMPLATE and status, with a request id.

An ASGI wrapper around the app's handler (outside Litestar's routing, so a 404 for a path no
route has, and a 500, are counted too). The route is the template the router matched
(``/v1/bots/{bot_id}``), never the raw path: a scan of random paths adds no series
(``unmatched`` is one label value). The latency is from the request's arrival to its first
byte (the ``http.response.start`` message): a stream's whole life would say nothing about
the server's speed.

The request id is ``X-Request-ID`` when the client (a reverse proxy: nginx's
``$request_id``) sends a well-formed one (1-64 letters, digits, ``.``, ``_``, ``-``), else 16
random hex digits; it is sent back in ``X-Request-ID`` and is on every log line the request
causes (:data:`services.base.log_format.REQUEST_ID`).
"""

from __future__ import annotations

import re
import secrets
import time
from typing import Any

from litestar.types import ASGIApp, Message, Receive, Scope, Send

from services.base.log_format import REQUEST_ID
from services.metrics.catalog import HTTP_DURATION, HTTP_REQUESTS

METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
UNMATCHED = "unmatched"
CLIENT_GONE = "499"
"""The status counted when the client went away before any answer (nginx's convention)."""
_REQUEST_ID = re.compile(rb"^[A-Za-z0-9._-]{1,64}$")
HEADER = b"x-request-id"


def incoming_request_id(scope: Scope) -> str | None:
    for name, value in scope.get("headers", ()):
        if name == HEADER:
            return value.decode("ascii") if _REQUEST_ID.match(value) else None
    return None


def route_of(scope: Scope) -> str:
    template = scope.get("path_template")
    return template if isinstance(template, str) and template else UNMATCHED


def method_of(scope: Scope) -> str:
    method = scope.get("method", "")
    return method if method in METHODS else "other"


class HttpObserver:
    """The wrapper; ``app`` is the app's ASGI handler (``Litestar.asgi_handler``)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":  # type: ignore[comparison-overlap]
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        request_id = incoming_request_id(scope) or secrets.token_hex(8)
        status: str | None = None
        method = method_of(scope)

        async def observed(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start" and status is None:
                code = int(message["status"])
                status = str(code) if 100 <= code <= 599 else "other"
                HTTP_DURATION.labels(method, route_of(scope)).observe(time.perf_counter() - started)
                headers: list[Any] = [*message.get("headers", ()), (HEADER, request_id.encode())]
                message = {**message, "headers": headers}
            await send(message)

        token = REQUEST_ID.set(request_id)
        try:
            await self.app(scope, receive, observed)
        except BaseException:
            if status is None:
                status = "500"
            raise
        finally:
            REQUEST_ID.reset(token)
            if status is None:  # no answer began: the client left first
                status = CLIENT_GONE
                HTTP_DURATION.labels(method, route_of(scope)).observe(time.perf_counter() - started)
            HTTP_REQUESTS.labels(method, route_of(scope), status).inc()


def observe_http(app: Any) -> None:
    """Wrap a Litestar app's handler in :class:`HttpObserver` (once)."""
    if not isinstance(app.asgi_handler, HttpObserver):
        app.asgi_handler = HttpObserver(app.asgi_handler)
