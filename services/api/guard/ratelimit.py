"""Rate limits: 429 problems with ``Retry-After`` (fixed one-minute windows).

A request under ``/v1`` counts against its account once its API key is VALIDATED (looked up
here, the handler reuses the answer); until then it counts against its client address:
without a key, and with a key that is malformed or unknown. So random bearer strings share
their address's budget instead of each getting a fresh one. A request carrying credentials
that do not validate is also a failed authentication of its address; past
``TRUCO_AUTH_FAILURE_LIMIT_PER_MINUTE`` failures, every request of that address that carries
credentials gets a 429 without a database lookup until the window ends. ``POST /v1/accounts``
also counts against smaller per-address budgets (a minute and an hour). Every request under
``/v1`` also counts against its address's ceiling (``TRUCO_ADDRESS_RATE_LIMIT_PER_MINUTE``),
whatever key it carries: five accounts of one address share one ceiling instead of
multiplying the per-key budget. The client address is the peer's, or what a trusted proxy
forwarded (:mod:`services.api.guard.client_address`).

Counters live in Redis when the app has a ``REDIS_URL`` (shared by every API process), else
in this process's memory (tests, or Redis not answering: the limiter falls back and logs it).

The budgets are :class:`services.base.config.RateLimits` (``TRUCO_*_PER_MINUTE``, docs/settings.md).
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import redis.asyncio as aioredis
from litestar import Request, Response
from litestar.datastructures import State

from services.api.auth import request_account
from services.api.guard.client_address import AddressOf, client_address_reader
from services.api.guard.hooks import Hook
from services.api.problems import problem_response
from services.base.config import RateLimits
from services.db.accounts import Account

logger = logging.getLogger("services.api.guard.ratelimit")
WINDOW_S = 60
HOUR_S = 3600
PREFIX = "truco:ratelimit:"


class Counter(Protocol):
    async def hit(self, key: str, limit: int, now: float, window_s: int = WINDOW_S) -> float | None:
        """Count one request in the fixed window of ``window_s`` seconds holding ``now``;
        None if within ``limit``, else seconds until the window ends."""
        ...

    async def peek(
        self, key: str, limit: int, now: float, window_s: int = WINDOW_S
    ) -> float | None:
        """Without counting: None if another hit would be within ``limit``, else the wait."""
        ...

    async def aclose(self) -> None: ...


class MemoryCounter:
    """Fixed windows in a dict (one process)."""

    def __init__(self) -> None:
        self._counts: dict[tuple[str, int, int], int] = {}

    async def hit(self, key: str, limit: int, now: float, window_s: int = WINDOW_S) -> float | None:
        window = int(now // window_s)
        if len(self._counts) > 10_000:  # forget finished windows
            self._counts = {k: v for k, v in self._counts.items() if (k[2] + 1) * k[1] > now}
        count = self._counts.get((key, window_s, window), 0) + 1
        self._counts[(key, window_s, window)] = count
        return None if count <= limit else (window + 1) * window_s - now

    async def peek(
        self, key: str, limit: int, now: float, window_s: int = WINDOW_S
    ) -> float | None:
        window = int(now // window_s)
        count = self._counts.get((key, window_s, window), 0)
        return None if count < limit else (window + 1) * window_s - now

    async def aclose(self) -> None:
        return None


class RedisCounter:
    """Fixed windows in Redis (INCR + EXPIRE), shared by every API process. If Redis fails,
    counts in memory until it answers again."""

    def __init__(self, url: str, *, prefix: str = PREFIX) -> None:
        self._redis = aioredis.Redis.from_url(url, socket_timeout=0.5, socket_connect_timeout=0.5)
        self._prefix = prefix
        self._fallback = MemoryCounter()
        self._warned = False

    def _name(self, key: str, window_s: int, window: int) -> str:
        span = "" if window_s == WINDOW_S else f"{window_s}s:"
        return f"{self._prefix}{key}:{span}{window}"

    async def hit(self, key: str, limit: int, now: float, window_s: int = WINDOW_S) -> float | None:
        window = int(now // window_s)
        name = self._name(key, window_s, window)
        try:
            async with self._redis.pipeline(transaction=True) as pipe:
                pipe.incr(name)
                pipe.expire(name, window_s * 2)
                count, _ = await pipe.execute()
        except Exception as exc:  # Redis down: keep limiting, per process
            if not self._warned:
                logger.warning("rate limit counters fall back to memory: %s", exc)
                self._warned = True
            return await self._fallback.hit(key, limit, now, window_s)
        self._warned = False
        return None if int(count) <= limit else (window + 1) * window_s - now

    async def peek(
        self, key: str, limit: int, now: float, window_s: int = WINDOW_S
    ) -> float | None:
        window = int(now // window_s)
        try:
            raw = await self._redis.get(self._name(key, window_s, window))
        except Exception:  # Redis down: the fallback's counts are the ones being kept
            return await self._fallback.peek(key, limit, now, window_s)
        count = int(raw) if raw is not None else 0
        return None if count < limit else (window + 1) * window_s - now

    async def aclose(self) -> None:
        await self._redis.aclose()


@dataclass(frozen=True, slots=True)
class Limiter:
    """The app's budgets, counters and client addresses, for other layers' budgets (the pages':
    ``services.web.pages.budget``). In the app's state under :data:`STATE_KEY`."""

    limits: RateLimits
    counter: Counter
    address_of: AddressOf
    clock: Callable[[], float] = time.time

    async def hit(self, bucket: str, limit: int) -> float | None:
        """Count one request in ``bucket``: None if within ``limit``, else seconds to wait."""
        return await self.counter.hit(bucket, limit, self.clock())


