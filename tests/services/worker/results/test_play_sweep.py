"""The /play sweeper and a play match with no session behind it (found by the cluster soak,
issue 37): an API process killed -9 between storing a new session's row and making the session
in Redis left the row ``playing`` for good (its reservation expired and was simply forgotten;
no worker ever heard of the session). The sweeper now abandons such a row once
``ORPHAN_AFTER_S`` old; a session going on, and a row just made, are left alone."""

from __future__ import annotations

import secrets
import time
from collections.abc import AsyncIterator

import asyncpg
import pytest
import redis.asyncio as aioredis

from arena.match.runner import MatchSettings
from engine.rules import Rules
from services.db import play_matches as db_play
from services.play.items import Opponent, PlayStatic
from services.play.store import ORPHAN_AFTER_S, PlayStore
from services.worker.results.play_results import sweep
from tests.servers import RedisTarget
from tests.services.worker.fixtures import make_account, make_bot

pytestmark = pytest.mark.anyio
STATIC = PlayStatic(opponent=Opponent(bot_id=1, name="house"), settings=MatchSettings())


@pytest.fixture
async def store(redis_target: RedisTarget) -> AsyncIterator[PlayStore]:
    client = aioredis.Redis.from_url(redis_target.url)
    try:
        yield PlayStore(client, f"{redis_target.prefix}sweep-{secrets.token_hex(3)}:")
    finally:
        await client.aclose()


async def _row(pool: asyncpg.Pool, bot_id: int, age_s: float) -> int:
    made = await db_play.create_play_match(
        pool,
        bot_id=bot_id,
        account_id=None,
        person_side=0,
        rules=Rules(),
        games=1,
        seed=7,
        token_hash=secrets.token_bytes(32),
        address_key=secrets.token_bytes(32),
    )
    await pool.execute(
        "UPDATE play_matches SET created_at = now() - make_interval(secs => $2) WHERE id = $1",
        made.id,
        age_s,
    )
    return made.id


async def _status(pool: asyncpg.Pool, play_id: int) -> str:
    return str(await pool.fetchval("SELECT status FROM play_matches WHERE id = $1", play_id))


async def test_a_row_whose_session_was_never_made_is_abandoned(
    pool: asyncpg.Pool, store: PlayStore
) -> None:
    bot = await make_bot(pool, await make_account(pool), "http://127.0.0.1:9/")
    orphan = await _row(pool, bot, ORPHAN_AFTER_S + 30)  # its API died before the session
    young = await _row(pool, bot, 1)  # its API is making the session right now
    going_on = await _row(pool, bot, ORPHAN_AFTER_S + 30)  # a long session, being played
    refused, reservation = await store.admit("aa", per_address=100, total=1000)
    assert refused == 0
    await store.create(going_on, b"\x01" * 32, "aa", STATIC, reservation)

    swept = await sweep(pool, store, time.time())

    assert orphan in swept and young not in swept and going_on not in swept
    assert await _status(pool, orphan) == "abandoned"
    assert await _status(pool, young) == "playing"
    assert await _status(pool, going_on) == "playing"
    assert orphan not in await sweep(pool, store, time.time())  # once
