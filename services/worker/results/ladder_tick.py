"""``truco.ladder_tick``: the trusted worker runs the ladders' matchmaker.

Beat sends it every ``TRUCO_LADDER_EVERY_S`` (5) seconds (``services.worker.schedule``). Under
a lease (a PostgreSQL advisory lock held for the tick, so two workers never pick at once) it
runs :func:`services.flow.ladder.tick` and sends the matches it made to the bot-calling
workers on the ``ladder`` queue (:data:`services.worker.names.LADDER`). Its work reads the
ladders' current tables and today's meetings, never the history of matches.
"""

from __future__ import annotations

import logging
import time
from datetime import UTC, datetime

import asyncpg

from services.base.config import LadderSettings
from services.base.limits import SHORT_HARD_LIMIT_S, SHORT_SOFT_LIMIT_S
from services.flow import ladder as flow_ladder
from services.metrics.catalog import LADDER_MATCHES_CHOSEN, LADDER_TICK_DURATION, LADDER_TICKS
from services.worker.app import app
from services.worker.names import LADDER, LADDER_TICK
from services.worker.results.db import run_db
from services.worker.results.dispatch import send_matches
from services.worker.task import platform_task

logger = logging.getLogger(__name__)

LEASE_KEY = 0x7472_7563_6F4C_6164  # "trucoLad": the matchmaker's advisory lock


async def ladder_tick(
    pool: asyncpg.Pool,
    settings: LadderSettings,
    now: datetime,
    *,
    trigger: str = "beat",
    bot_cap: int | None = None,
) -> list[int]:
    """One tick under the lease; the ids of the ladder matches sent (none if another worker
    holds the lease). ``trigger`` (``beat`` or ``result``) labels its metrics; ``bot_cap``: the
    matches a bot may play at once (default: this worker's ``TRUCO_BOT_MAX_MATCHES``)."""
    cap = app.settings.worker.bot_max_matches if bot_cap is None else bot_cap
    async with pool.acquire() as conn:
        if not await conn.fetchval("SELECT pg_try_advisory_lock($1)", LEASE_KEY):
            LADDER_TICKS.labels(trigger, "busy").inc()
            return []
        started = time.perf_counter()
        try:
            match_ids = await flow_ladder.tick(pool, settings, now, bot_cap=cap)
            await send_matches(pool, match_ids, queue=LADDER)
        finally:
            await conn.execute("SELECT pg_advisory_unlock($1)", LEASE_KEY)
    LADDER_TICKS.labels(trigger, "ran").inc()
    LADDER_TICK_DURATION.labels(trigger).observe(time.perf_counter() - started)
    LADDER_MATCHES_CHOSEN.labels(trigger).inc(len(match_ids))
    if match_ids:
        logger.info("ladder tick: %d matches sent", len(match_ids))
    return match_ids


@platform_task(LADDER_TICK, limits=(SHORT_SOFT_LIMIT_S, SHORT_HARD_LIMIT_S))
def run_ladder_tick() -> int:
    """Run the matchmaker once; returns how many ladder matches it sent."""
    settings = app.settings.ladder
    return len(run_db(lambda pool: ladder_tick(pool, settings, datetime.now(UTC))))