STATE_KEY = "rate_limiter"


def limiter_of(state: State) -> Limiter:
    limiter = state[STATE_KEY]
    assert isinstance(limiter, Limiter)
    return limiter


def _refusal(limit: int, what: str, wait: float, window_s: int = WINDOW_S) -> Response[bytes]:
    seconds = max(1, math.ceil(wait))
    per = "a minute" if window_s == WINDOW_S else "an hour" if window_s == HOUR_S else "a window"
    return problem_response(
        429,
        f"too many {what}: at most {limit} {per}; retry in {seconds} s",
        headers={"Retry-After": str(seconds)},
    )


async def _validated(request: Request[object, object, State]) -> Account | None:
    """The request's account if its key is valid; None when it cannot be told (no database)."""
    try:
        return await request_account(request)
    except Exception as exc:  # the handler will answer; the request counts as unvalidated
        logger.warning("rate limit: the key could not be looked up: %s", exc)
        return None


def rate_limit_hook(
    limits: RateLimits,
    counter: Counter,
    clock: Callable[[], float] = time.time,
    address_of: AddressOf | None = None,
) -> Hook:
    """A Litestar ``before_request`` hook answering 429 problems with ``Retry-After``."""
    client_address = address_of or client_address_reader()

    async def check(request: Request[object, object, State]) -> Response[bytes] | None:
        path = request.url.path
        if not limits.enabled:
            return None
        if path == "/health" or path.startswith("/health/"):
            wait = await counter.hit(
                "health:" + client_address(request), limits.health_per_minute, clock()
            )
            return None if wait is None else _refusal(limits.health_per_minute, "requests", wait)
        if not path.startswith("/v1/"):
            return None
        now = clock()
        address = client_address(request)
        ceiling = (
            "address:" + address,
            limits.per_address_per_minute,
            "requests from this address",
            WINDOW_S,
        )
        buckets = []
        if request.method == "POST" and request.url.path.rstrip("/") == "/v1/accounts":
            buckets.append(
                ("accounts:" + address, limits.accounts_per_minute, "accounts", WINDOW_S)
            )
            buckets.append(("accounts:" + address, limits.accounts_per_hour, "accounts", HOUR_S))
        if request.headers.get("authorization"):
            failures = ("authfail:" + address, limits.auth_failures_per_minute)
            wait = await counter.peek(*failures, now)
            if wait is not None:  # this address spent its failures: no more key lookups
                return _refusal(failures[1], "failed authentications", wait)
            wait = await counter.peek(*ceiling[:2], now)
            if wait is not None:  # the address's ceiling is reached: no key lookup either
                return _refusal(ceiling[1], ceiling[2], wait)
            account = await _validated(request)
            if account is not None:
                buckets.append(
                    (f"account:{account.id}", limits.per_key_per_minute, "requests", WINDOW_S)
                )
            else:
                buckets.append(("ip:" + address, limits.per_key_per_minute, "requests", WINDOW_S))
                buckets.append((*failures, "failed authentications", WINDOW_S))
        else:
            buckets.append(("ip:" + address, limits.per_key_per_minute, "requests", WINDOW_S))
        buckets.append(ceiling)
        for key, limit, what, window_s in buckets:
            wait = await counter.hit(key, limit, now, window_s)
            if wait is not None:
                return _refusal(limit, what, wait, window_s)
        return None

    return check
