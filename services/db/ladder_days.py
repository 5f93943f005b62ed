"""A ladder day's matches a page at a time (``GET /v1/ladders/{pool}/days/{day}``, issue 33, 4:
the whole day in one answer was 194 KB, and at 11 a second took others' p50 to 2.6 s)."""

from __future__ import annotations

from datetime import date

from services.db.accounts import Executor


async def day_match_ids(conn: Executor, pool: str, day: date, after: int, limit: int) -> list[int]:
    """The ids of the day's matches numbered past ``after``, at most ``limit``, by number (the
    unique index ``matches_ladder_identity`` serves it)."""
    rows = await conn.fetch(
        "SELECT id FROM matches WHERE ladder_pool = $1 AND ladder_day = $2 AND ladder_number > $3 "
        "ORDER BY ladder_number LIMIT $4",
        pool,
        day,
        after,
        limit,
    )
    return [int(r["id"]) for r in rows]


async def day_match_count(conn: Executor, pool: str, day: date) -> int:
    found = await conn.fetchval(
        "SELECT count(*) FROM matches WHERE ladder_pool = $1 AND ladder_day = $2", pool, day
    )
    return int(found or 0)
