"""Bots' measured call latency, a row per bot and match (migration 0041; issue 33, 3)."""

from __future__ import annotations

from collections.abc import Sequence

from services.db.accounts import Connection, Executor

RECENT = 20
"""A bot's need is read from its latest matches: this many."""
MIN_CALLS = 10
"""A match where the bot made fewer calls says too little to count."""


async def record(
    conn: Connection, match_id: int, measured: Sequence[tuple[int, int, float, float]]
) -> None:
    """``(bot_id, calls, p95_ms, max_ms)`` of each bot that made calls in the match."""
    await conn.executemany(
        "INSERT INTO bot_call_latency (bot_id, match_id, calls, p95_ms, max_ms) "
        "VALUES ($1, $2, $3, $4, $5) ON CONFLICT ON CONSTRAINT bot_call_latency_pkey DO NOTHING",
        [(bot, match_id, calls, p95, most) for bot, calls, p95, most in measured if calls > 0],
    )


async def highest_p95(conn: Executor, bot_ids: Sequence[int]) -> dict[int, float]:
    """Each measured bot's highest 95th percentile (ms) over its :data:`RECENT` latest matches
    of at least :data:`MIN_CALLS` calls; a bot never measured is left out."""
    rows = await conn.fetch(
        "SELECT b.id, max(x.p95_ms) FROM unnest($1::bigint[]) AS b(id) "
        "CROSS JOIN LATERAL (SELECT l.p95_ms FROM bot_call_latency l "
        "WHERE l.bot_id = b.id AND l.calls >= $2 ORDER BY l.match_id DESC LIMIT $3) x "
        "GROUP BY b.id",
        list(bot_ids),
        MIN_CALLS,
        RECENT,
    )
    return {int(r[0]): float(r[1]) for r in rows}
