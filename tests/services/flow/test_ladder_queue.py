"""One account's queue does not freeze every ladder (issue 33, item 5). An account plays five
challenges between its own bots, one of them slow: it plays as many matches as a bot may at
once (``TRUCO_BOT_MAX_MATCHES``, 4) and its fifth challenge stays queued, waiting for that
bot, not for a worker. Other owners' bots that join the ladder still get their matches; the
account's own bots do not (their queued challenge comes first); and a challenge that waits for
a worker still holds every ladder back, as tournaments' matches always did."""

from __future__ import annotations

from datetime import UTC, datetime

import asyncpg
import pytest

from engine.rules import Rules
from services.base.config import LadderSettings
from services.db import bot_health
from services.db import matches as db_matches
from services.flow import ladder as flow_ladder
from tests.services.helpers.flow_helpers import make_account, make_bot

pytestmark = pytest.mark.anyio

SETTINGS = LadderSettings(pair_per_day=100)
NOW = datetime(2026, 12, 4, 12, 0, tzinfo=UTC)
BOT_CAP = 4


async def challenge(pool: asyncpg.Pool, a: int, b: int, status: str) -> int:
    async with pool.acquire() as conn:
        match = await db_matches.insert_match(
            conn, bots=(a, b), mode="1v1", seed=1, rated=False, games_per_match=40, rules=Rules()
        )
    await pool.execute("UPDATE matches SET status = $2 WHERE id = $1", match, status)
    return match


async def on_the_ladder(pool: asyncpg.Pool, owner: int) -> int:
    bot = await make_bot(pool, owner)
    await bot_health.record_check(pool, bot, ok=True, error=None, failures_to_unavailable=3)
    await flow_ladder.join(pool, "1v1", bot, owner, SETTINGS)
    return bot


async def test_one_accounts_queued_challenges_do_not_freeze_the_ladder(
    flow_pool: asyncpg.Pool,
) -> None:
    await flow_pool.execute("DELETE FROM ladder_entries")
    await flow_pool.execute(
        "UPDATE matches SET status = 'error' WHERE status IN ('pending', 'queued', 'running')"
    )
    stranger = await make_account(flow_pool, "stranger")
    slow = await on_the_ladder(flow_pool, stranger)
    others = [await make_bot(flow_pool, stranger) for _ in range(5)]
    playing = [await challenge(flow_pool, slow, others[k], "running") for k in range(BOT_CAP)]
    stuck = await challenge(flow_pool, slow, others[4], "queued")
    joined = [await on_the_ladder(flow_pool, await make_account(flow_pool)) for _ in range(4)]

    made = await flow_ladder.tick(flow_pool, SETTINGS, NOW, bot_cap=BOT_CAP)
    seated = {b for m in await db_matches.get_matches(flow_pool, made) for b in m.bots}
    assert len(made) == 2 and seated == set(joined)  # the ladder plays on
    assert slow not in seated  # its own queued challenge comes first

    # a challenge whose bots are free waits for a worker: that still holds every ladder back
    await flow_pool.execute("UPDATE matches SET status = 'done' WHERE id = ANY($1)", made)
    free = await challenge(flow_pool, others[0], others[1], "queued")
    await flow_pool.execute("UPDATE matches SET status = 'done' WHERE id = $1", playing[0])
    assert await flow_ladder.tick(flow_pool, SETTINGS, NOW, bot_cap=BOT_CAP) == []
    await flow_pool.execute("UPDATE matches SET status = 'done' WHERE id = ANY($1)", [free, stuck])
    assert await flow_ladder.tick(flow_pool, SETTINGS, NOW, bot_cap=BOT_CAP)
