"""The API process's caps on connections and on requests in flight, with live streams apart
(issue 33, 10).

uvicorn's ``limit_concurrency`` (512) counted every connection and every running request
together, so two things broke: slow request bodies from 17 addresses (32 connections each)
filled it and another address was refused (5 of 75); and live streams (each a connection and a
running request for as long as it is watched) filled it at about 510, so the documented
``TRUCO_STREAMS_TOTAL`` of 2,000 could never be reached. Now, per API process:

* **connections**: at most :func:`connections_total` open (``TRUCO_STREAMS_TOTAL`` + 1,024: room
  for every stream and as many connections again for requests, keep-alive and heads); past it a
  new connection gets a 503 and is closed before anything is read;
* **requests in flight**: at most :data:`MAX_REQUESTS` (512) being handled at once, *streams
  and long polls not counted*: a handler that turns into a stream (``/v1/matches/{id}/stream``,
  ``/v1/tournaments/{id}/stream``, ``/v1/play/{id}/stream``) or waits long for a change
  (``GET /v1/play/{id}?after=``) says so with :func:`held_long`, and leaves the count; past the
  cap a new request gets a 503 problem with ``Retry-After`` at once;
* **streams**: ``TRUCO_STREAMS_TOTAL`` and ``TRUCO_STREAMS_PER_ADDRESS``, counted by the app
  (:mod:`services.api.guard.stream_caps`), reachable now.

And a slow body counts where a slow head does: a connection whose request body has not all
arrived is an unfinished request of its address (``TRUCO_UNFINISHED_HEADS_PER_ADDRESS``, 8:
``services.api.serve``), so 17 addresses hold at most 136 of the 512.

Without the server (the app in process, tests) there is no count and :func:`held_long` does
nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import msgspec
from litestar.enums import ScopeType
from litestar.types import (
    ASGIApp,
    HTTPResponseBodyEvent,
    HTTPResponseStartEvent,
    Receive,
    Scope,
    Send,
)

from services.api.problems import PROBLEM_JSON, TYPE_BASE, Problem

MAX_REQUESTS: Final = 512
"""Requests one API process handles at once, streams and long polls apart."""
CONNECTION_ROOM: Final = 2 * MAX_REQUESTS
"""Connections beyond the streams': requests, keep-alive, heads."""
EXTENSION: Final = "truco.held_long"
RETRY_AFTER_S: Final = 1

logger = logging.getLogger("services.api")


def connections_total(streams_total: int) -> int:
    """The process's cap on open connections: every stream, and room for requests."""
    return streams_total + CONNECTION_ROOM


@dataclass(slots=True)
class ProcessCaps:
    """Connections open and requests in flight in one server (``None``: that cap is off)."""

    connections: int | None
    requests: int | None
    open: int = 0
    in_flight: int = 0
    held: int = 0
    """Requests that said they are held long (streams, long polls), in flight now."""
    refused: int = 0

    def admit_connection(self) -> bool:
        if self.connections is not None and self.open >= self.connections:
            self.refused += 1
            return False
        self.open += 1
        return True

    def release_connection(self) -> None:
        self.open -= 1


class _Request:
    """One request's place in the count, handed to the app as the ``truco.held_long``
    extension."""

    __slots__ = ("caps", "counted", "held")

    def __init__(self, caps: ProcessCaps) -> None:
        self.caps = caps
        self.counted = True
        self.held = False

    def hold_long(self) -> None:
        if self.counted:
            self.counted = False
            self.held = True
            self.caps.in_flight -= 1
            self.caps.held += 1

    def done(self) -> None:
        if self.counted:
            self.counted = False
            self.caps.in_flight -= 1
        elif self.held:
            self.held = False
            self.caps.held -= 1


def counted_app(
    app: ASGIApp, caps: ProcessCaps, closed: Callable[[], bool] = lambda: False
) -> ASGIApp:
    """``app`` behind the process's cap on requests in flight (HTTP only). ``closed()``: the
    connection was refused or lost before its request began (a slow body over its address's
    cap is closed as soon as its head is parsed): nothing to count, nobody to answer."""

    async def counted(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP:
            await app(scope, receive, send)
            return
        if closed():
            return
        if caps.requests is not None and caps.in_flight >= caps.requests:
            caps.refused += 1
            logger.debug("%d requests in flight: 503", caps.in_flight)
            await _busy(send)
            return
        caps.in_flight += 1
        place = _Request(caps)
        extensions: dict[str, Any] = dict(scope.get("extensions") or {})
        extensions[EXTENSION] = place.hold_long
        scope["extensions"] = extensions
        try:
            await app(scope, receive, send)
        finally:
            place.done()

    return counted


def held_long(scope: Scope) -> None:
    """The request will be held long (a stream, a long poll): out of the requests' count."""
    extensions: dict[str, Any] = dict(scope.get("extensions") or {})
    hold = extensions.get(EXTENSION)
    if callable(hold):
        hold()


_BUSY = msgspec.json.encode(
    Problem(
        type=TYPE_BASE + "unavailable",
        title="Service Unavailable",
        status=503,
        detail="the server is handling as many requests as it can; retry in a second",
    )
)


async def _busy(send: Send) -> None:
    start: HTTPResponseStartEvent = {
        "type": "http.response.start",
        "status": 503,
        "headers": [
            (b"content-type", PROBLEM_JSON.encode()),
            (b"content-length", str(len(_BUSY)).encode()),
            (b"retry-after", str(RETRY_AFTER_S).encode()),
        ],
    }
    body: HTTPResponseBodyEvent = {"type": "http.response.body", "body": _BUSY, "more_body": False}
    await send(start)
    await send(body)
