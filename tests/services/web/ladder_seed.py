"""A ladder played for the page tests: eight bots of eight owners on the 1v1 ladder play a few
ticks in process, the pool refitted between ticks, so the table has ranks, intervals, LOS and
bots placing; one bot is paused, one has a name longer than a phone is wide; one more has just
joined the individual 2v2 ladder and waits. In a database of its own for the ladder pages'
tests, and in the shared page seed too (tests/services/web/seed.py), so every page type is
seen with ladder data present."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from services.base.config import LadderSettings
from services.db import bot_health
from services.db.pool import create_pool
from services.flow import ladder as flow_ladder
from services.worker.results.fit import refit
from tests.services.helpers.flow_helpers import InProcessSender, in_process, make_account, make_bot

SETTINGS = LadderSettings(pair_per_day=3, hourly_cap=1000)
TICKS = 10


LONG_NAME = "a-ladder-bot-whose-one-word-name-is-wider-than-a-phone"
"""One ladder bot's name: one word, longer than a phone is wide (it must wrap, not spill)."""


@dataclass(frozen=True)
class LadderSeed:
    bots: list[int]  # on the 1v1 ladder
    paused: int  # one of them, paused
    waiting: int  # on the individual 2v2 ladder only (with three of ``bots``), no match yet
    names: dict[int, str]
    match: int = 0  # a finished ladder match


async def seed_ladder(url: str) -> LadderSeed:
    pool = await create_pool(url, min_size=1, max_size=4)
    try:
        bots = []
        for _ in range(8):
            owner = await make_account(pool, "ladder")
            bot = await make_bot(pool, owner, prefix="ladder-bot")
            await bot_health.record_check(pool, bot, ok=True, error=None, failures_to_unavailable=3)
            await flow_ladder.join(pool, "1v1", bot, owner, SETTINGS)
            bots.append(bot)
        run = InProcessSender(in_process({b: "heuristic" for b in bots[:4]}))
        now = datetime.now(UTC).replace(microsecond=0)
        for k in range(TICKS):
            ids = await flow_ladder.tick(pool, SETTINGS, now + timedelta(seconds=k))
            await run(pool, ids)
            await refit(pool, "1v1")
        await pool.execute("UPDATE bots SET name = $2 WHERE id = $1", bots[1], LONG_NAME)
        match = await pool.fetchval(
            "SELECT id FROM matches WHERE ladder_pool = '1v1' AND status = 'done' ORDER BY id"
        )
        paused = bots[-1]
        await pool.execute(
            "UPDATE ladder_entries SET paused_at = now(), pause_cause = 'walkover 3 times in a "
            "row: connect (connection refused)' WHERE bot_id = $1",
            paused,
        )
        for bot in bots[:3]:  # three more owners there: a table of four owners can be seated
            bot_owner = await pool.fetchval("SELECT owner_id FROM bots WHERE id = $1", bot)
            await flow_ladder.join(pool, "2v2-individual", bot, bot_owner, SETTINGS)
        owner = await make_account(pool, "newcomer")
        waiting = await make_bot(pool, owner, prefix="newcomer")
        await bot_health.record_check(pool, waiting, ok=True, error=None, failures_to_unavailable=3)
        await flow_ladder.join(pool, "2v2-individual", waiting, owner, SETTINGS)
        names = {
            r["id"]: r["name"]
            for r in await pool.fetch(
                "SELECT id, name FROM bots WHERE id = ANY($1)", [*bots, waiting]
            )
        }
        return LadderSeed(bots, paused, waiting, names, match or 0)
    finally:
        await pool.close()
