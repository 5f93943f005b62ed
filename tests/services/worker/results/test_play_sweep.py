"""The /play sweeper and what a process killed -9 left (both found by the cluster soak, issue
37). A play match with no session behind it: an API process killed -9 between storing a new session's row and making the session
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

from arena.match.entrants import builtin_bot
from arena.match.replay import EntrantRecord
from arena.match.runner import MatchSettings, run_match
from engine.rules import Rules
from services.db import play_matches as db_play
from services.domain.packed_replay import pack
from services.play.items import Opponent, PlayStatic
from services.play.store import ORPHAN_AFTER_S, RESULT_GRACE_S, PlayStore
from services.worker.results.play_results import play_match_id, sweep
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


async def test_a_result_lost_with_its_trusted_worker_is_stored_by_the_sweeper(
    pool: asyncpg.Pool, store: PlayStore
) -> None:
    """Found by the cluster soak: a trusted worker killed -9 with a session's
    ``truco.store_play_result`` in hand lost the played match (the message comes back only
    after the broker's 2 h visibility timeout): the session was abandoned, "not stored". The
    player now hands the replay on with the session; once the result's lease runs out the
    sweeper stores it itself."""
    bot = await make_bot(pool, await make_account(pool), "http://127.0.0.1:9/")
    play_id = await _row(pool, bot, 1)
    refused, reservation = await store.admit("aa", per_address=100, total=1000)
    assert refused == 0
    await store.create(play_id, b"\x01" * 32, "aa", STATIC, reservation)
    assert await store.claim(play_id, "w", "aa") == "ok"
    replay = await run_match(
        play_match_id(play_id),
        11,
        MatchSettings(rules=Rules(points_to_win=15)),
        [
            (EntrantRecord("person", "person"), builtin_bot("builtin:random", seed=1)),
            (EntrantRecord("house", f"bot:{bot}"), builtin_bot("builtin:heuristic", seed=2)),
        ],
    )
    assert await store.hand_on(play_id, "w", "aa", pack(replay).data)
    # its store_play_result message is lost: nothing happens until the lease runs out
    assert play_id not in await sweep(pool, store, time.time())
    assert await _status(pool, play_id) == "playing"

    assert play_id in await sweep(pool, store, time.time() + RESULT_GRACE_S + 1)

    assert await _status(pool, play_id) == "finished"
    assert await pool.fetchval("SELECT replay IS NOT NULL FROM play_matches WHERE id = $1", play_id)
    session = await store.read(play_id)
    assert session is not None and session.status == "finished"
    assert await store.handed_replay(play_id) is None  # not kept once the session is over
