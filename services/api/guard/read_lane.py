"""Reads get their own share of the database pool, and one address a share of that (issue 33, 4).

Twenty loops of ``GET /v1/ladders/1v1`` from one address (13 answers a second, inside every
budget) each held one of the pool's 10 connections for 250-460 ms, and another address's
``GET /v1/bots/1`` waited for a connection: 9 ms became 2.4 s. Budgets count requests over a
minute; what a flood of slow reads takes is connections at once.

The lane counts reads in flight (``GET`` and ``HEAD`` requests of the API and the pages) in one
API process:

* at most ``total`` at once (``TRUCO_READS_AT_ONCE``, 6 of the pool's 10 connections), so
  writes (every other method, never waiting here) always find connections;
* at most ``per_address`` of them from one client address (``TRUCO_READS_PER_ADDRESS``, 3; the
  address as :mod:`services.api.guard.client_address` counts it, IPv6 per /64), so one address's
  loops wait for each other and not for anyone else's.

A read over either share waits its turn (first come, first served among those that fit); one
that waits :data:`WAIT_S` is a 503 problem with ``Retry-After``. Handlers that hold their
request for long without the database opt out with ``opt={READ_LANE: False}``: live streams
(their own caps), exports (their own slots), /play's long poll and stream, ``/health``,
``/static``. A handler reads at most one connection at a time, so reads hold at most ``total``
of the pool.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter, deque
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Final

from litestar import Request
from litestar.datastructures import State
from litestar.enums import ScopeType
from litestar.middleware import DefineMiddleware
from litestar.types import ASGIApp, Receive, Scope, Send

from services.api.guard.client_address import AddressOf
from services.api.problems import problem_response

READ_LANE: Final = "read_lane"
"""The ``opt`` key a route handler sets to False to stay out of the lane."""
WAIT_S: Final = 20.0
"""How long a read waits for its turn before it is refused (a 503)."""
STATE_KEY: Final = "read_lane"
METHODS: Final = frozenset({"GET", "HEAD"})

logger = logging.getLogger("services.api")


class LaneFull(Exception):
    """A read waited :data:`WAIT_S` without its turn."""


@dataclass
class ReadLane:
    """Reads in flight, in all and by address (one per API process; single-threaded loop)."""

    total: int
    per_address: int
    wait_s: float = WAIT_S
    active: int = 0
    by_address: Counter[str] = field(default_factory=Counter)
    _waiting: deque[tuple[str, asyncio.Future[None]]] = field(default_factory=deque)
    refused: int = 0
    """Reads refused after waiting :attr:`wait_s` since the process started."""
    waited: int = 0
    """Reads that had to wait for their turn."""

    def fits(self, address: str) -> bool:
        return self.active < self.total and self.by_address[address] < self.per_address

    @contextlib.asynccontextmanager
    async def turn(self, address: str) -> AsyncIterator[None]:
        """Hold one of the lane's places for ``address`` while the block runs; raises
        :class:`LaneFull` after waiting :attr:`wait_s`."""
        await self._enter(address)
        try:
            yield
        finally:
            self._leave(address)

    async def _enter(self, address: str) -> None:
        if self.fits(address):
            self._take(address)
            return
        self.waited += 1
        granted: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        waiter = (address, granted)
        self._waiting.append(waiter)
        try:
            await asyncio.wait_for(asyncio.shield(granted), self.wait_s)
        except BaseException as exc:
            if granted.done() and not granted.cancelled():
                self._leave(address)  # granted as we gave up: hand the place on
            else:
                granted.cancel()
                with contextlib.suppress(ValueError):
                    self._waiting.remove(waiter)
            if isinstance(exc, TimeoutError):
                self.refused += 1
                raise LaneFull from None
            raise

    def _take(self, address: str) -> None:
        self.active += 1
        self.by_address[address] += 1

    def _leave(self, address: str) -> None:
        self.active -= 1
        if self.by_address[address] <= 1:
            del self.by_address[address]
        else:
            self.by_address[address] -= 1
        self._wake()

    def _wake(self) -> None:
        """Give freed places to the first waiters that fit (another address's waiter goes
        before a full address's)."""
        for waiter in list(self._waiting):
            if self.active >= self.total:
                return
            address, granted = waiter
            if granted.done():
                self._waiting.remove(waiter)
            elif self.by_address[address] < self.per_address:
                self._waiting.remove(waiter)
                self._take(address)
                granted.set_result(None)


def lane_of(state: State) -> ReadLane:
    """The app's lane (tests look at it)."""
    lane = state[STATE_KEY]
    assert isinstance(lane, ReadLane)
    return lane


def read_lane(lane: ReadLane, address_of: AddressOf) -> DefineMiddleware:
    """Litestar middleware: reads (``GET``, ``HEAD``) of route handlers that do not opt out take
    a place in ``lane`` for as long as they run (see the module)."""
    return DefineMiddleware(_lane_middleware, lane=lane, address_of=address_of)


def _lane_middleware(app: ASGIApp, lane: ReadLane, address_of: AddressOf) -> ASGIApp:
    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        handler = scope.get("route_handler")
        if (
            scope["type"] != ScopeType.HTTP
            or scope.get("method") not in METHODS
            or handler is None
            or not handler.opt.get(READ_LANE, True)
        ):
            await app(scope, receive, send)
            return
        request: Request[object, object, State] = Request(scope)
        address = address_of(request)
        try:
            async with lane.turn(address):
                await app(scope, receive, send)
        except LaneFull:
            logger.info("a read from %s waited %.0f s for the lane: 503", address, lane.wait_s)
            response = problem_response(
                503,
                "too many reads at once from this address or on this server; retry shortly",
                headers={"Retry-After": "1"},
            )
            await response.to_asgi_response(app=None, request=request)(scope, receive, send)

    return middleware
