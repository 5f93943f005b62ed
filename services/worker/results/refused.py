"""``truco.match_refused``: a bot-calling worker refused a match it can never play (its
entrants cannot sit at its rules, :func:`arena.match.runner.check_playable`). The trusted
worker decides it as the platform's fault (:func:`services.flow.platform_faults.refused`):
nothing rated, the cause in its result, its bots free again. A ladder match's end runs the
matchmaker at once, as a stored result does."""

from __future__ import annotations

import logging
from datetime import UTC, datetime

import asyncpg

from services.base.limits import STORE_HARD_LIMIT_S, STORE_SOFT_LIMIT_S
from services.db import ladder as db_ladder
from services.flow import platform_faults
from services.worker.app import app
from services.worker.names import MATCH_REFUSED
from services.worker.results.db import run_db
from services.worker.results.dispatch import send_matches
from services.worker.results.ladder_tick import ladder_tick
from services.worker.results.store import TRANSIENT
from services.worker.task import Retry, platform_task

logger = logging.getLogger(__name__)


async def decide_refused(pool: asyncpg.Pool, match_id: int, refusal: str) -> bool:
    decided, next_ids = await platform_faults.refused(pool, match_id, refusal)
    await send_matches(pool, next_ids)
    if decided:
        logger.error("match %s: decided as a platform fault (%s)", match_id, refusal)
        if await db_ladder.ladder_match(pool, match_id):
            await ladder_tick(pool, app.settings.ladder, datetime.now(UTC))
    return decided


@platform_task(
    MATCH_REFUSED,
    limits=(STORE_SOFT_LIMIT_S, STORE_HARD_LIMIT_S),
    retry=Retry(TRANSIENT, max_retries=20),
)
def match_refused(match_id: int, refusal: str) -> bool:
    """Decide ``match_id`` as the platform's fault, with the worker's words (idempotent)."""
    decided: bool = run_db(lambda pool: decide_refused(pool, match_id, refusal))
    return decided
