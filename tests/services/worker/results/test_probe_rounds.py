"""Health probe rounds against the real database (issue 21, break 9): 1,000 bots of one
account get at most TRUCO_PROBES_PER_ACCOUNT_PER_MINUTE probes a round, and a bot is busy
(probed every round) only while it is in an open tournament, on a ladder, or played in the
last day; idle bots wait ``probe_idle_every_s``. The clock is an argument (no waiting)."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import asyncpg
import pytest

from services.base.config import WorkerSettings
from services.worker.results.periodic import health_targets
from tests.services.worker.fixtures import make_account

pytestmark = pytest.mark.anyio
SETTINGS = WorkerSettings(probes_per_account_per_minute=20, probe_idle_every_s=3600)
FLEET = 1000


async def _fleet(pool: asyncpg.Pool, owner: int, count: int) -> list[int]:
    prefix = f"fleet-{secrets.token_hex(4)}-"
    rows = await pool.fetch(
        "INSERT INTO bots (owner_id, name, url, signing_secret_enc, signing_key_id) "
        "SELECT $1, $2 || n, 'http://127.0.0.1:9/' || n, '\\x00'::bytea, 'k1' "
        "FROM generate_series(1, $3) AS n RETURNING id",
        owner,
        prefix,
        count,
    )
    return sorted(row["id"] for row in rows)


@pytest.fixture
async def fleet(pool: asyncpg.Pool) -> AsyncIterator[tuple[int, list[int]]]:
    owner = await make_account(pool)
    bots = await _fleet(pool, owner, FLEET)
    try:
        yield owner, bots
    finally:  # the run's other tests probe what is left: delete them
        await pool.execute(
            "UPDATE bots SET status = 'deleted', deleted_at = now() WHERE owner_id = $1", owner
        )


async def _checked(pool: asyncpg.Pool, bots: list[int], when: datetime) -> None:
    await pool.execute("UPDATE bots SET last_check_at = $2 WHERE id = ANY($1)", bots, when)


async def test_a_thousand_bots_of_one_account_get_a_capped_round(
    pool: asyncpg.Pool, fleet: tuple[int, list[int]]
) -> None:
    _, bots = fleet
    other_owner = await make_account(pool)
    (other,) = await _fleet(pool, other_owner, 1)
    mine = set(bots)
    now = datetime.now(UTC)

    planned = [t.bot_id for t in await health_targets(pool, now, SETTINGS)]
    assert len([b for b in planned if b in mine]) == 20  # not 1,000
    assert other in planned  # another account's bot is not crowded out
    # round after round (the checks recorded), each bot of the fleet comes in its turn, once
    # an hour (they are idle): 50 rounds of 20, then nothing until the hour is over
    seen: set[int] = set()
    probes = 0
    for minute in range(60):
        at = now + timedelta(minutes=minute)
        round_ = [t.bot_id for t in await health_targets(pool, at, SETTINGS) if t.bot_id in mine]
        assert len(round_) <= 20
        probes += len(round_)
        seen.update(round_)
        await _checked(pool, round_, at + timedelta(seconds=2))
    assert seen == mine and probes == FLEET
    await pool.execute(
        "UPDATE bots SET status = 'deleted', deleted_at = now() WHERE id = $1", other
    )


async def test_busy_bots_every_round_idle_ones_hourly(
    pool: asyncpg.Pool, fleet: tuple[int, list[int]]
) -> None:
    owner, bots = fleet
    now = datetime.now(UTC)
    on_ladder, in_event, played, played_long_ago, withdrawn = bots[:5]
    await pool.execute(
        "INSERT INTO ladder_entries (pool, bot_id, hourly_cap) VALUES ('1v1', $1, 60)", on_ladder
    )
    event = await pool.fetchval(
        "INSERT INTO tournaments (organiser_id, name, format, mode) "
        "VALUES ($1, 'probe-cup', 'swiss', '1v1') RETURNING id",
        owner,
    )
    await pool.execute(
        "INSERT INTO tournament_entries (tournament_id, bot_id, withdrawn_at) "
        "VALUES ($1, $2, NULL), ($1, $3, now())",
        event,
        in_event,
        withdrawn,
    )
    for bot, age in ((played, timedelta(hours=3)), (played_long_ago, timedelta(days=2))):
        match = await pool.fetchval(
            "INSERT INTO matches (mode, seed, status, created_at) "
            "VALUES ('1v1', 1, 'cancelled', $1) RETURNING id",
            now - age,
        )
        await pool.execute(
            "INSERT INTO match_entrants (match_id, slot, bot_id, side) VALUES ($1, 0, $2, 0)",
            match,
            bot,
        )
    try:
        # every bot checked two minutes ago: only the busy ones are due
        await _checked(pool, bots, now - timedelta(minutes=2))
        planned = {t.bot_id for t in await health_targets(pool, now, SETTINGS)} & set(bots)
        assert planned == {on_ladder, in_event, played}
        # an hour later, every bot is due: the busy ones first within the account's cap
        await _checked(pool, bots, now - timedelta(hours=2))
        round_ = [t.bot_id for t in await health_targets(pool, now, SETTINGS) if t.bot_id in bots]
        assert len(round_) == 20 and set(round_[:3]) == {on_ladder, in_event, played}
    finally:
        await pool.execute("DELETE FROM ladder_entries WHERE bot_id = $1", on_ladder)
        await pool.execute("UPDATE tournaments SET status = 'cancelled' WHERE id = $1", event)
