"""One round of health probes (issue 21, break 9) on one PostgreSQL database of 10,000 bots:
10 accounts of 1,000 bots, 1 in 10 busy (on a ladder); every bot checked two hours ago (all
due: the worst round), then ten minutes ago (the idle ones not due: a round in the steady state).

``before``: the round as it was until this change (every live bot, least recently checked
first: each was probed every minute); ``after``: :func:`services.worker.results.periodic.health_targets`
(busy bots every round, idle ones hourly, at most 20 probes a minute per account). The figures:
the probes of one round, and the median time of the round's query and plan (in turns on one
connection, so the machine's load falls on both alike). The database is made for the run and
dropped after it.

PostgreSQL: ``DATABASE_URL``'s server if set, else 127.0.0.1:5432 as user postgres; without
one the benchmark says so and is skipped.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import time
from datetime import UTC, datetime
from typing import Any

import asyncpg

from bench.database import NoServer, scratch_pool
from bench.smoke import size
from services.base.config import WorkerSettings
from services.worker.results.periodic import health_targets

ACCOUNTS = size(10, 2)
BOTS_EACH = size(1_000, 20)
ROUNDS = size(40, 3)
BEFORE = (
    "SELECT id, url, status FROM bots WHERE status <> 'deleted' "
    "ORDER BY last_check_at NULLS FIRST, id LIMIT 10000"
)


async def _fill(pool: asyncpg.Pool) -> None:
    for a in range(ACCOUNTS):
        owner = await pool.fetchval(
            "INSERT INTO accounts (name, name_key) VALUES ($1, $1) RETURNING id", f"bench-{a}"
        )
        await pool.execute(
            "INSERT INTO bots (owner_id, name, name_key, url, signing_secret_enc, "
            "signing_key_id, last_check_at) "
            "SELECT $1, $2 || k, $2 || k, 'http://127.0.0.1:9', '\\x00'::bytea, 'b', "
            "now() - interval '2 hours' FROM generate_series(1, $3) AS k",
            owner,
            f"bench-{a}-",
            BOTS_EACH,
        )
    await pool.execute(
        "INSERT INTO ladder_entries (pool, bot_id, hourly_cap) "
        "SELECT '1v1', id, 60 FROM bots WHERE id % 10 = 0"
    )
    await pool.execute("ANALYZE")


async def _timed(call: Any) -> tuple[float, int]:
    start = time.perf_counter()
    result = await call()
    return (time.perf_counter() - start) * 1000, len(result)


async def _measure(pool: asyncpg.Pool, phase: str) -> dict[str, float]:
    settings = WorkerSettings()
    before: list[float] = []
    after: list[float] = []
    counts = {"before": 0, "after": 0}

    async def old() -> list[Any]:
        return list(await pool.fetch(BEFORE))

    async def new() -> list[Any]:
        return await health_targets(pool, datetime.now(UTC), settings)

    for k in range(ROUNDS):
        pairs = ((old, before, "before"), (new, after, "after"))
        for call, times, name in pairs if k % 2 else reversed(pairs):
            elapsed, counts[name] = await _timed(call)
            times.append(elapsed)
    figures = {
        f"{phase}_probes_before": counts["before"],
        f"{phase}_probes_after": counts["after"],
        f"{phase}_round_before_ms": round(statistics.median(before), 2),
        f"{phase}_round_after_ms": round(statistics.median(after), 2),
    }
    print(
        f"probe round ({phase}), {ACCOUNTS} accounts x {BOTS_EACH} bots (1 in 10 busy): "
        f"{counts['before']} probes before, {counts['after']} after "
        f"({settings.probes_per_account_per_minute} a minute per account); the round's query "
        f"and plan {statistics.median(before):.1f} ms before, {statistics.median(after):.1f} ms "
        f"after (median of {ROUNDS})"
    )
    return figures


async def _phases(pool: asyncpg.Pool) -> dict[str, float]:
    figures = await _measure(pool, "all_due")
    await pool.execute("UPDATE bots SET last_check_at = now() - interval '10 minutes'")
    return {**figures, **await _measure(pool, "steady")}


async def run() -> dict[str, Any]:
    try:
        async with scratch_pool("probe_round") as pool:
            await _fill(pool)
            return await _phases(pool)
    except NoServer as exc:
        print(f"probe_round: skipped, {exc}")
        return {"skipped": "no PostgreSQL"}


def main() -> None:
    figures = asyncio.run(run())
    print(json.dumps({"bench": "probe_round", "bots": ACCOUNTS * BOTS_EACH, **figures}))


if __name__ == "__main__":
    main()
