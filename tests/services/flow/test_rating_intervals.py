"""The rating fit against a real database: rated results played in process, the trusted
worker's refit (coalesced, leased), the stored rows, and what the leaderboard and bot API
show. Each test has a database of its own, so a pool holds exactly the games it plays."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import asyncpg
import httpx
import pytest

from arena.match.runner import run_match
from services import flow
from services.db import bots as db_bots
from services.db import rating_fits as db_fits
from services.db.pool import create_pool
from services.domain.adjusted_fit import adjusted_scores
from services.domain.rating_fit import FittedRating, Game, GameTable, fit_ratings
from services.domain.ratings import BotId
from services.worker.results import fit
from tests.servers import PostgresServer, migrated_database
from tests.services.helpers.api_helpers import NetworkGuard, app_client
from tests.services.helpers.flow_helpers import (
    BOX,
    InProcessSender,
    in_process,
    make_account,
    make_bot,
    make_tournament,
)

pytestmark = pytest.mark.anyio


@pytest.fixture
def own_database(postgres_server: PostgresServer) -> Iterator[str]:
    with migrated_database(postgres_server) as url:
        yield url


@pytest.fixture
async def served(own_database: str) -> AsyncIterator[tuple[asyncpg.Pool, httpx.AsyncClient]]:
    guard = NetworkGuard()
    async with app_client(own_database, guard) as (pool, client):
        yield pool, client
    assert guard.refused == []


async def play(pool: asyncpg.Pool, a: int, b: int, strategies: dict[int, str]) -> Game:
    """A rated 1v1 challenge of ``a`` (side a) against ``b``, played and stored; the game as
    the fit should see it, from the replay."""
    match_id = await flow.create_challenge(
        pool, a, b, mode="1v1", rules={"points_to_win": 15}, games_per_match=2, rated=True
    )
    (spec,) = await flow.match_specs(pool, [match_id], secret_box=BOX)
    connect = in_process(strategies)
    entrants = [connect(e, match_id) for e in spec.entrants]
    replay = await run_match(str(match_id), spec.seed, spec.settings, entrants)
    await flow.record_result(pool, match_id, replay, task_id=f"t{match_id}")
    score = {0: 1.0, 1: 0.0, None: 0.5}[replay.result.winner]
    return Game((a,), (b,), score)


async def expected_fit(pool: asyncpg.Pool, mode: str, games: list[Game]) -> dict[BotId, Any]:
    """The pure fit of ``games`` with the pool's Elo ratings and leaderboard order now."""
    ratings = await pool.fetch(
        "SELECT r.bot_id, r.rating, b.status FROM ratings r JOIN bots b ON b.id = r.bot_id "
        "WHERE r.mode = $1 AND r.matches > 0 ORDER BY r.rating DESC, r.bot_id",
        mode,
    )
    elo: dict[BotId, float] = {row["bot_id"]: row["rating"] for row in ratings}
    order: list[BotId] = [row["bot_id"] for row in ratings if row["status"] != "deleted"]
    return fit_ratings(GameTable.from_games(games), elo, order)


async def board(client: httpx.AsyncClient, mode: str = "1v1", **params: Any) -> dict[str, Any]:
    response = await client.get(f"/v1/leaderboards/{mode}", params=params)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def same(entry: dict[str, Any], fitted: FittedRating) -> None:
    assert entry["interval"] == [round(fitted.low, 1), round(fitted.high, 1)]


