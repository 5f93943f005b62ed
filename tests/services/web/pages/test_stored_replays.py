"""The database hands the pages replay documents, not replays: the page decodes them, and a
stored replay it cannot read (bytes that do not decompress, JSON that is no replay) leaves its
match without a viewer instead of failing the page."""

from __future__ import annotations

import asyncio
import zlib
from collections.abc import AsyncIterator

import asyncpg
import httpx
import msgspec
import pytest

from services.db import page_reads as db
from services.db.pool import create_pool
from tests.servers import (
    PostgresServer,
    new_migrated_database,
)
from tests.services.web.conftest import web_app
from tests.services.web.seed import NAMES, Seeded, Seeder

pytestmark = pytest.mark.anyio


@pytest.fixture
async def database(postgres_server: PostgresServer) -> AsyncIterator[str]:
    # a template's copy, dropped with the others (new_migrated_database runs its own loop)
    yield await asyncio.to_thread(new_migrated_database, postgres_server)


async def test_unreadable_replays_leave_their_pages_without_a_viewer(database: str) -> None:
    conn = await asyncpg.connect(database)
    try:
        seeder = Seeder(conn)
        seeded = Seeded(owner_id=0, bots={})
        seeder.owner = await conn.fetchval(
            "INSERT INTO accounts (name, api_key_hash) VALUES ('o', $1) RETURNING id", b"\x01" * 32
        )
        for name in NAMES[:2]:
            seeded.bots[name] = await conn.fetchval(
                """INSERT INTO bots (owner_id, name, url, signing_secret_enc, signing_key_id)
                   VALUES ($1, $2, 'https://example.invalid/', $3, 'test') RETURNING id""",
                seeder.owner,
                name,
                b"\x00" * 16,
            )
        pair = (NAMES[0], NAMES[1])
        good, corrupt, foreign = [await seeder.match(seeded, pair, seed=s) for s in (3, 5, 7)]
        await conn.execute("UPDATE replays SET data = $2 WHERE match_id = $1", corrupt, b"nope")
        await conn.execute(
            "UPDATE replays SET data = $2 WHERE match_id = $1",
            foreign,
            zlib.compress(b'{"format": "something else"}'),
        )
    finally:
        await conn.close()

    pool = await create_pool(database, min_size=1, max_size=2)
    try:
        documents = await db.replays(pool, [good, corrupt, foreign])
        assert set(documents) == {good, foreign}  # bytes that do not decompress are left out
        assert documents[good] == msgspec.json.encode(seeded.replays[good])
        transport = httpx.ASGITransport(app=web_app(database, pool))  # type: ignore[arg-type]
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            pages = {m: await client.get(f"/matches/{m}") for m in (good, corrupt, foreign)}
            bot_page = await client.get(f"/bots/{seeded.bots[NAMES[0]]}")
    finally:
        await pool.close()
    assert all(page.status_code == 200 for page in pages.values())
    assert bot_page.status_code == 200
    assert 'id="seat-0"' in pages[good].text  # the viewer draws the table
    assert 'id="seat-0"' not in pages[corrupt].text
    assert 'id="seat-0"' not in pages[foreign].text
