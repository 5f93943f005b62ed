"""Health: ``GET /health/live`` (the process answers) and ``GET /health`` (readiness: every
check answers; 503 naming the failing ones otherwise).

The readiness checks: ``database`` (``SELECT 1``), ``broker`` (Redis accepts a
connection) and ``workers`` (at least one Celery worker answers a ping; the two are in
:mod:`services.worker.checks` and run in a thread, off the event loop).

A burst of requests must not become a burst of checks (100 concurrent requests once made
100 Celery ping broadcasts, which timed out one another into 503s). So each check is
**single-flight**: while it runs, every request waits for that one run; and its outcome is
**cached** per app, a success for :data:`OK_TTL_S` and a failure for :data:`FAIL_TTL_S` (a
failure is retried soon, but never by every request at once). A check that raises or passes
:data:`CHECK_TIMEOUT_S` is a failure. Both endpoints are rate limited per client address
(``TRUCO_HEALTH_RATE_LIMIT_PER_MINUTE``, :mod:`services.api.guard.ratelimit`).

Add a check by adding a function to :data:`CHECKS`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable

from litestar import Request, get
from litestar.datastructures import State

from services.api.deps import Services, services_of
from services.api.problems import ProblemError, problem_responses
from services.worker.checks import check_broker, check_workers

CHECK_TIMEOUT_S = 3.0
OK_TTL_S = 5.0
FAIL_TTL_S = 1.0
CACHE_STATE_KEY = "health_cache"
logger = logging.getLogger("services.api.routes.health")

Check = Callable[[Services], Awaitable[None]]
"""Returns if the part answers; raises otherwise."""


async def check_database(svc: Services) -> None:
    if svc.pool is None:
        raise RuntimeError("no database pool")
    if await svc.pool.fetchval("SELECT 1") != 1:
        raise RuntimeError("SELECT 1 gave a wrong answer")


CHECKS: dict[str, Check] = {
    "database": check_database,
    "broker": check_broker,
    "workers": check_workers,
}


async def _run(name: str, check: Check, svc: Services) -> str:
    try:
        async with asyncio.timeout(CHECK_TIMEOUT_S):
            await check(svc)
    except Exception as exc:
        logger.warning("health check %s failed: %s", name, exc)
        return "error" if not isinstance(exc, TimeoutError) else "timeout"
    return "ok"


class HealthCache:
    """Single-flight, cached outcomes of the checks (one per app, in its state)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._done: dict[str, tuple[float, str]] = {}
        self._running: dict[str, asyncio.Future[str]] = {}
        self.runs: dict[str, int] = {}
        """How many times each check really ran (for tests and curiosity)."""

    def _fresh(self, name: str) -> str | None:
        hit = self._done.get(name)
        if hit is None:
            return None
        at, result = hit
        ttl = OK_TTL_S if result == "ok" else FAIL_TTL_S
        return result if self._clock() - at < ttl else None

    async def result(self, name: str, svc: Services) -> str:
        cached = self._fresh(name)
        if cached is not None:
            return cached
        running = self._running.get(name)
        if running is None:
            running = asyncio.ensure_future(self._check(name, svc))
            self._running[name] = running
        # shield: a request that goes away does not cancel the run others wait for
        return await asyncio.shield(running)

    async def _check(self, name: str, svc: Services) -> str:
        try:
            self.runs[name] = self.runs.get(name, 0) + 1
            result = await _run(name, CHECKS[name], svc)
            self._done[name] = (self._clock(), result)
            return result
        finally:
            self._running.pop(name, None)


def health_cache(state: State) -> HealthCache:
    found: HealthCache = state.setdefault(CACHE_STATE_KEY, HealthCache())
    return found


@get(
    "/health",
    operation_id="getHealth",
    summary="Readiness: whether the service and what it depends on answer",
    description=(
        "200 with each check's outcome, or a 503 problem naming the failing ones. Outcomes "
        "are cached briefly (5 s, a failure 1 s) and each check runs once however many "
        "requests wait for it. Rate limited per client address."
    ),
    tags=["operations"],
    responses=problem_responses(429, 503, common=False),
)
async def health(request: Request[object, object, State]) -> dict[str, str]:
    state = request.app.state
    svc = services_of(state)
    cache = health_cache(state)
    names = list(CHECKS)
    results = await asyncio.gather(*(cache.result(name, svc) for name in names))
    checks = dict(zip(names, results, strict=True))
    failing = [name for name, result in checks.items() if result != "ok"]
    if failing:
        raise ProblemError(
            503, f"not answering: {', '.join(failing)}", slug="unavailable", checks=checks
        )
    return {"status": "ok", **checks}


@get(
    "/health/live",
    operation_id="getLiveness",
    summary="Liveness: the API process answers (no dependency is checked)",
    tags=["operations"],
    responses=problem_responses(429, common=False),
)
async def liveness() -> dict[str, str]:
    return {"status": "ok"}
