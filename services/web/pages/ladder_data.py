"""What the ladder pages read: a ladder's table as ``GET /v1/ladders/{pool}`` ranks it, and a
bot's place on each ladder it is on (docs/ladder.md)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

import asyncpg

from services.api.routes.ladder_tables import LadderTables
from services.api.schemas.ladders import LadderEntryRead
from services.base.config import LadderSettings
from services.db import ladder as db_ladder
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
    version: str  # of the read: the page's cache key


async def ladder_table(
    tables: LadderTables, pool: asyncpg.Pool, ladder: LadderPool, settings: LadderSettings
) -> LadderTable:
    """The table as the API's public answer has it (read at most every few seconds:
    :mod:`services.api.routes.ladder_tables`)."""
    snap = await tables.snapshot(pool, ladder, settings)
    read = snap.read
    return LadderTable(
        ladder, snap.public, read.in_flight, read.today, read.commitment, snap.version
    )


async def ladders_of_bot(
    tables: LadderTables, pool: asyncpg.Pool, bot_id: int, settings: LadderSettings
) -> list[BotLadder]:
    """The bot's place in each ladder it is on (its rank among the whole table)."""
    found: list[tuple[str, list[LadderEntryRead]]] = []
    for entry in await db_ladder.entries_of_bot(pool, bot_id):
        ladder = ladder_named(entry.pool)
        if ladder is not None:
            found.append((ladder, (await tables.snapshot(pool, ladder, settings)).public))
    return bot_ladders(found, bot_id)
