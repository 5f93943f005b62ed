"""A ladder table's LOS is against the next bot of that table (issue 32, item 3), not against
the Elo leaderboard's neighbour, which may not be on the ladder at all: a weak bot off the
ladder that played rated challenges sits between ladder bots on the leaderboard. Each row's
LOS is the fit's likelihood of superiority over the row below it in the table (so at least 50%:
the table is in the fit's order), and the bottom row has none."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import asyncpg
import pytest

from services import flow
from services.api.routes.ladder_tables import ranked
from services.base.config import LadderSettings
from services.db import bot_health
from services.db import ladder as db_ladder
from services.db import rating_fits as db_fits
from services.domain.rating_fit import Game, GameTable, fit_ratings
from services.flow import ladder as flow_ladder
from services.worker.results.fit import refit
from tests.services.helpers.flow_helpers import InProcessSender, in_process, make_account, make_bot

pytestmark = pytest.mark.anyio

NOW = datetime(2026, 12, 4, 12, 0, tzinfo=UTC)
SETTINGS = LadderSettings(pair_per_day=100, hourly_cap=1000)


async def test_ladder_los_compares_each_row_with_the_next_row_of_the_table(
    flow_pool: asyncpg.Pool,
) -> None:
    await flow_pool.execute("DELETE FROM ladder_entries")
    await flow_pool.execute(
        "UPDATE matches SET status = 'error' WHERE status IN ('pending', 'queued', 'running')"
    )
    ladder_bots = []
    for _ in range(4):
        owner = await make_account(flow_pool, "los")
        bot = await make_bot(flow_pool, owner)
        await bot_health.record_check(
            flow_pool, bot, ok=True, error=None, failures_to_unavailable=3
        )
        await flow_ladder.join(flow_pool, "1v1", bot, owner, SETTINGS)
        ladder_bots.append(bot)
    strong = set(ladder_bots[:2])
    outsider = await make_bot(flow_pool, await make_account(flow_pool, "off-ladder"))
    run = InProcessSender(in_process({b: "heuristic" for b in strong}))
    for k in range(12):
        await run(
            flow_pool, await flow_ladder.tick(flow_pool, SETTINGS, NOW + timedelta(seconds=k))
        )
    for opponent in ladder_bots:  # rated challenges: the outsider is on the 1v1 leaderboard
        match = await flow.create_challenge(
            flow_pool, outsider, opponent, mode="1v1", rules={"points_to_win": 15},
            games_per_match=1, rated=True,
        )  # fmt: skip
        await run(flow_pool, [match])
    await refit(flow_pool, "1v1")

    rows = [r for r in await db_ladder.table(flow_pool, "1v1", NOW) if r.bot_id in ladder_bots]
    assert len(rows) == 4 and all(r.rating is not None for r in rows)
    shown = {e.bot_id: e.los_next for e in ranked(rows, None)}
    games = await db_fits.load_pool(flow_pool, "1v1")
    table = GameTable.from_games(Game(a, b, s) for a, b, s in games.games)
    order = [r.bot_id for r in rows]  # the ladder's own order
    expected = fit_ratings(table, games.elo, order)
    for upper in order[:-1]:
        los = shown[upper]
        assert los is not None and los >= 0.5, (upper, los)
        assert los == pytest.approx(expected[upper].los_next, abs=1e-6)
    assert shown[order[-1]] is None  # nothing below the bottom row of the table
