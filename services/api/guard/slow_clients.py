"""Slow and vanishing clients: a deadline on the request body, a disconnect that is not a 500.

The ASGI server delivers a request once its head has arrived (``services.api.serve`` bounds
that wait); the body then arrives in chunks through ``receive()``. This middleware gives the
whole body :data:`BODY_TIMEOUT_S` from the moment the handler asks for it:

* a body that is not complete by then is a **408** problem sent with ``Connection: close``, so
  a client that drips bytes or stops half way never holds a connection longer than that;
* a client that disconnects before its body is complete is logged at INFO as what it is (no
  traceback, no 500; Litestar alone raises an ``InternalServerException``, which was logged
  as ``ERROR ... HTTP 500``). Nobody is left to read an answer.

After the body is complete ``receive()`` is passed through untouched (an app may wait on it
for the disconnect).
"""

from __future__ import annotations

import asyncio
import logging

from litestar.enums import ScopeType
from litestar.exceptions import HTTPException
from litestar.types import ASGIApp, Receive, ReceiveMessage, Scope, Send

BODY_TIMEOUT_S = 15.0

logger = logging.getLogger("services.api")


class BodyTimeout(HTTPException):
    """The request body did not arrive within :data:`BODY_TIMEOUT_S`."""

    status_code = 408


class ClientDisconnected(HTTPException):
    """The client closed the connection before its body was complete (nobody gets the answer)."""

    status_code = 400


def body_deadline(app: ASGIApp) -> ASGIApp:
    """Litestar middleware (a callable taking the next ASGI app): see the module's docstring."""

    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP:
            await app(scope, receive, send)
            return
        timeout_s = BODY_TIMEOUT_S  # read at each request (tests shorten it)
        loop = asyncio.get_running_loop()
        deadline: float | None = None
        complete = False

        async def guarded() -> ReceiveMessage:
            nonlocal deadline, complete
            if complete:
                return await receive()
            if deadline is None:
                deadline = loop.time() + timeout_s
            try:
                async with asyncio.timeout_at(deadline):
                    message = await receive()
            except TimeoutError:
                logger.info(
                    "request body from %s not complete after %.0f s: 408 (%s %s)",
                    _client(scope),
                    timeout_s,
                    scope.get("method"),
                    scope["path"],
                )
                raise BodyTimeout(
                    detail=f"the request body did not arrive within {timeout_s:.0f} s",
                    headers={"Connection": "close"},
                ) from None
            if message["type"] == "http.disconnect":
                logger.info(
                    "client %s closed the connection before sending the whole body (%s %s)",
                    _client(scope),
                    scope.get("method"),
                    scope["path"],
                )
                raise ClientDisconnected(detail="the client closed the connection")
            if not message.get("more_body", False):
                complete = True
            return message

        await app(scope, guarded, send)

    return middleware


def _client(scope: Scope) -> str:
    client = scope.get("client")
    return f"{client[0]}:{client[1]}" if client else "unknown"
