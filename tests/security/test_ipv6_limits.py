"""Every per-address limit counts an IPv6 client by its /64 (issue 33, 6): one host or home is
given a whole /64 and may use any address in it. The attack: seven addresses of one /64 made
seven accounts (the limit is five an hour), and 125 page views from 125 addresses of one /64
got no 429. In process: the client address is the ASGI peer (an IPv6 one here), or what the
trusted proxy 127.0.0.1 forwards."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

import httpx
import pytest

from services.api.guard.client_address import client_address_reader
from services.base.config import PlaySettings, RateLimits, WebSettings
from services.db.pool import create_pool
from services.launch.app import create_app
from tests.security.helpers import assert_problem
from tests.services.helpers.api_helpers import FrozenCounter, NetworkGuard, settings, unique
from tests.services.helpers.flow_helpers import make_account, make_bot

pytestmark = pytest.mark.anyio
Clients = Callable[..., AbstractAsyncContextManager[Callable[[str], httpx.AsyncClient]]]
ONE_64 = [f"2001:db8:1:2::{n:x}" for n in range(1, 200)]
OTHER_64 = "2001:db8:1:3::1"


@pytest.fixture
def clients(api_database_url: str, guard: NetworkGuard) -> Clients:
    """``clients(limits, **settings_fields)``: a function making an HTTP client of one app whose
    requests come from the given peer address (IPv6 here)."""

    @asynccontextmanager
    async def make(
        limits: RateLimits, **fields: Any
    ) -> AsyncIterator[Callable[[str], httpx.AsyncClient]]:
        pool = await create_pool(api_database_url, min_size=1, max_size=4)
        made: list[httpx.AsyncClient] = []
        try:
            app = create_app(
                settings(api_database_url, **fields),
                pool=pool,
                bot_client_factory=guard.factory,
                rate_limits=limits,
                rate_counter=FrozenCounter(),
            )

            def client(peer: str) -> httpx.AsyncClient:
                transport = httpx.ASGITransport(app=app, client=(peer, 4321))  # type: ignore[arg-type]
                made.append(httpx.AsyncClient(transport=transport, base_url="http://testserver"))
                return made[-1]

            yield client
        finally:
            for one in made:
                await one.aclose()
            await pool.close()

    return make


def test_the_client_address_of_ipv6_is_its_64() -> None:
    class Peer:
        def __init__(self, host: str, forwarded: str | None = None) -> None:
            self.client = type("C", (), {"host": host})()
            values = [] if forwarded is None else [forwarded]
            self.headers = type("H", (), {"getall": lambda _, name, default: values})()

    plain = client_address_reader()
    assert plain(Peer("2001:db8:1:2:3:4:5:6")) == "2001:db8:1:2::/64"  # type: ignore[arg-type]
    assert plain(Peer("2001:db8:1:2::ffff")) == "2001:db8:1:2::/64"  # type: ignore[arg-type]
    assert plain(Peer("::ffff:198.51.100.4")) == "198.51.100.4"  # type: ignore[arg-type]
    assert plain(Peer("198.51.100.4")) == "198.51.100.4"  # type: ignore[arg-type]
    proxied = client_address_reader(("2001:db8:ff::1/128",))
    behind = Peer("2001:db8:ff::1", "2001:db8:9:9::abcd")
    assert proxied(behind) == "2001:db8:9:9::/64"  # type: ignore[arg-type]
    # the proxy itself is trusted as one address, not as its whole /64
    neighbour = Peer("2001:db8:ff::2", "2001:db8:9:9::abcd")
    assert proxied(neighbour) == "2001:db8:ff::/64"  # type: ignore[arg-type]


async def test_seven_addresses_of_one_64_make_five_accounts(clients: Clients) -> None:
    async with clients(RateLimits()) as client:  # the defaults: 5 an hour
        statuses = []
        for peer in ONE_64[:7]:
            answer = await client(peer).post("/v1/accounts", json={"name": unique("v6")})
            statuses.append(answer.status_code)
        assert statuses == [201] * 5 + [429] * 2
        other = await client(OTHER_64).post("/v1/accounts", json={"name": unique("v6")})
        assert other.status_code == 201


async def test_page_views_from_many_addresses_of_one_64_share_one_budget(
    clients: Clients,
) -> None:
    async with clients(RateLimits(pages_per_minute=5)) as client:
        statuses = [(await client(peer).get("/?lang=en")).status_code for peer in ONE_64[:125]]
        assert statuses[:5] == [200] * 5
        assert set(statuses[5:]) == {429}
        assert (await client(OTHER_64).get("/?lang=en")).status_code == 200


async def test_api_requests_from_one_64_share_the_address_budget(clients: Clients) -> None:
    limits = RateLimits(per_key_per_minute=4, per_address_per_minute=100)
    async with clients(limits) as client:
        statuses = [(await client(p).get("/v1/tournaments")).status_code for p in ONE_64[:6]]
        assert statuses == [200] * 4 + [429] * 2
        refused = await client(ONE_64[100]).get("/v1/tournaments")
        assert_problem(refused, 429)
        assert (await client(OTHER_64).get("/v1/tournaments")).status_code == 200


async def test_play_sessions_of_one_64_share_its_caps(
    clients: Clients, api_database_url: str
) -> None:
    fields = {"play": PlaySettings(per_address=1, clock_s=30)}
    async with clients(RateLimits(), **fields) as client:
        pool = await create_pool(api_database_url, min_size=1, max_size=1)
        try:
            owner = await make_account(pool, "house-owner")
            await make_bot(pool, owner, url="builtin:heuristic", prefix="house-heuristic")
        finally:
            await pool.close()
        first = await client(ONE_64[0]).post("/v1/play", json={})
        assert first.status_code == 201, first.text
        second = await client(ONE_64[1]).post("/v1/play", json={})
        problem = assert_problem(second, 429)
        assert problem["type"].endswith("/too-many-play-sessions")
        other = await client(OTHER_64).post("/v1/play", json={})
        assert other.status_code == 201, other.text
        for peer, answer in ((ONE_64[0], first), (OTHER_64, other)):
            token = {"X-Play-Token": answer.json()["token"]}
            await client(peer).post(f"/v1/play/{answer.json()['id']}/leave", headers=token)


@pytest.mark.parametrize("proxy", ["127.0.0.1/32"])
async def test_forwarded_ipv6_addresses_count_by_64(clients: Clients, proxy: str) -> None:
    fields = {"web": WebSettings(trusted_proxies=(proxy,))}
    async with clients(RateLimits(), **fields) as client:
        behind = client("127.0.0.1")
        statuses = []
        for peer in ONE_64[10:17]:
            answer = await behind.post(
                "/v1/accounts", json={"name": unique("v6")}, headers={"X-Forwarded-For": peer}
            )
            statuses.append(answer.status_code)
        assert statuses == [201] * 5 + [429] * 2
