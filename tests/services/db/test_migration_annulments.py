"""Migration 0066 folds 0034's ``ladder_annulments`` (a collusion flag's annulments, fit-only)
into ``annulled_matches``: every row moves with the flag that decided it and a dated audit line
(one per flag, one per match without a flag), the old table is gone, and the trusted worker's
``settle_moved`` then takes the moved matches out of Elo by the one rule."""

from __future__ import annotations

import asyncpg
import pytest

from services.db.migrate import load_migrations, migrate
from services.db.pool import create_pool
from services.domain.ratings import START
from services.flow.rating_refit import settle_moved
from tests.services.helpers.flow_helpers import make_account, make_bot

pytestmark = pytest.mark.anyio


async def test_fit_only_annulments_move_into_the_one_table(fresh_database: str) -> None:
    migrations = load_migrations()
    conn = await asyncpg.connect(fresh_database)
    try:
        await migrate(conn, [m for m in migrations if m.version < 66])
    finally:
        await conn.close()
    pool = await create_pool(fresh_database, min_size=1, max_size=2)
    try:
        admin = await make_account(pool, "admin")
        owners = [await make_account(pool, "o") for _ in range(2)]
        bots = [await make_bot(pool, owner) for owner in owners]
        await pool.execute(
            "INSERT INTO ladder_days (pool, day, master_seed, commitment) "
            "VALUES ('1v1', current_date, decode(repeat('ab', 32), 'hex'), 'c')"
        )
        matches = [
            int(
                await pool.fetchval(
                    "INSERT INTO matches (mode, status, seed, finished_at, winner_side, "
                    "ladder_pool, ladder_day, ladder_number) "
                    "VALUES ('1v1', 'done', $1, now(), 0, '1v1', current_date, $2) RETURNING id",
                    k,
                    k,
                )
            )
            for k in range(3)
        ]
        for match in matches:
            for slot, bot in enumerate(bots):
                await pool.execute(
                    "INSERT INTO match_entrants (match_id, slot, bot_id, side) "
                    "VALUES ($1, $2, $3, $2)",
                    match,
                    slot,
                    bot,
                )
        # Elo as stored: bot 0 won the three (the fit-only annulment kept the changes)
        await pool.execute(
            "INSERT INTO ratings (bot_id, mode, rating, matches, wins, losses) VALUES "
            "($1, '1v1', 1560, 3, 3, 0), ($2, '1v1', 1440, 3, 0, 3)",
            *bots,
        )
        for k, match in enumerate(matches):
            for bot, sign in ((bots[0], 1), (bots[1], -1)):
                await pool.execute(
                    "INSERT INTO rating_history (bot_id, mode, match_id, rating_before, "
                    "rating_after) VALUES ($1, '1v1', $2, $3, $4)",
                    bot,
                    match,
                    START + sign * 20 * k,
                    START + sign * 20 * (k + 1),
                )
        flag = await pool.fetchval(
            "INSERT INTO ladder_flags (pool, bot_id, against_kind, against_id, evidence, status, "
            "decided_at, decided_by, note) VALUES ('1v1', $1, 'owner', $2, '{\"z\": 3.4}', "
            "'annulled', now() - interval '1 day', $3, 'colluded') RETURNING id",
            bots[0],
            owners[1],
            admin,
        )
        await pool.execute(
            "INSERT INTO ladder_annulments (match_id, flag_id) VALUES ($1, $3), ($2, $3)",
            matches[0],
            matches[1],
            flag,
        )
        await pool.execute("INSERT INTO ladder_annulments (match_id) VALUES ($1)", matches[2])

        conn = await asyncpg.connect(fresh_database)
        try:
            await migrate(conn, migrations)
        finally:
            await conn.close()

        assert await pool.fetchval("SELECT to_regclass('ladder_annulments')") is None
        rows = await pool.fetch(
            "SELECT a.match_id, a.flag_id, l.action, l.target_kind, l.target_id, l.actor_id, "
            "l.reason, l.detail, l.at FROM annulled_matches a "
            "JOIN moderation_log l ON l.id = a.log_id ORDER BY a.match_id"
        )
        assert [r["match_id"] for r in rows] == matches
        flagged, unflagged = rows[:2], rows[2]
        for row in flagged:
            assert (row["flag_id"], row["action"], row["target_kind"]) == (
                flag,
                "annul_pair",
                "bot",
            )
            assert (row["target_id"], row["actor_id"], row["reason"]) == (
                bots[0],
                admin,
                "colluded",
            )
        assert flagged[0]["detail"] == flagged[1]["detail"]  # one line for the flag
        assert flagged[0]["detail"]["annulled_ladder_matches"] == matches[:2]
        assert flagged[0]["detail"]["flag_id"] == flag
        assert unflagged["flag_id"] is None and unflagged["target_id"] == bots[0]
        assert unflagged["reason"] and unflagged["actor_id"] is None
        # the new action is known to the log, the old ones still are
        assert await pool.fetchval(
            "INSERT INTO moderation_log (actor, action, target_kind, target_id, reason) "
            "VALUES ('server:test', 'dismiss_flag', 'bot', $1, 'honest') RETURNING id",
            bots[0],
        )

        # the moved matches leave Elo by the one rule: no change left, ratings recomputed
        assert sorted(await settle_moved(pool)) == matches
        assert not await pool.fetchval(
            "SELECT count(*) FROM rating_history WHERE match_id = ANY($1)", matches
        )
        rated = await pool.fetch(
            "SELECT rating, matches, wins, losses FROM ratings WHERE mode = '1v1' ORDER BY bot_id"
        )
        assert [tuple(r) for r in rated] == [(START, 0, 0, 0), (START, 0, 0, 0)]
        assert await settle_moved(pool) == []  # once settled, nothing more to do
    finally:
        await pool.close()
