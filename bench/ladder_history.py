"""The ladder's reads as its history grows (``make bench`` line ``ladder_history``, issue 33
item 4): a pool of 60 bots of 30 owners with 1,000 and then 100,000 ladder matches played
before today, on a PostgreSQL database of its own. Measured side by side in the same run:

* ``table``: the ladder's table (``GET /v1/ladders/{pool}``, the page, the tick's input), the
  current query (per-bot counts kept as matches happen, migration 0030) against the query it
  replaced (``BEFORE_TABLE``: five counts per bot over all its ladder matches);
* ``tick``: one whole run of the matchmaker (``services.flow.ladder.tick``: reveal, the hold for
  other matches, the table, today's meetings, the picks and their inserts) against the same
  tick's reads done the old way (``before_tick_reads``: the old table and the old global
  hold, the rest unchanged), its inserts undone after each run.

Each figure is the median of ``REPEATS`` runs. :func:`seed_history` is also what
``tests/services/db/test_ladder_reads.py`` fills its database with.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, date, datetime, timedelta
from typing import Any

import asyncpg

from bench.database import NoServer, scratch_pool
from bench.smoke import size
from services.db.accounts import Executor

SIZES = size((1_000, 100_000), (200,))
BOTS = 60
REPEATS = size(7, 1)
BEFORE_TIMEOUT_S = 600.0  # the old queries at 100,000 matches take tens of seconds
NOW = datetime(2026, 12, 20, 12, 0, tzinfo=UTC)

BEFORE_TABLE = """
SELECT e.bot_id, b.name AS bot_name, b.owner_id, a.name AS owner_name, b.status AS bot_status,
       b.last_ok_at IS NOT NULL AS answered,
       e.joined_at, e.hourly_cap, e.paused_at, e.pause_cause,
       r.rating AS elo, i.rating, i.low, i.high, i.los_next,
       (SELECT count(*) FROM match_entrants me JOIN matches m ON m.id = me.match_id
         WHERE me.bot_id = e.bot_id AND m.ladder_pool = e.pool
           AND m.status IN ('done', 'forfeit'))::int AS matches,
       (SELECT count(*) FROM match_entrants me JOIN matches m ON m.id = me.match_id
         WHERE me.bot_id = e.bot_id AND m.ladder_pool = e.pool
           AND m.created_at > $2::timestamptz - interval '1 hour')::int AS last_hour,
       (SELECT max(m.created_at) FROM match_entrants me JOIN matches m ON m.id = me.match_id
         WHERE me.bot_id = e.bot_id AND m.ladder_pool = e.pool) AS last_started,
       (SELECT count(*) FROM match_entrants me JOIN matches m ON m.id = me.match_id
         WHERE me.bot_id = e.bot_id AND m.ladder_pool = e.pool AND m.ladder_reason = 'placing'
           AND m.created_at > $2::timestamptz - interval '1 hour')::int AS last_hour_placing,
       (SELECT max(m.created_at) FROM match_entrants me JOIN matches m ON m.id = me.match_id
         WHERE me.bot_id = e.bot_id AND m.ladder_pool = e.pool
           AND m.ladder_reason IS DISTINCT FROM 'placing') AS last_paced,
       EXISTS (SELECT 1 FROM match_entrants me JOIN matches m ON m.id = me.match_id
         WHERE me.bot_id = e.bot_id AND m.ladder_pool IS NOT NULL
           AND m.status IN ('pending', 'queued', 'running')) AS playing,
       (SELECT count(*) FROM match_entrants me JOIN matches m ON m.id = me.match_id
         WHERE me.bot_id = e.bot_id AND m.ladder_pool IS NOT NULL
           AND m.status IN ('pending', 'queued', 'running'))::int AS in_play
FROM ladder_entries e
JOIN bots b ON b.id = e.bot_id
JOIN accounts a ON a.id = b.owner_id
LEFT JOIN ratings r ON r.bot_id = e.bot_id AND r.mode = e.pool
LEFT JOIN rating_intervals i ON i.bot_id = e.bot_id AND i.mode = e.pool
WHERE e.pool = $1
ORDER BY i.rating DESC NULLS LAST, e.joined_at, e.bot_id
"""
"""The table's query before migration 0030 (the baseline)."""

BEFORE_HOLD = "SELECT count(*) FROM matches WHERE ladder_pool IS NULL AND status = 'queued'"
"""The tick's global hold before issue 33 item 5 (the baseline)."""


