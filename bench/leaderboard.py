"""The leaderboard's query before and after the rating intervals (issue 15: "the leaderboard
endpoint stays as fast as it is"), side by side on one PostgreSQL database of 10,000 rated bots.

``before`` is the query the endpoint ran until migration 0009 (ratings joined to bots);
``after`` is :func:`services.db.ratings.leaderboard`, which also left-joins every entry's
stored interval and LOS (``rating_intervals``, one primary-key lookup per entry of the page).
Both run in turns on one connection (which goes first alternates), so the machine's load falls
on both alike; a page of 20 and of 100 entries, at the top and 5,000 entries down; the figure
is the median time of a call, rows decoded into the caller's objects. The database is made for the run and dropped after it.

PostgreSQL: ``DATABASE_URL``'s server if set, else 127.0.0.1:5432 as user postgres (what the
tests use); without one the benchmark says so and is skipped.
"""

from __future__ import annotations

import asyncio
import functools
import json
import secrets
import statistics
import time
from collections.abc import Awaitable, Callable
from typing import Any

import asyncpg

from bench.database import NoServer, scratch_pool
from bench.smoke import size
from services.db import ratings as db_ratings
from services.db.accounts import Executor

BOTS = size(10_000, 200)
ROUNDS = size(400, 10)
PAGES = ((20, 0), (100, 0), (20, 5_000), (100, 5_000))  # (limit, offset)

BEFORE = (
    "SELECT r.bot_id, b.name, r.rating, r.matches, r.wins, r.losses, r.draws "
    "FROM ratings r JOIN bots b ON b.id = r.bot_id "
    "WHERE r.mode = $1 AND r.matches > 0 AND b.status <> 'deleted' "
    "ORDER BY r.rating DESC, r.bot_id OFFSET $2 LIMIT $3"
)


async def _fill(pool: asyncpg.Pool) -> None:
    """10,000 bots of one owner, rated in 1v1, each with a stored interval."""
    owner = await pool.fetchval(
        "INSERT INTO accounts (name, name_key, api_key_hash) "
        "VALUES ('bench', 'bench', $1) RETURNING id",
        secrets.token_bytes(32),
    )
    await pool.execute(
        "INSERT INTO bots (owner_id, name, name_key, url, signing_secret_enc, signing_key_id) "
        "SELECT $1, 'bench-' || k, 'bench-' || k, 'http://127.0.0.1:9', '\\x00'::bytea, 'b' "
        "FROM generate_series(1, $2) AS k",
        owner,
        BOTS,
    )
    await pool.execute(
        "INSERT INTO ratings (bot_id, mode, rating, matches, wins, losses) "
        "SELECT id, '1v1', 1500 + 300 * (random() - 0.5), 40, 20, 20 FROM bots"
    )
    await pool.execute(
        "INSERT INTO rating_intervals "
        "(bot_id, mode, rating, low, high, next_bot_id, los_next, fitted_at) "
        "SELECT bot_id, mode, rating, rating - 60, rating + 60, below, "
        "CASE WHEN below IS NULL THEN NULL ELSE 0.5 END, now() FROM ("
        "SELECT *, lead(bot_id) OVER (ORDER BY rating DESC, bot_id) AS below FROM ratings) r"
    )
    await pool.execute("ANALYZE")


async def _before(conn: Executor, limit: int, offset: int) -> list[dict[str, Any]]:
    """The endpoint's read until 0009: the page's rows, one more to know whether there is more."""
    rows = await conn.fetch(BEFORE, "1v1", offset, limit + 1)
    return [dict(row) for row in rows[:limit]]


async def _timed(call: Callable[[], Awaitable[Any]]) -> float:
    start = time.perf_counter()
    await call()
    return (time.perf_counter() - start) * 1000


async def _measure(pool: asyncpg.Pool) -> dict[str, float]:
    figures: dict[str, float] = {}
    async with pool.acquire() as conn:
        for limit, offset in PAGES:
            before: list[float] = []
            after: list[float] = []
            old = functools.partial(_before, conn, limit, offset)
            new = functools.partial(db_ratings.leaderboard, conn, "1v1", limit=limit, offset=offset)
            for k in range(ROUNDS):  # in turns, first one then the other: the same load
                if k % 2:
                    after.append(await _timed(new))
                    before.append(await _timed(old))
                else:
                    before.append(await _timed(old))
                    after.append(await _timed(new))
            key = f"limit_{limit}_offset_{offset}"
            figures[f"{key}_before_ms"] = round(statistics.median(before), 3)
            figures[f"{key}_after_ms"] = round(statistics.median(after), 3)
            ratio = statistics.median(after) / statistics.median(before)
            print(
                f"leaderboard page of {limit:>3} at {offset:>5}: before "
                f"{statistics.median(before):6.2f} ms, after {statistics.median(after):6.2f} ms "
                f"(median of {ROUNDS}; after/before {ratio:.2f})"
            )
    return figures


async def run() -> dict[str, Any]:
    try:
        async with scratch_pool("leaderboard") as pool:
            await _fill(pool)
            return await _measure(pool)
    except NoServer as exc:
        print(f"leaderboard: skipped, {exc}")
        return {"skipped": "no PostgreSQL"}


def main() -> None:
    figures = asyncio.run(run())
    print(json.dumps({"bench": "leaderboard", "bots": BOTS, **figures}))


if __name__ == "__main__":
    main()
