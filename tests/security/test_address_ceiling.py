"""Issue 21, break 9: one address could create 60 accounts a minute and multiply the per-key
budget (5 keys x 650 requests answered in a minute). Now account creation is limited per
address in an hour (TRUCO_ACCOUNT_RATE_LIMIT_PER_HOUR) and every ``/v1`` request of an address
counts against one ceiling whatever key it carries (TRUCO_ADDRESS_RATE_LIMIT_PER_MINUTE).

The test client's peer is 127.0.0.1, configured as a trusted proxy, so ``X-Forwarded-For``
picks the client address of each request."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

import httpx
import pytest

from services.base.config import RateLimits, WebSettings
from tests.security.helpers import assert_problem
from tests.services.helpers.api_helpers import FrozenCounter, NetworkGuard, app_client, unique

pytestmark = pytest.mark.anyio
Limited = Callable[[RateLimits], AbstractAsyncContextManager[httpx.AsyncClient]]
ONE = {"X-Forwarded-For": "203.0.113.7"}
OTHER = {"X-Forwarded-For": "198.51.100.20"}


@pytest.fixture
def limited(api_database_url: str, guard: NetworkGuard) -> Limited:
    @asynccontextmanager
    async def make(limits: RateLimits) -> AsyncIterator[httpx.AsyncClient]:
        options: dict[str, Any] = {"rate_limits": limits, "rate_counter": FrozenCounter()}
        fields = {"web": WebSettings(trusted_proxies=("127.0.0.1/32",))}
        async with app_client(
            api_database_url, guard, pool_size=4, settings_fields=fields, **options
        ) as (_, client):
            yield client

    return make


async def _account(client: httpx.AsyncClient, address: dict[str, str]) -> httpx.Response:
    return await client.post("/v1/accounts", json={"name": unique("addr")}, headers=address)


async def test_the_sixth_account_of_an_address_in_an_hour_is_429(limited: Limited) -> None:
    async with limited(RateLimits()) as client:  # the defaults: 5 an hour
        answers = [await _account(client, ONE) for _ in range(6)]
        assert [a.status_code for a in answers] == [201] * 5 + [429]
        problem = assert_problem(answers[-1], 429)
        assert "at most 5 an hour" in problem["detail"]
        # the frozen counter is 30 s into its windows: the hour ends in 3570 s
        assert answers[-1].headers["retry-after"] == "3570"
        # another address may still create its accounts
        assert (await _account(client, OTHER)).status_code == 201


async def test_many_keys_of_one_address_share_its_ceiling(limited: Limited) -> None:
    limits = RateLimits(per_key_per_minute=10, per_address_per_minute=30, accounts_per_hour=100)
    async with limited(limits) as client:
        keys = []
        for _ in range(5):
            created = await _account(client, ONE)
            assert created.status_code == 201, created.text
            keys.append({"Authorization": f"Bearer {created.json()['api_key']}", **ONE})
        # 5 keys x 10 = 50 requests would be within each key's budget; the address's
        # ceiling (30, the 5 creations included) answers 25 of them
        answered = refused = 0
        for _ in range(10):
            for key in keys:
                status = (await client.get("/v1/tournaments", headers=key)).status_code
                answered += status == 200
                refused += status == 429
        assert (answered, refused) == (25, 25)
        last = await client.get("/v1/accounts/me", headers=keys[0])
        problem = assert_problem(last, 429)
        assert "requests from this address" in problem["detail"]
        assert last.headers["retry-after"] == "30"
        # the address's requests without a key are refused too; another address is answered
        assert (await client.get("/v1/tournaments", headers=ONE)).status_code == 429
        assert (await client.get("/v1/tournaments", headers=OTHER)).status_code == 200
        other = await _account(client, OTHER)
        assert other.status_code == 201
        mine = {"Authorization": f"Bearer {other.json()['api_key']}", **OTHER}
        assert (await client.get("/v1/accounts/me", headers=mine)).status_code == 200
