"""Reads cannot starve the database pool (issue 33, 4): 20 loops of ``GET /v1/ladders/1v1`` from
one address (13 answers a second, inside every budget) took another address's
``GET /v1/bots/1`` from 9 ms to 2.4 s, waiting for one of the pool's 10 connections.

The flood here is made deterministic: every ladder read holds a pool connection until the test
lets it go (a slow query), the pool has 4 connections, and the flooder sends 20 signed-in
reads at once (a signed-in reader is not served the kept public table). What must hold: the
flooder never holds more than its share of reads at once, and while its reads are held another
address's read and write are answered (within a hang guard; no timing is asserted)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime
from typing import Any

import asyncpg
import httpx
import pytest

from services.api.guard.read_lane import lane_of
from services.api.routes import ladders as ladder_routes
from services.api.routes.ladder_tables import ladder_tables
from services.base.config import LadderSettings, WebSettings
from services.db.pool import create_pool
from services.flow.ladder_table import read_table
from services.launch.app import create_app
from tests.services.helpers.api_helpers import NetworkGuard, settings, unique
from tests.services.helpers.flow_helpers import make_account, make_bot

pytestmark = pytest.mark.anyio
HANG_GUARD_S = 60.0
FLOODER, OTHER = "203.0.113.7", "198.51.100.9"


class SlowReads:
    """Signed-in ladder reads that hold their pool connection until the gate opens (a slow
    query): wraps :func:`services.flow.ladder_table.read_table` where the route calls it."""

    def __init__(self) -> None:
        self.gate = asyncio.Event()
        self.holding = 0
        self.most = 0
        self.changed = asyncio.Event()

    async def __call__(
        self, conn: asyncpg.Connection, ladder: Any, now: datetime, settings: LadderSettings
    ) -> Any:
        self.holding += 1
        self.most = max(self.most, self.holding)
        self.changed.set()
        try:
            await self.gate.wait()
        finally:
            self.holding -= 1
        return await read_table(conn, ladder, now, settings)

    async def until_holding(self, count: int) -> None:
        async with asyncio.timeout(HANG_GUARD_S):
            while self.holding < count:
                self.changed.clear()
                await self.changed.wait()


@asynccontextmanager
async def platform(
    database_url: str, guard: NetworkGuard, web: WebSettings
) -> AsyncIterator[tuple[Any, dict[str, httpx.AsyncClient], asyncpg.Pool]]:
    pool = await create_pool(database_url, min_size=1, max_size=4)
    try:
        app = create_app(
            settings(database_url, web=web), pool=pool, bot_client_factory=guard.factory
        )
        clients = {
            peer: httpx.AsyncClient(
                transport=httpx.ASGITransport(app=app, client=(peer, 4000)),  # type: ignore[arg-type]
                base_url="http://testserver",
            )
            for peer in (FLOODER, OTHER)
        }
        try:
            yield app, clients, pool
        finally:
            for client in clients.values():
                await client.aclose()
    finally:
        await pool.close()


async def _key(client: httpx.AsyncClient) -> dict[str, str]:
    created = await client.post("/v1/accounts", json={"name": unique("reader")})
    assert created.status_code == 201, created.text
    return {"Authorization": f"Bearer {created.json()['api_key']}"}


async def test_one_address_looping_on_the_ladder_does_not_starve_another(
    api_database_url: str, guard: NetworkGuard, monkeypatch: pytest.MonkeyPatch
) -> None:
    slow = SlowReads()
    monkeypatch.setattr(ladder_routes, "read_table", slow)
    web = WebSettings(reads_at_once=3, reads_per_address=2)
    async with platform(api_database_url, guard, web) as (app, clients, pool):
        lane = lane_of(app.state)
        lane.wait_s = HANG_GUARD_S * 2  # the flood waits; nothing here is refused for time
        owner = await make_account(pool, "owned")
        bot = await make_bot(pool, owner)
        key = await _key(clients[FLOODER])
        flood = [
            asyncio.create_task(clients[FLOODER].get("/v1/ladders/1v1", headers=key))
            for _ in range(20)
        ]
        try:
            await slow.until_holding(2)
            async with asyncio.timeout(HANG_GUARD_S):
                while lane.waited < 18:  # the other 18 queue behind their own address
                    await asyncio.sleep(0.01)
            # another address is served while the flood is held: a read and a write
            async with asyncio.timeout(HANG_GUARD_S):
                read = await clients[OTHER].get(f"/v1/bots/{bot}")
                write = await clients[OTHER].post("/v1/accounts", json={"name": unique("w")})
            assert read.status_code == 200, read.text
            assert write.status_code == 201, write.text
            assert slow.holding == 2 and slow.most == 2  # the flooder's share, never more
            assert lane.by_address[FLOODER] == 2
        finally:
            slow.gate.set()
        async with asyncio.timeout(HANG_GUARD_S):
            answers = await asyncio.gather(*flood)
        assert [a.status_code for a in answers] == [200] * 20  # waited, then served
        assert slow.most == 2 and lane.active == 0


async def test_without_a_key_the_flood_is_one_read_of_the_table(
    api_database_url: str, guard: NetworkGuard, monkeypatch: pytest.MonkeyPatch
) -> None:
    web = WebSettings()
    async with platform(api_database_url, guard, web) as (app, clients, _pool):
        tables = ladder_tables(app.state)
        answers = await asyncio.gather(
            *(clients[FLOODER].get("/v1/ladders/1v1") for _ in range(40))
        )
        assert {a.status_code for a in answers} == {200}
        assert len({a.content for a in answers}) == 1
        assert tables.reads == 1
        # the ladder page reads the same kept table and is rendered once for it
        pages = [await clients[OTHER].get("/ladders/1v1?lang=en") for _ in range(5)]
        assert {p.status_code for p in pages} == {200}
        assert tables.reads == 1
        # past the kept time, the next reader reads it again
        clock = tables.clock()
        tables.clock = lambda: clock + tables.keep_s + 1
        assert (await clients[OTHER].get("/v1/ladders/1v1")).status_code == 200
        assert tables.reads == 2
