"""Accounts made from one address are linked (issue 33, item 2): ``POST /v1/accounts`` keeps a
keyed digest of the client's address group (an IPv4 address, an IPv6 /64), never the address;
two accounts of one group made within a week are linked, and the ladder never pairs their
bots. A loopback or private address says nothing and links nobody (every account of a local
``make run`` comes from 127.0.0.1)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import asyncpg
import httpx
import pytest

from services.base.config import WebSettings
from services.db import ladder_links as db_links
from services.ladder.links import owner_pair
from tests.services.helpers.api_helpers import NetworkGuard, app_client

pytestmark = pytest.mark.anyio


@pytest.fixture
async def behind_proxy(
    api_database_url: str,
) -> AsyncIterator[tuple[asyncpg.Pool, httpx.AsyncClient]]:
    web = WebSettings(trusted_proxies=("127.0.0.1/32",))  # the test client is the proxy
    async with app_client(api_database_url, NetworkGuard(), settings_fields={"web": web}) as made:
        yield made


async def test_accounts_of_one_address_or_one_ipv6_64_are_linked(
    behind_proxy: tuple[asyncpg.Pool, httpx.AsyncClient],
) -> None:
    pool, client = behind_proxy
    made: dict[str, int] = {}
    for label, address in (
        ("v4-a", "81.2.69.160"),
        ("v4-b", "81.2.69.160"),
        ("v4-other", "81.2.69.161"),
        ("v6-a", "2a00:1450:4001:81b::1"),
        ("v6-b", "2a00:1450:4001:81b:ffff::2"),  # another address of the same /64
        ("v6-other", "2a00:1450:4001:81c::1"),
        ("loopback-a", None),
        ("loopback-b", None),
        ("private", "10.1.2.3"),
    ):
        headers = {} if address is None else {"x-forwarded-for": address}
        answer = await client.post(
            "/v1/accounts", json={"name": f"origin-{label}-{id(made) % 10000}"}, headers=headers
        )
        assert answer.status_code == 201, answer.text
        made[label] = answer.json()["id"]
    stored = dict(
        await pool.fetch(
            "SELECT id, created_from FROM accounts WHERE id = ANY($1)", list(made.values())
        )
    )
    assert stored[made["loopback-a"]] is None and stored[made["private"]] is None
    assert b"81.2.69.160" not in stored[made["v4-a"]]  # a digest, never the address
    linked = await db_links.links_among(pool, sorted(made.values()), 604800)
    assert linked == {
        owner_pair(made["v4-a"], made["v4-b"]),
        owner_pair(made["v6-a"], made["v6-b"]),
    }
    assert not await db_links.links_among(pool, sorted(made.values()), 0)  # the window off