async def seed_history(
    pool: asyncpg.Pool, *, bots: int, matches: int, today: date, pool_name: str = "1v1"
) -> list[int]:
    """``bots`` bots of ``bots // 2`` owners on the ``pool_name`` ladder (each with a fitted
    interval and a health check answered), and ``matches`` finished, rated ladder matches
    between them spread over the 30 days before ``today``, with their results, rating history
    and the per-bot counts migration 0030 keeps. Returns the bots' ids."""
    owners = max(bots // 2, 2)
    async with pool.acquire() as conn, conn.transaction():
        accounts = await conn.fetch(
            "INSERT INTO accounts (name, name_key) SELECT 'hist-' || k, 'hist-' || k "
            "FROM generate_series(1, $1) AS k RETURNING id",
            owners,
        )
        owner_ids = [int(r["id"]) for r in accounts]
        made = await conn.fetch(
            "INSERT INTO bots (owner_id, name, name_key, url, signing_secret_enc, signing_key_id, "
            "last_ok_at) SELECT ($1::bigint[])[1 + (k % $3)], 'hbot-' || k, 'hbot-' || k, "
            "'http://127.0.0.1:9', '\\x00'::bytea, 'k', now() "
            "FROM generate_series(1, $2) AS k RETURNING id",
            owner_ids,
            bots,
            owners,
        )
        bot_ids = [int(r["id"]) for r in made]
        await conn.execute(
            "INSERT INTO ladder_entries (pool, bot_id, hourly_cap) "
            "SELECT $1, unnest($2::bigint[]), 60",
            pool_name,
            bot_ids,
        )
        await conn.execute(
            "INSERT INTO ratings (bot_id, mode, rating, matches, draws) "
            "SELECT b, $1, 1300 + 7 * (k % 60), 10, 10 FROM unnest($2::bigint[]) WITH ORDINALITY "
            "AS t(b, k)",
            pool_name,
            bot_ids,
        )
        await conn.execute(
            "INSERT INTO rating_intervals (bot_id, mode, rating, low, high, fitted_at) "
            "SELECT b, $1, 1300 + 7 * (k % 60), 1250 + 7 * (k % 60), 1350 + 7 * (k % 60), "
            "now() FROM unnest($2::bigint[]) WITH ORDINALITY AS t(b, k)",
            pool_name,
            bot_ids,
        )
        days = [today - timedelta(days=d) for d in range(1, 31)]
        await conn.executemany(
            "INSERT INTO ladder_days (pool, day, master_seed, commitment, revealed_at) "
            "VALUES ($1, $2, decode(repeat('00', 32), 'hex'), 'c', now())",
            [(pool_name, d) for d in days],
        )
        if matches:
            await _seed_matches(conn, pool_name, bot_ids, matches, days)
        await conn.execute(
            "INSERT INTO ladder_tallies (pool, bot_id, rated, last_started, last_paced) "
            "SELECT m.ladder_pool, e.bot_id, count(*), max(m.created_at), max(m.created_at) "
            "FROM matches m JOIN match_entrants e ON e.match_id = m.id "
            "WHERE m.ladder_pool = $1 GROUP BY m.ladder_pool, e.bot_id",
            pool_name,
        )
    async with pool.acquire() as conn:
        await conn.execute("ANALYZE")
    return bot_ids


async def _seed_matches(
    conn: Executor, pool_name: str, bot_ids: list[int], count: int, days: list[date]
) -> None:
    """``count`` done ladder matches, round-robin over the bots and the days (bulk SQL)."""
    n = len(bot_ids)
    await conn.execute(
        "CREATE TEMP TABLE seeded AS SELECT k, "
        "($1::bigint[])[1 + (k % $2)] AS a, ($1::bigint[])[1 + ((k + 1 + k / $2) % $2)] AS b, "
        "($3::date[])[1 + (k % cardinality($3::date[]))] AS day "
        "FROM generate_series(0, $4 - 1) AS k",
        bot_ids,
        n,
        days,
        count,
    )
    await conn.execute("DELETE FROM seeded WHERE a = b")
    await conn.execute(
        "ALTER TABLE seeded ADD COLUMN id bigint; "
        "WITH made AS (INSERT INTO matches (mode, status, seed, rated, games_per_match, rules, "
        "winner_side, created_at, finished_at, ladder_pool, ladder_day, ladder_number, "
        "ladder_reason, seed_scheme) "
        f"SELECT '1v1', 'done', k, true, 1, '{{\"points_to_win\": 15}}'::jsonb, k % 2, "
        "day + time '10:00', day + time '10:01', "
        f"'{pool_name}', day, k, 'uncertain', 'derived-v1' FROM seeded ORDER BY k "
        "RETURNING id, ladder_number) "
        "UPDATE seeded SET id = made.id FROM made WHERE made.ladder_number = seeded.k"
    )
    await conn.execute(
        "INSERT INTO match_entrants (match_id, slot, bot_id, side) "
        "SELECT id, 0, a, 0 FROM seeded UNION ALL SELECT id, 1, b, 1 FROM seeded"
    )
    await conn.execute(
        "INSERT INTO match_results (match_id, winner_side, result) "
        "SELECT id, k % 2, jsonb_build_object('reason', 'games', 'games', '[]'::jsonb, "
        "'games_won', jsonb_build_array(1 - k % 2, k % 2), 'tantos', '[0, 0]'::jsonb, "
        "'forfeit', null, 'walkover', '[]'::jsonb, 'faults', '[0, 0]'::jsonb) FROM seeded"
    )
    await conn.execute(
        f"INSERT INTO rating_history (bot_id, mode, match_id, rating_before, rating_after) "
        f"SELECT a, '{pool_name}', id, 1500, 1500 FROM seeded UNION ALL "
        f"SELECT b, '{pool_name}', id, 1500, 1500 FROM seeded"
    )
    await conn.execute(
        f"UPDATE ladder_days d SET matches = s.n FROM (SELECT day, max(k) + 1 AS n FROM seeded "
        f"GROUP BY day) s WHERE d.pool = '{pool_name}' AND d.day = s.day"
    )
    await conn.execute("DROP TABLE seeded")


async def _median(work: Callable[[], Awaitable[Any]], undo: Callable[[], Awaitable[Any]]) -> float:
    times = []
    for _ in range(REPEATS):
        started = time.perf_counter()
        await work()
        times.append(time.perf_counter() - started)
        await undo()
    return statistics.median(times)


async def before_tick_reads(pool: asyncpg.Pool, now: datetime) -> None:
    """What the tick read before, pool by pool: the old global hold and the old table (the
    reveal, in-flight count and today's meetings are as today's tick reads them)."""
    from services.db import ladder as db_ladder
    from services.ladder.model import LADDER_POOLS

    async with pool.acquire() as conn:
        for ladder in LADDER_POOLS:
            await db_ladder.reveal_days(conn, ladder, now.date())
        await conn.fetchval(BEFORE_HOLD, timeout=BEFORE_TIMEOUT_S)
    for ladder in LADDER_POOLS:
        async with pool.acquire() as conn:
            for other in LADDER_POOLS:
                await db_ladder.in_flight(conn, other)
        async with pool.acquire() as conn:
            await conn.fetch(BEFORE_TABLE, ladder, now, timeout=BEFORE_TIMEOUT_S)
            await db_ladder.met_on(conn, ladder, now.date())


async def measure(matches: int) -> dict[str, Any]:
    from services.base.config import LadderSettings
    from services.db import ladder as db_ladder
    from services.flow import ladder as flow_ladder

    async with scratch_pool("ladder_history", max_size=4) as pool:
        await seed_history(pool, bots=BOTS, matches=matches, today=NOW.date())
        settings = LadderSettings(hourly_cap=1000, pair_per_day=1000)

        async def undo() -> None:
            await pool.execute(
                "DELETE FROM match_entrants e USING matches m WHERE m.id = e.match_id "
                "AND m.status = 'pending'"
            )
            await pool.execute("DELETE FROM matches WHERE status = 'pending'")

        async def nothing() -> None:
            return None

        made = await flow_ladder.tick(pool, settings, NOW)
        await undo()
        return {
            "bench": "ladder_history",
            "ladder_matches": matches,
            "bots": BOTS,
            "tick_matches_made": len(made),
            "table_s": await _median(lambda: db_ladder.table(pool, "1v1", NOW), nothing),
            "table_before_s": await _median(
                lambda: pool.fetch(BEFORE_TABLE, "1v1", NOW, timeout=BEFORE_TIMEOUT_S), nothing
            ),
            "tick_s": await _median(lambda: flow_ladder.tick(pool, settings, NOW), undo),
            "tick_reads_before_s": await _median(lambda: before_tick_reads(pool, NOW), nothing),
        }


def main() -> None:
    for matches in SIZES:
        try:
            line = asyncio.run(measure(matches))
        except NoServer as exc:
            print(f"ladder_history: skipped ({exc})")
            return
        print(
            f"ladder_history {matches:>7} ladder matches: table {1000 * line['table_s']:.1f} ms "
            f"(before {1000 * line['table_before_s']:.1f} ms); tick {1000 * line['tick_s']:.1f} "
            f"ms with {line['tick_matches_made']} matches made (its reads before "
            f"{1000 * line['tick_reads_before_s']:.1f} ms)"
        )
        print(json.dumps(line))


if __name__ == "__main__":
    main()
