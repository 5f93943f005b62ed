"""A finished 40-bot round robin (780 matches in 39 rounds), played for real through the
platform's own flow: the size of event whose page was 122 KB (issue 21, break 3). In a
database of its own, so the other page tests keep their small, exact data."""

from __future__ import annotations

from services import flow
from services.db.pool import create_pool
from tests.services.helpers.flow_helpers import InProcessSender, in_process, make_tournament

EVENT_BOTS = 40
EVENT_MATCHES = EVENT_BOTS * (EVENT_BOTS - 1) // 2  # 780


async def seed_event(url: str, bots: int = EVENT_BOTS) -> int:
    """The finished round robin's id (``bots`` entrants: the bench's smoke run plays a tiny one)."""
    pool = await create_pool(url, min_size=1, max_size=8)
    try:
        tid, _bots = await make_tournament(pool, "round_robin", bots, games_per_match=1)
        async with pool.acquire() as conn:  # names as long as people give them
            await conn.execute(
                "UPDATE bots SET name = 'contender-' || lpad(id::text, 3, '0') || '-heuristic-v2'"
            )
        send = InProcessSender(in_process({}))
        await send(pool, await flow.start_tournament(pool, tid))
        status = await pool.fetchval("SELECT status FROM tournaments WHERE id = $1", tid)
        assert status == "finished", status
        return tid
    finally:
        await pool.close()
