"""Per-key rate limits: 429 with ``Retry-After`` (fixed one-minute windows).

Every request under ``/v1`` counts against its API key (the SHA-256 of the bearer token, so
an unknown key is limited too) or, without a key, its client address; ``POST /v1/accounts``
also counts against a smaller per-address budget. Counters live in Redis when the app has a
``REDIS_URL`` (shared by every API process), else in this process's memory (tests, or Redis
not answering: the limiter falls back and logs it).

=====================================  =========  =====================================
``TRUCO_RATE_LIMIT_PER_MINUTE``        600        per key (or address without a key)
``TRUCO_ACCOUNT_RATE_LIMIT_PER_MINUTE`` 60        account creation per client address
=====================================  =========  =====================================
"""

from __future__ import annotations

import hashlib
import logging
import math
import os
import time
from collections.abc import Callable, Mapping
from typing import Annotated, Protocol

import msgspec
import redis.asyncio as aioredis
from litestar import Request, Response
from litestar.datastructures import State

from services.api.hooks import Hook
from services.api.problems import problem_response

logger = logging.getLogger("services.api.ratelimit")
WINDOW_S = 60
PREFIX = "truco:ratelimit:"


class RateLimits(msgspec.Struct, frozen=True, kw_only=True):
    per_key_per_minute: Annotated[int, msgspec.Meta(ge=1)] = 600
    accounts_per_minute: Annotated[int, msgspec.Meta(ge=1)] = 60
    enabled: bool = True

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> RateLimits:
        env = os.environ if environ is None else environ
        values = {}
        for name, field in (
            ("TRUCO_RATE_LIMIT_PER_MINUTE", "per_key_per_minute"),
            ("TRUCO_ACCOUNT_RATE_LIMIT_PER_MINUTE", "accounts_per_minute"),
        ):
            raw = env.get(name, "").strip()
            if raw:
                try:
                    values[field] = int(raw)
                except ValueError:
                    raise ValueError(f"{name} must be a whole number, got {raw!r}") from None
        try:
            return msgspec.convert(values, cls)
        except msgspec.ValidationError as exc:
            raise ValueError(f"bad rate limit setting: {exc}") from None


class Counter(Protocol):
    async def hit(self, key: str, limit: int, now: float) -> float | None:
        """Count one request; None if within ``limit``, else seconds until the window ends."""
        ...

    async def aclose(self) -> None: ...


class MemoryCounter:
    """Fixed windows in a dict (one process)."""

    def __init__(self) -> None:
        self._counts: dict[tuple[str, int], int] = {}

    async def hit(self, key: str, limit: int, now: float) -> float | None:
        window = int(now // WINDOW_S)
        if len(self._counts) > 10_000:  # forget finished windows
            self._counts = {k: v for k, v in self._counts.items() if k[1] >= window}
        count = self._counts.get((key, window), 0) + 1
        self._counts[(key, window)] = count
        return None if count <= limit else (window + 1) * WINDOW_S - now

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

    async def hit(self, key: str, limit: int, now: float) -> float | None:
        window = int(now // WINDOW_S)
        name = f"{self._prefix}{key}:{window}"
        try:
            async with self._redis.pipeline(transaction=True) as pipe:
                pipe.incr(name)
                pipe.expire(name, WINDOW_S * 2)
                count, _ = await pipe.execute()
        except Exception as exc:  # Redis down: keep limiting, per process
            if not self._warned:
                logger.warning("rate limit counters fall back to memory: %s", exc)
                self._warned = True
            return await self._fallback.hit(key, limit, now)
        self._warned = False
        return None if int(count) <= limit else (window + 1) * WINDOW_S - now

    async def aclose(self) -> None:
        await self._redis.aclose()


def client_address(request: Request[object, object, State]) -> str:
    return request.client.host if request.client else "unknown"


def request_key(request: Request[object, object, State]) -> str:
    """The API key's hash (never the key) or the client address."""
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return "key:" + hashlib.sha256(token.strip().encode()).hexdigest()[:32]
    return "ip:" + client_address(request)


def rate_limit_hook(
    limits: RateLimits, counter: Counter, clock: Callable[[], float] = time.time
) -> Hook:
    """A Litestar ``before_request`` hook answering 429 problems with ``Retry-After``."""

    async def check(request: Request[object, object, State]) -> Response[bytes] | None:
        if not limits.enabled or not request.url.path.startswith("/v1/"):
            return None
        now = clock()
        buckets = [(request_key(request), limits.per_key_per_minute, "requests")]
        if request.method == "POST" and request.url.path.rstrip("/") == "/v1/accounts":
            buckets.append(
                ("accounts:" + client_address(request), limits.accounts_per_minute, "accounts")
            )
        for key, limit, what in buckets:
            wait = await counter.hit(key, limit, now)
            if wait is not None:
                seconds = max(1, math.ceil(wait))
                return problem_response(
                    429,
                    f"too many {what}: at most {limit} a minute; retry in {seconds} s",
                    headers={"Retry-After": str(seconds)},
                )
        return None

    return check
