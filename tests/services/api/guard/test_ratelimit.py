"""Rate limits: 429 problems with Retry-After, per key and for account creation per address;
counters in memory or in Redis (shared), falling back to memory when Redis does not answer."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from services.api.guard.ratelimit import RedisCounter
from services.base.config import ConfigError, KeySettings, RateLimits
from services.base.environment import load_settings
from tests.servers import RedisTarget
from tests.services.helpers.api_helpers import (
    FrozenCounter,
    NetworkGuard,
    app_client,
    unique,
)

pytestmark = pytest.mark.anyio


@pytest.fixture
async def limited(api_database_url: str, guard: NetworkGuard) -> AsyncIterator[httpx.AsyncClient]:
    limits = RateLimits(per_key_per_minute=4, accounts_per_minute=2)
    options = {"rate_limits": limits, "rate_counter": FrozenCounter()}
    async with app_client(api_database_url, guard, pool_size=2, **options) as (_, client):
        yield client


async def test_a_key_over_its_budget_gets_429_with_retry_after(
    limited: httpx.AsyncClient,
) -> None:
    created = await limited.post("/v1/accounts", json={"name": unique("limited")})
    assert created.status_code == 201  # counted against the address, not the new account
    key = {"Authorization": f"Bearer {created.json()['api_key']}"}
    answers = [(await limited.get("/v1/tournaments", headers=key)).status_code for _ in range(5)]
    assert answers == [200, 200, 200, 200, 429]
    refused = await limited.get("/v1/bots", headers=key)
    assert refused.status_code == 429
    assert refused.headers["retry-after"] == "30"
    assert refused.headers["content-type"] == "application/problem+json"
    assert refused.json()["type"] == "/problems/rate-limited"
    # the address has its own budget (one request spent); health is never limited
    assert (await limited.get("/v1/tournaments")).status_code == 200
    # health has a budget of its own (TRUCO_HEALTH_RATE_LIMIT_PER_MINUTE)
    assert (await limited.get("/health")).status_code in (200, 503)


async def test_account_creation_is_limited_per_address(limited: httpx.AsyncClient) -> None:
    first = await limited.post("/v1/accounts", json={"name": "limit-a1"})
    second = await limited.post("/v1/accounts", json={"name": "limit-a2"})
    third = await limited.post("/v1/accounts", json={"name": "limit-a3"})
    assert third.status_code == 429, third.text
    assert {first.status_code, second.status_code} <= {201, 409}
    assert "accounts" in third.json()["detail"]


async def test_redis_counters_are_shared_between_apps(redis_target: RedisTarget) -> None:
    one = RedisCounter(redis_target.url, prefix=redis_target.key("rl:"))
    two = RedisCounter(redis_target.url, prefix=redis_target.key("rl:"))
    try:
        now = 1_000_000 * 60 + 15.0
        assert await one.hit("key:a", 2, now) is None
        assert await two.hit("key:a", 2, now) is None  # the same counter, another process
        wait = await one.hit("key:a", 2, now)
        assert wait == 45.0
        assert await two.hit("key:b", 2, now) is None
        assert await one.hit("key:a", 2, now + 60) is None  # the next window starts afresh
        # an hour's window is a counter of its own (account creations per address)
        assert await one.hit("key:a", 1, now, 3600) is None
        hour_wait = await two.hit("key:a", 1, now + 60, 3600)
        assert hour_wait == (now // 3600 + 1) * 3600 - (now + 60)  # to the hour's end
        assert await two.peek("key:a", 1, now + 60, 3600) == hour_wait
    finally:
        await one.aclose()
        await two.aclose()


async def test_without_redis_the_counter_falls_back_to_memory() -> None:
    counter = RedisCounter("redis://127.0.0.1:1/0")  # nothing listens on port 1
    try:
        assert await counter.hit("key:x", 1, 90.0) is None
        assert await counter.hit("key:x", 1, 90.0) == 30.0
    finally:
        await counter.aclose()


def test_limits_come_from_the_environment(tmp_path: Path) -> None:
    base = {"TRUCO_DATA_DIR": str(tmp_path)}
    limits = load_settings(
        {
            **base,
            "TRUCO_RATE_LIMIT_PER_MINUTE": "100",
            "TRUCO_ACCOUNT_RATE_LIMIT_PER_MINUTE": "5",
            "TRUCO_AUTH_FAILURE_LIMIT_PER_MINUTE": "7",
            "TRUCO_ADDRESS_RATE_LIMIT_PER_MINUTE": "250",
            "TRUCO_ACCOUNT_RATE_LIMIT_PER_HOUR": "2",
        }
    ).rate_limits
    assert limits == RateLimits(
        per_key_per_minute=100,
        accounts_per_minute=5,
        auth_failures_per_minute=7,
        per_address_per_minute=250,
        accounts_per_hour=2,
    )
    assert load_settings(base).rate_limits == RateLimits()
    for bad in ("lots", "0", "-5"):
        with pytest.raises(ConfigError, match="TRUCO_RATE_LIMIT_PER_MINUTE must be a whole number"):
            load_settings({**base, "TRUCO_RATE_LIMIT_PER_MINUTE": bad})


def test_key_and_probe_settings_come_from_the_environment(tmp_path: Path) -> None:
    loaded = load_settings(
        {
            "TRUCO_DATA_DIR": str(tmp_path),
            "TRUCO_API_KEYS_PER_ACCOUNT": "3",
            "TRUCO_PROBE_IDLE_EVERY_S": "600",
            "TRUCO_PROBE_IDLE_AFTER_S": "7200",
            "TRUCO_PROBES_PER_ACCOUNT_PER_MINUTE": "7",
        }
    )
    assert loaded.keys == KeySettings(per_account=3)
    assert (
        loaded.worker.probe_idle_every_s,
        loaded.worker.probe_idle_after_s,
        loaded.worker.probes_per_account_per_minute,
    ) == (600.0, 7200.0, 7)
    with pytest.raises(ConfigError, match="TRUCO_API_KEYS_PER_ACCOUNT must be a whole number"):
        load_settings({"TRUCO_DATA_DIR": str(tmp_path), "TRUCO_API_KEYS_PER_ACCOUNT": "0"})
