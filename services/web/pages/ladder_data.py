"""What the ladder pages read: a ladder's table as ``GET /v1/ladders/{pool}`` ranks it, and a
bot's place on each ladder it is on (docs/ladder.md)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime

import asyncpg

from services.api.routes.ladders import table_entries
from services.api.schemas.ladders import LadderEntryRead
from services.base.config import LadderSettings
from services.db import ladder as db_ladder
from services.flow.ladder_table import read_table
from services.ladder.model import LADDER_POOLS, LadderPool
from services.web.views.ladder import BotLadder, bot_ladders


def ladder_named(name: str) -> LadderPool | None:
    return next((pool for pool in LADDER_POOLS if pool == name), None)


@dataclass(frozen=True, slots=True)
class LadderTable:
    pool: LadderPool
    entries: list[LadderEntryRead]  # in the API's order, ranked as it ranks them
    in_flight: int
    today: date
    commitment: str | None  # today's, once today's first ladder match is made


async def ladder_table(
    pool: asyncpg.Pool, ladder: LadderPool, settings: LadderSettings
) -> LadderTable:
    async with pool.acquire() as conn:
        read = await read_table(conn, ladder, datetime.now(UTC), settings)
    return LadderTable(
        ladder, table_entries(read, None), read.in_flight, read.today, read.commitment
    )


async def ladders_of_bot(
    pool: asyncpg.Pool, bot_id: int, settings: LadderSettings
) -> list[BotLadder]:
    """The bot's place in each ladder it is on (its rank among the whole table)."""
    now = datetime.now(UTC)
    tables: list[tuple[str, list[LadderEntryRead]]] = []
    async with pool.acquire() as conn:
        for entry in await db_ladder.entries_of_bot(conn, bot_id):
            ladder = ladder_named(entry.pool)
            if ladder is None:
                continue
            read = await read_table(conn, ladder, now, settings)
            tables.append((entry.pool, table_entries(read, None)))
    return bot_ladders(tables, bot_id)
