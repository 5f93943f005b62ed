"""The ladder's reads do not grow with its history (issue 33, item 4): the table (what
``GET /v1/ladders/{pool}``, its page and the matchmaker read) and a whole matchmaker tick read
about as many database blocks with 6,000 ladder matches played as with 300. Measured in
blocks (PostgreSQL's own count for the database, hits and reads), not in seconds: the same on
a loaded machine. Before migration 0030 the table counted every bot's matches over all its
history: 20 times the matches, about 20 times the blocks."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

import asyncpg
import pytest

from bench.ladder_history import seed_history
from services.base.config import LadderSettings
from services.db import ladder as db_ladder
from services.db.pool import create_pool
from services.flow import ladder as flow_ladder
from tests.servers import PostgresServer, new_migrated_database

pytestmark = pytest.mark.anyio

NOW = datetime(2026, 12, 20, 12, 0, tzinfo=UTC)
BOTS = 30


async def blocks_of(pool: asyncpg.Pool, work: Callable[[], Awaitable[Any]]) -> int:
    """Blocks (hit or read) the database served while ``work`` ran on ``pool``'s only
    connection."""

    async def served() -> int:
        await pool.execute("SELECT pg_stat_force_next_flush()")
        await pool.execute("SELECT 1")  # the flush happens at this transaction's end
        await pool.execute("SELECT pg_stat_clear_snapshot()")
        return int(
            await pool.fetchval(
                "SELECT blks_hit + blks_read FROM pg_stat_database "
                "WHERE datname = current_database()"
            )
        )

    before = await served()
    await work()
    return await served() - before


@pytest.fixture
def two_databases(postgres_server: PostgresServer) -> tuple[str, str]:
    return new_migrated_database(postgres_server), new_migrated_database(postgres_server)


async def measured(url: str, matches: int) -> tuple[int, int]:
    """(blocks of the table read, blocks of a tick) with ``matches`` ladder matches played."""
    seeding = await create_pool(url, min_size=1, max_size=2)
    try:
        await seed_history(seeding, bots=BOTS, matches=matches, today=NOW.date())
    finally:
        await seeding.close()
    pool = await create_pool(url, min_size=1, max_size=1)
    try:
        await db_ladder.table(pool, "1v1", NOW)  # warm the catalogue caches of the connection
        table = await blocks_of(pool, lambda: db_ladder.table(pool, "1v1", NOW))
        settings = LadderSettings(hourly_cap=1000, pair_per_day=1000)
        tick = await blocks_of(pool, lambda: flow_ladder.tick(pool, settings, NOW))
    finally:
        await pool.close()
    return table, tick


async def test_the_ladder_table_and_a_tick_read_no_more_as_history_grows(
    two_databases: tuple[str, str],
) -> None:
    small_table, small_tick = await measured(two_databases[0], 300)
    large_table, large_tick = await measured(two_databases[1], 6_000)
    assert large_table <= 1.5 * small_table + 100, (small_table, large_table)
    assert large_tick <= 1.5 * small_tick + 200, (small_tick, large_tick)
