"""What the live pages' tests share: the platform reading the live feed from the test Redis, and
matches in play written straight into the seeded database (their feed is written to Redis by
the test), taken out again afterwards (the session's other page tests count matches)."""

from __future__ import annotations

import asyncpg
import msgspec
from litestar import Litestar

from services.base.config import RedisSettings
from services.launch.app import create_app
from tests.servers import RedisTarget
from tests.services.web.conftest import WebData, run_async, settings


def live_app(web: WebData, redis_target: RedisTarget) -> Litestar:
    """The platform on the seeded database, reading the live feed from the test Redis."""
    redis = RedisSettings(url=redis_target.url, prefix=redis_target.prefix)
    return create_app(msgspec.structs.replace(settings(web.url), redis=redis))


def running_match(
    web: WebData, names: list[str], *, players: int = 2, seed: int = 99, games: int = 1
) -> int:
    """A ``running`` match to 15 points of the seeded bots ``names`` by slot (side = slot % 2:
    two bots in 1v1 and in a team 2v2, four in an individual 2v2); its id."""
    rules: dict[str, int] = {"points_to_win": 15} | ({"players": 4} if players == 4 else {})

    async def make() -> int:
        conn = await asyncpg.connect(web.url)
        try:
            mid: int = await conn.fetchval(
                """INSERT INTO matches (mode, status, seed, games_per_match, rules, started_at,
                       queued_at, attempts)
                   VALUES ($1, 'running', $2, $3, $4::jsonb, now(), now(), 1) RETURNING id""",
                "1v1" if players == 2 else "2v2",
                seed,
                games,
                msgspec.json.encode(rules).decode(),
            )
            for slot, name in enumerate(names):
                await conn.execute(
                    "INSERT INTO match_entrants (match_id, slot, bot_id, side) "
                    "VALUES ($1, $2, $3, $4)",
                    mid,
                    slot,
                    web.seeded.bots[name],
                    slot % 2,
                )
            return mid
        finally:
            await conn.close()

    return run_async(make())


def delete_match(web: WebData, mid: int) -> None:
    async def delete() -> None:
        conn = await asyncpg.connect(web.url)
        try:
            await conn.execute("DELETE FROM matches WHERE id = $1", mid)
        finally:
            await conn.close()

    run_async(delete())