async def test_a_fit_fills_the_leaderboard_and_runs_again_only_after_new_results(
    served: tuple[asyncpg.Pool, httpx.AsyncClient],
) -> None:
    pool, client = served
    owner = await make_account(pool)
    bots = [await make_bot(pool, owner) for _ in range(4)]
    strong = {bots[0]: "heuristic", bots[1]: "heuristic"}
    games = [
        await play(pool, a, b, strong)
        for _ in range(3)
        for a, b in ((bots[0], bots[1]), (bots[2], bots[3]), (bots[0], bots[2]), (bots[3], bots[1]))
    ]

    empty = await board(client, "2v2")
    assert empty["entries"] == [] and empty["fitted_at"] is None and empty["next_cursor"] is None
    before = await board(client)
    assert len(before["entries"]) == 4 and before["fitted_at"] is None
    assert all(e["interval"] is None and e["los_next"] is None for e in before["entries"])

    report = await fit.refit(pool, "1v1")
    assert report is not None and (report.games, report.bots) == (12, 4)
    assert await fit.refit(pool, "1v1") is None  # nothing changed: no second fit
    assert await fit.refit(pool, "2v2") is None  # an empty pool is never fitted

    expected = await expected_fit(pool, "1v1", games)
    after = await board(client)
    assert after["fitted_at"] is not None
    entries = after["entries"]
    for entry, below in zip(entries, [*entries[1:], None], strict=True):
        same(entry, expected[entry["bot_id"]])
        lo, hi = entry["interval"]
        assert lo < hi and hi - lo > 100  # a dozen games: the truth is not known to 100 Elo
        if below is None:
            assert entry["los_next"] is None
        else:
            assert entry["los_next"] == round(expected[entry["bot_id"]].los_next, 4)
            assert 0 <= entry["los_next"] <= 1

    # a page boundary: the last entry of page one still knows the entry below it
    first = await board(client, limit=2)
    assert first["entries"][1]["los_next"] == entries[1]["los_next"] is not None

    # the bot API shows the same interval, and names the bot the LOS is against
    top = entries[0]
    profile = (await client.get(f"/v1/bots/{top['bot_id']}")).json()
    shown = profile["intervals"]["1v1"]
    assert shown["interval"] == top["interval"] and shown["los_next"] == top["los_next"]
    assert shown["next_bot_id"] == entries[1]["bot_id"]
    assert shown["next_bot_name"] == entries[1]["name"]
    listed = (await client.get("/v1/bots", params={"owner": owner})).json()["items"]
    assert {b["id"]: b["intervals"]["1v1"]["interval"] for b in listed} == {
        e["bot_id"]: e["interval"] for e in entries
    }

    # the order moves before the next fit (the last bot jumps to the top): a LOS is shown
    # only where the bot it was computed against is still the entry below
    last = entries[-1]["bot_id"]
    await pool.execute(
        "UPDATE ratings SET rating = rating + 1000 WHERE bot_id = $1 AND mode = '1v1'", last
    )
    moved = (await board(client))["entries"]
    assert [e["bot_id"] for e in moved] == [last] + [e["bot_id"] for e in entries[:-1]]
    assert [e["los_next"] is not None for e in moved] == [False, True, True, False]
    assert moved[1]["los_next"] == entries[0]["los_next"]
    await pool.execute(
        "UPDATE ratings SET rating = rating - 1000 WHERE bot_id = $1 AND mode = '1v1'", last
    )

    # five more results: still one fit, over all 17 games
    games += [await play(pool, bots[1], bots[2], strong) for _ in range(5)]
    report = await fit.refit(pool, "1v1")
    assert report is not None and report.games == 17
    assert await fit.refit(pool, "1v1") is None
    expected = await expected_fit(pool, "1v1", games)
    for entry in (await board(client))["entries"]:
        same(entry, expected[entry["bot_id"]])


async def test_deleting_a_bot_refits_and_the_los_skips_it(
    served: tuple[asyncpg.Pool, httpx.AsyncClient],
) -> None:
    pool, client = served
    owner = await make_account(pool)
    bots = [await make_bot(pool, owner) for _ in range(3)]
    games = [
        await play(pool, a, b, {bots[0]: "heuristic"})
        for _ in range(2)
        for a, b in ((bots[0], bots[1]), (bots[1], bots[2]), (bots[2], bots[0]))
    ]
    assert await fit.refit(pool, "1v1") is not None
    middle = (await board(client))["entries"][1]["bot_id"]
    async with pool.acquire() as conn:
        assert await db_bots.soft_delete_bot(conn, middle)
    report = await fit.refit(pool, "1v1")  # no new result, but the order changed
    assert report is not None and report.bots == 3  # the deleted bot's games still count
    entries = (await board(client))["entries"]
    assert middle not in [e["bot_id"] for e in entries] and len(entries) == 2
    expected = await expected_fit(pool, "1v1", games)
    assert expected[entries[0]["bot_id"]].next_bot == entries[1]["bot_id"]
    assert entries[0]["los_next"] == round(expected[entries[0]["bot_id"]].los_next, 4)
    same(entries[0], expected[entries[0]["bot_id"]])


async def test_a_pool_leased_by_another_worker_is_left_alone_until_the_lease_lapses(
    served: tuple[asyncpg.Pool, httpx.AsyncClient],
) -> None:
    pool, _ = served
    owner = await make_account(pool)
    a, b = await make_bot(pool, owner), await make_bot(pool, owner)
    await play(pool, a, b, {})
    assert await db_fits.claim(pool, "1v1", 60)  # another worker is fitting
    assert not await db_fits.claim(pool, "1v1", 60)
    assert await fit.refit(pool, "1v1") is None
    await pool.execute("UPDATE rating_fits SET lease_until = now() - interval '1 second'")
    report = await fit.refit(pool, "1v1")  # that worker died: its lease lapsed
    assert report is not None and report.games == 1
    lease = await pool.fetchval("SELECT lease_until FROM rating_fits WHERE mode = '1v1'")
    assert lease is None  # released with the stored fit


