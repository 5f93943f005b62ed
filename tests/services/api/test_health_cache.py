"""``/health``'s checks are single-flight and cached (abuse finding 3): a burst of requests
runs each check once; a success is reused for 5 s, a failure for 1 s; ``/health/live``
checks nothing; both are rate limited per address. (tests/services/api/test_health_burst.py
sends the burst to uvicorn with a real worker.)"""

from __future__ import annotations

import asyncio
from typing import cast

import pytest

from services.api.deps import Services
from services.api.routes import health
from services.api.routes.health import FAIL_TTL_S, OK_TTL_S, HealthCache
from services.base.config import RateLimits
from tests.services.helpers.api_helpers import (
    Api,
    FrozenCounter,
    NetworkGuard,
    app_client,
)

pytestmark = pytest.mark.anyio


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class SlowCheck:
    """A check that takes a while and fails when told to."""

    def __init__(self) -> None:
        self.calls = 0
        self.failing = False

    async def __call__(self, svc: object) -> None:
        self.calls += 1
        await asyncio.sleep(0.2)
        if self.failing:
            raise RuntimeError("down")


@pytest.fixture
def checks(monkeypatch: pytest.MonkeyPatch) -> dict[str, SlowCheck]:
    doubles = {name: SlowCheck() for name in health.CHECKS}
    for name, double in doubles.items():
        monkeypatch.setitem(health.CHECKS, name, double)
    return doubles


async def test_a_burst_runs_each_check_once(api: Api, checks: dict[str, SlowCheck]) -> None:
    answers = await asyncio.gather(*(api.client.get("/health") for _ in range(100)))
    assert [r.status_code for r in answers] == [200] * 100
    assert {name: check.calls for name, check in checks.items()} == dict.fromkeys(checks, 1)


async def test_outcomes_are_cached_briefly(checks: dict[str, SlowCheck]) -> None:
    clock = Clock()
    cache = HealthCache(clock)
    svc = cast(Services, object())
    workers = checks["workers"]
    assert await cache.result("workers", svc) == "ok"
    clock.now += OK_TTL_S - 0.1
    assert await cache.result("workers", svc) == "ok"
    assert workers.calls == 1
    workers.failing = True
    clock.now += 0.2  # the success expired
    results = await asyncio.gather(*(cache.result("workers", svc) for _ in range(50)))
    assert set(results) == {"error"} and workers.calls == 2
    clock.now += FAIL_TTL_S - 0.1
    assert await cache.result("workers", svc) == "error"
    assert workers.calls == 2
    workers.failing = False
    clock.now += 0.2  # a failure is retried after a second, not after five
    assert await cache.result("workers", svc) == "ok"
    assert workers.calls == 3


async def test_a_caller_that_goes_away_does_not_cancel_the_check(
    checks: dict[str, SlowCheck],
) -> None:
    cache = HealthCache()
    svc = cast(Services, object())
    first = asyncio.ensure_future(cache.result("database", svc))
    await asyncio.sleep(0.05)
    first.cancel()
    assert await cache.result("database", svc) == "ok"
    assert checks["database"].calls == 1


async def test_liveness_checks_nothing_and_health_is_rate_limited(
    api_database_url: str, guard: NetworkGuard, checks: dict[str, SlowCheck]
) -> None:
    limits = RateLimits(health_per_minute=3)
    options = {"rate_limits": limits, "rate_counter": FrozenCounter()}
    async with app_client(api_database_url, guard, **options) as (_, client):
        live = await client.get("/health/live")
        assert live.status_code == 200 and live.json() == {"status": "ok"}
        assert all(check.calls == 0 for check in checks.values())
        statuses = [(await client.get("/health")).status_code for _ in range(3)]
        assert statuses == [200, 200, 429]
        assert (await client.get("/health/live")).headers["retry-after"] == "30"
