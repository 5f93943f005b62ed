"""Every ladder pool plays through the real workers (issue 32, item 1): four owners' SDK bots on
127.0.0.1 join both ladders, the matchmaker's tick (the trusted worker's own function) makes
their matches, a real Celery worker plays them and stores the results, and each match of each
pool ends ``done`` with a rating change for every one of its bots in that pool's ratings.

And a match the bot-calling worker can never start (four bots seated under two-player rules:
the shape every individual 2v2 ladder match had) does not sit ``running``: the worker refuses
it, and it ends as a platform fault (status ``error``, the cause in its result), rating nobody
and pausing nobody."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from arena.game.deals import INDEPENDENT
from engine.rules import Rules
from services.api.routes.bodies import match_read
from services.base.config import LadderSettings
from services.db import bot_health
from services.db import ladder as db_ladder
from services.db import matches as db_matches
from services.db.matches import LadderPlace
from services.domain import INDIVIDUAL, seeds
from services.flow import ladder as flow_ladder
from services.ladder.model import LADDER_POOLS
from services.worker.names import LADDER
from services.worker.results.dispatch import send_matches
from services.worker.results.ladder_tick import ladder_tick
from tests.servers import PostgresServer, new_migrated_database
from tests.services.worker.fixtures import make_account, make_bot
from tests.services.worker.processes import celery_worker, wait_for_row

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

SETTINGS = LadderSettings()


@pytest.fixture(scope="module")
def database_url(postgres_server: PostgresServer) -> str:
    """A database of this module's own: its ladders hold only its bots, and no other test's
    queued match holds the matchmaker back."""
    return new_migrated_database(postgres_server)


async def four_owners_on_every_ladder(pool: asyncpg.Pool, bot_server_factory: Any) -> list[int]:
    bots = []
    for k in range(4):
        owner = await make_account(pool)
        server = bot_server_factory("heuristic" if k % 2 == 0 else "random", seed=k)
        bot = await make_bot(pool, owner, server.url, server.secret)
        await bot_health.record_check(pool, bot, ok=True, error=None, failures_to_unavailable=3)
        for ladder in LADDER_POOLS:
            await flow_ladder.join(pool, ladder, bot, owner, SETTINGS)
        bots.append(bot)
    return bots


async def test_one_ladder_match_of_every_pool_plays_and_rates_through_the_workers(
    pool: asyncpg.Pool, stack_env: dict[str, str], bot_server_factory: Any, tmp_path: Path
) -> None:
    bots = await four_owners_on_every_ladder(pool, bot_server_factory)
    log = tmp_path / "worker.log"
    with celery_worker(stack_env, log):
        made = await ladder_tick(pool, SETTINGS, datetime.now(UTC))
        for bot in bots:  # no more than this tick's matches: each result runs the matchmaker
            owner = await pool.fetchval("SELECT owner_id FROM bots WHERE id = $1", bot)
            for ladder in LADDER_POOLS:
                await flow_ladder.leave(pool, ladder, bot, owner)
        matches = await db_matches.get_matches(pool, made)
        assert {m.ladder_pool for m in matches} == set(LADDER_POOLS), made
        for match in matches:
            await wait_for_row(
                pool,
                "SELECT status NOT IN ('pending', 'queued', 'running') FROM matches WHERE id = $1",
                match.id,
                timeout=120,
            )
    for match in await db_matches.get_matches(pool, made):
        assert match.status == "done", (match.id, match.ladder_pool, match.status, match.result)
        assert match.result is not None and match.result.reason in ("games", "tantos"), match
        history = await pool.fetch(
            "SELECT bot_id, mode FROM rating_history WHERE match_id = $1", match.id
        )
        assert sorted(r["bot_id"] for r in history) == sorted(match.bots)
        assert {r["mode"] for r in history} == {match.ladder_pool}
        seats = 4 if match.ladder_pool == "2v2-individual" else 2
        assert len(match.bots) == seats and match.rules.players == seats
    assert "Traceback" not in log.read_text(errors="replace")


async def test_a_match_the_worker_cannot_start_ends_as_a_platform_fault(
    pool: asyncpg.Pool, stack_env: dict[str, str], bot_server_factory: Any, tmp_path: Path
) -> None:
    bots = await four_owners_on_every_ladder(pool, bot_server_factory)
    now = datetime.now(UTC)
    async with pool.acquire() as conn, conn.transaction():
        day = await flow_ladder._day(conn, "2v2-individual", now.date())
        (number,) = [await db_ladder.take_numbers(conn, "2v2-individual", now.date(), 1)]
        broken = await db_matches.insert_match(
            conn,
            bots=tuple(bots),
            mode="2v2",
            seed=seeds.ladder_seed(
                day.master_seed, "2v2-individual", str(now.date()), number, bots
            ),
            rated=True,
            games_per_match=1,
            rules=Rules(points_to_win=15),  # two players: four entrants cannot sit at it
            deals=INDEPENDENT,
            partnership=INDIVIDUAL,
            seed_scheme=seeds.DERIVED,
            ladder=LadderPlace("2v2-individual", now.date(), number, "placing", "test"),
        )
    for bot in bots:
        owner = await pool.fetchval("SELECT owner_id FROM bots WHERE id = $1", bot)
        for ladder in LADDER_POOLS:
            await flow_ladder.leave(pool, ladder, bot, owner)
        await flow_ladder.join(pool, "2v2-individual", bot, owner, SETTINGS)
    log = tmp_path / "worker.log"
    with celery_worker(stack_env, log):
        await send_matches(pool, [broken], queue=LADDER)
        await wait_for_row(
            pool,
            "SELECT status NOT IN ('pending', 'queued', 'running') FROM matches WHERE id = $1",
            broken,
            timeout=60,
        )
    (match,) = await db_matches.get_matches(pool, [broken])
    assert match.status == "error" and match.winner_side is None
    assert match.result is not None and match.result.reason == "error"
    assert match.result.error is not None and "platform fault" in match.result.error
    assert "players = 4" in match.result.error  # the worker's own words, for whoever looks
    shown = match_read(match, {})  # what GET /v1/matches/{id} answers
    assert shown.reason == "error" and shown.error == match.result.error
    assert not await pool.fetchval(
        "SELECT count(*) FROM rating_history WHERE match_id = $1", broken
    )
    for bot in bots:  # a platform fault is nobody's walkover: no failure counted, no pause
        entry = await db_ladder.get_entry(pool, "2v2-individual", bot)
        assert entry is not None and entry.failures_in_a_row == 0 and entry.paused_at is None
