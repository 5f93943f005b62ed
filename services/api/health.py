"""``GET /health``: every registered check must answer; 503 naming the failing ones otherwise.

The checks: ``database`` (``SELECT 1``), ``broker`` (Redis accepts a connection) and
``workers`` (at least one Celery worker answers a ping; the two checks are in
:mod:`services.worker.checks` and run in a thread, off the event loop). The workers' ping
waits up to a second for answers, so its outcome is cached for :data:`WORKERS_CACHE_S` per
app: a load balancer polling ``/health`` does not broadcast a ping each time.

Add a check by adding a function to :data:`CHECKS`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable

from litestar import Request, get
from litestar.datastructures import State

from services.api.deps import Services, services
from services.api.problems import ProblemError, problem_responses
from services.worker.checks import check_broker, check_workers

CHECK_TIMEOUT_S = 3.0
logger = logging.getLogger("services.api.health")

Check = Callable[[Services], Awaitable[None]]
"""Returns if the part answers; raises otherwise."""


async def check_database(svc: Services) -> None:
    if svc.pool is None:
        raise RuntimeError("no database pool")
    if await svc.pool.fetchval("SELECT 1") != 1:
        raise RuntimeError("SELECT 1 gave a wrong answer")


WORKERS_CACHE_S = 5.0
CACHE_STATE_KEY = "health_cache"

CHECKS: dict[str, Check] = {
    "database": check_database,
    "broker": check_broker,
    "workers": check_workers,
}
CACHE_S: dict[str, float] = {"workers": WORKERS_CACHE_S}
"""Checks whose outcome is reused for that many seconds (per app, in its state)."""


async def _run(name: str, check: Check, svc: Services) -> str:
    try:
        async with asyncio.timeout(CHECK_TIMEOUT_S):
            await check(svc)
    except Exception as exc:
        logger.warning("health check %s failed: %s", name, exc)
        return "error" if not isinstance(exc, TimeoutError) else "timeout"
    return "ok"


async def _cached_run(name: str, svc: Services, cache: dict[str, tuple[float, str]]) -> str:
    ttl = CACHE_S.get(name)
    if ttl is not None:
        hit = cache.get(name)
        if hit is not None and time.monotonic() - hit[0] < ttl:
            return hit[1]
    result = await _run(name, CHECKS[name], svc)
    if ttl is not None:
        cache[name] = (time.monotonic(), result)
    return result


@get(
    "/health",
    operation_id="getHealth",
    summary="Whether the service and what it depends on answer",
    tags=["operations"],
    responses=problem_responses(503, common=False),
)
async def health(request: Request[object, object, State]) -> dict[str, str]:
    state = request.app.state
    svc = services(state)
    cache: dict[str, tuple[float, str]] = state.setdefault(CACHE_STATE_KEY, {})
    names = list(CHECKS)
    results = await asyncio.gather(*(_cached_run(name, svc, cache) for name in names))
    checks = dict(zip(names, results, strict=True))
    failing = [name for name, result in checks.items() if result != "ok"]
    if failing:
        raise ProblemError(
            503, f"not answering: {', '.join(failing)}", slug="unavailable", checks=checks
        )
    return {"status": "ok", **checks}