async def test_individual_2v2_fits_each_bot_of_a_side(own_database: str) -> None:
    pool = await create_pool(own_database, min_size=1, max_size=6)
    try:
        tid, bots = await make_tournament(
            pool, "swiss", 6, mode="2v2", partnership="individual", rounds=3
        )
        sender = InProcessSender(in_process({bots[0]: "heuristic"}))
        await sender(pool, await flow.start_tournament(pool, tid))
        # the sides from the replays (entrants in seat order, side = seat % 2), not the tables
        named = {row["name"]: row["id"] for row in await pool.fetch("SELECT id, name FROM bots")}
        games = []
        for replay in sender.replays.values():
            if replay.result.reason == "walkover":
                continue
            seat = [named[e.name] for e in replay.entrants]
            score = {0: 1.0, 1: 0.0, None: 0.5}[replay.result.winner]
            games.append(Game((seat[0], seat[2]), (seat[1], seat[3]), score))
        assert len(games) >= 3
        report = await fit.refit(pool, "2v2-individual")
        played = {b for g in games for b in (*g.side_a, *g.side_b)}
        assert report is not None and report.games == len(games) and report.bots == len(played)
        expected = await expected_fit(pool, "2v2-individual", games)
        stored = await db_fits.intervals(pool, bots)
        assert {bot for bot in bots if stored[bot]} == played
        for bot in played:
            (row,) = stored[int(bot)]
            assert row.mode == "2v2-individual"
            assert row.low == pytest.approx(expected[bot].low)
            assert row.high == pytest.approx(expected[bot].high)
            assert row.los_next == pytest.approx(expected[bot].los_next)
    finally:
        await pool.close()


async def test_a_pool_above_the_size_limit_is_not_fitted_and_shows_no_intervals(
    served: tuple[asyncpg.Pool, httpx.AsyncClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    pool, client = served
    owner = await make_account(pool)
    bots = [await make_bot(pool, owner) for _ in range(3)]
    await play(pool, bots[0], bots[1], {})
    assert await fit.refit(pool, "1v1") is not None  # two bots: fitted
    monkeypatch.setattr(fit, "MAX_BOTS", 2)
    await play(pool, bots[1], bots[2], {})  # a third bot: over the limit
    assert await fit.refit(pool, "1v1") is None
    entries = (await board(client))["entries"]
    assert len(entries) == 3 and all(e["interval"] is None for e in entries)
    assert await pool.fetchval("SELECT count(*) FROM rating_intervals") == 0


async def test_a_ladder_pool_is_also_fitted_on_luck_adjusted_outcomes(own_database: str) -> None:
    """docs/luck.md: one-game matches of a ladder pool (1v1) are fitted again on their results
    minus their luck; the stored adjusted estimates are the pure fit's on the stored luck, and
    the public ones are untouched by it."""
    pool = await create_pool(own_database, min_size=1, max_size=4)
    try:
        owner = await make_account(pool)
        bots = [await make_bot(pool, owner) for _ in range(3)]
        strategies = {bots[0]: "heuristic", bots[1]: "heuristic"}
        games, luck = [], []
        for _ in range(4):
            for a, b in ((bots[0], bots[1]), (bots[1], bots[2]), (bots[2], bots[0])):
                match_id = await flow.create_challenge(
                    pool, a, b, mode="1v1", rules={"points_to_win": 15}, rated=True,
                    games_per_match=1,
                )  # fmt: skip
                (spec,) = await flow.match_specs(pool, [match_id], secret_box=BOX)
                connect = in_process(strategies)
                replay = await run_match(
                    str(match_id),
                    spec.seed,
                    spec.settings,
                    [connect(e, match_id) for e in spec.entrants],
                )
                await flow.record_result(pool, match_id, replay, task_id=f"t{match_id}")
                games.append(Game((a,), (b,), {0: 1.0, 1: 0.0}[replay.result.winner]))  # type: ignore[index]
                stored = await pool.fetchval(
                    "SELECT (result -> 'luck' ->> 'win')::float8 FROM match_results "
                    "WHERE match_id = $1",
                    match_id,
                )
                assert stored is not None
                luck.append(stored)
        assert await fit.refit(pool, "1v1") is not None
        rows = await pool.fetch(
            "SELECT bot_id, rating, low, high, adjusted_rating, adjusted_low, adjusted_high "
            "FROM rating_intervals WHERE mode = '1v1'"
        )
        public = await expected_fit(pool, "1v1", games)
        ratings = await pool.fetch("SELECT bot_id, rating FROM ratings WHERE mode = '1v1'")
        adjusted = fit_ratings(
            GameTable.from_games(games),
            {r["bot_id"]: r["rating"] for r in ratings},
            adjusted=adjusted_scores([g.score for g in games], luck, [1] * len(games)),
        )
        assert len(rows) == 3
        for row in rows:
            mine = adjusted[row["bot_id"]].adjusted
            assert mine is not None
            assert row["rating"] == pytest.approx(public[row["bot_id"]].rating)
            assert row["adjusted_rating"] == pytest.approx(mine.rating)
            assert (row["adjusted_low"], row["adjusted_high"]) == pytest.approx(
                (mine.low, mine.high)
            )
            assert row["adjusted_rating"] != pytest.approx(row["rating"], abs=1e-3)
            assert row["adjusted_high"] - row["adjusted_low"] <= row["high"] - row["low"] + 1e-9
    finally:
        await pool.close()
