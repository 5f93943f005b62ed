"""``GET /health``: every registered check must answer; 503 naming the failing ones otherwise.

Add a check (the broker, the workers) by adding a function to :data:`CHECKS`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from litestar import Request, get
from litestar.datastructures import State

from services.api.deps import Services, services
from services.api.problems import ProblemError, problem_responses

CHECK_TIMEOUT_S = 3.0
logger = logging.getLogger("services.api.health")

Check = Callable[[Services], Awaitable[None]]
"""Returns if the part answers; raises otherwise."""


async def check_database(svc: Services) -> None:
    if svc.pool is None:
        raise RuntimeError("no database pool")
    if await svc.pool.fetchval("SELECT 1") != 1:
        raise RuntimeError("SELECT 1 gave a wrong answer")


CHECKS: dict[str, Check] = {"database": check_database}


async def _run(name: str, check: Check, svc: Services) -> str:
    try:
        async with asyncio.timeout(CHECK_TIMEOUT_S):
            await check(svc)
    except Exception as exc:
        logger.warning("health check %s failed: %s", name, exc)
        return "error" if not isinstance(exc, TimeoutError) else "timeout"
    return "ok"


@get(
    "/health",
    operation_id="getHealth",
    summary="Whether the service and what it depends on answer",
    tags=["operations"],
    responses=problem_responses(503, common=False),
)
async def health(request: Request[object, object, State]) -> dict[str, str]:
    svc = services(request.app.state)
    names = list(CHECKS)
    results = await asyncio.gather(*(_run(name, CHECKS[name], svc) for name in names))
    checks = dict(zip(names, results, strict=True))
    failing = [name for name, result in checks.items() if result != "ok"]
    if failing:
        raise ProblemError(
            503, f"not answering: {', '.join(failing)}", slug="unavailable", checks=checks
        )
    return {"status": "ok", **checks}
