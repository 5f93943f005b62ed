"""``truco.fit_ratings``: the trusted worker refits the rating pools whose results changed.

Beat sends it every ``FIT_EVERY_S`` (30) seconds (``services.worker.schedule``). For each
pool it compares what the last stored fit saw (the sum of the pool's rated matches and its
number of deleted bots) with the pool now: equal, nothing to do; different, it takes the lease,
reads every rated match, fits (:func:`services.domain.rating_fit.fit_ratings`, in a thread so the
process's database loop keeps serving) and replaces the stored intervals. So results are
coalesced: however many arrive within a period, a pool is fitted once, at most one period
plus one fit after its last result; the leaderboard only ever reads the stored rows.

The lease (a timestamp in ``rating_fits``) keeps two workers from fitting one pool at once; it
lasts as long as the task may run, so a fit whose worker died is retried after that.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass

import asyncpg

from services.base.config import LadderSettings
from services.base.limits import FIT_HARD_LIMIT_S, FIT_SOFT_LIMIT_S
from services.db import rating_fits as db_fits
from services.domain.adjusted_fit import adjusted_scores
from services.domain.rating_fit import Game, GameTable, fit_ratings
from services.domain.ratings import POOLS, BotId
from services.flow import ladder_integrity, rating_refit
from services.ladder.model import LADDER_POOLS
from services.worker.app import app
from services.worker.names import FIT_RATINGS
from services.worker.results.db import run_db
from services.worker.task import platform_task

logger = logging.getLogger(__name__)

LEASE_S = float(FIT_HARD_LIMIT_S)
MAX_BOTS = 10_000
"""The largest pool fitted: the exact inverse needs 4 n^2 bytes and about n^3 operations
(10,000 bots: 400 MB and 46 s in bench/rating_fit.py). A larger pool, which many throwaway
accounts could make, is not fitted, and its leaderboard shows no intervals."""


@dataclass(frozen=True, slots=True)
class FitReport:
    mode: str
    games: int
    bots: int
    duration_ms: int


def _fit(pool_games: db_fits.PoolGames, mode: str = "") -> dict[int, db_fits.Fitted]:
    """The pool's fit; a ladder pool's also on luck-adjusted outcomes (docs/luck.md)."""
    table = GameTable.from_games(Game(a, b, score) for a, b, score in pool_games.games)
    elo: dict[BotId, float] = {bot: rating for bot, rating in pool_games.elo.items()}
    order: list[BotId] = list(pool_games.order)
    adjusted = None
    if mode in LADDER_POOLS and len(pool_games.luck) == len(pool_games.games):
        scores = [score for _, _, score in pool_games.games]
        adjusted = adjusted_scores(scores, pool_games.luck, pool_games.lengths)
    ladder: list[BotId] = list(pool_games.ladder)
    fitted = fit_ratings(table, elo, order, ladder=ladder, adjusted=adjusted)
    return {int(bot): entry for bot, entry in fitted.items()}


async def refit(pool: asyncpg.Pool, mode: str) -> FitReport | None:
    """Fit ``mode`` if its results changed since the stored fit and no one else is fitting
    it; None when there was nothing to do."""
    fitted = await db_fits.fitted_state(pool, mode)
    now = await db_fits.pool_state(pool, mode)
    if now == fitted or (fitted is None and now.rated == 0):
        return None
    if now.bots > MAX_BOTS:
        if await db_fits.clear(pool, mode):
            logger.error("%s has %d rated bots, more than %d: not fitted", mode, now.bots, MAX_BOTS)
        return None
    if not await db_fits.claim(pool, mode, LEASE_S):
        return None
    try:
        games = await db_fits.load_pool(pool, mode)
        if games.state == await db_fits.fitted_state(pool, mode):  # another fit just stored it
            await db_fits.release(pool, mode)
            return None
        started = time.perf_counter()
        fits = await asyncio.to_thread(_fit, games, mode)
        duration_ms = round((time.perf_counter() - started) * 1000)
        await db_fits.store_fit(
            pool, mode, games.state, fits, games=len(games.games), duration_ms=duration_ms
        )
    except BaseException:
        with contextlib.suppress(Exception):  # the lease lapses by itself if this fails too
            await asyncio.shield(db_fits.release(pool, mode))
        raise
    logger.info(
        "fitted %s: %d games, %d bots, %d ms", mode, len(games.games), len(fits), duration_ms
    )
    return FitReport(mode, len(games.games), len(fits), duration_ms)


async def refit_all(pool: asyncpg.Pool) -> list[FitReport]:
    """Refit every pool that changed; one pool failing does not stop the others. Annulled
    matches still carrying rating changes (moved by migration 0066) leave Elo first."""
    try:
        await rating_refit.settle_moved(pool)
    except Exception:
        logger.exception("could not take the moved annulments out of Elo")
    reports = []
    for mode in POOLS:
        try:
            report = await refit(pool, mode)
        except Exception:
            logger.exception("could not fit the %s ratings", mode)
            continue
        if report is not None:
            reports.append(report)
    return reports


async def refit_and_scan(pool: asyncpg.Pool, settings: LadderSettings) -> list[FitReport]:
    """Refit the pools that changed; then look for collusion on each refitted ladder pool
    (its flags wait for an admin: :mod:`services.flow.ladder_integrity`)."""
    reports = await refit_all(pool)
    for report in reports:
        ladder = next((p for p in LADDER_POOLS if p == report.mode), None)
        if ladder is None:
            continue
        try:
            await ladder_integrity.scan(pool, ladder, settings)
        except Exception:
            logger.exception("could not scan the %s ladder for collusion", ladder)
    return reports


@platform_task(FIT_RATINGS, limits=(FIT_SOFT_LIMIT_S, FIT_HARD_LIMIT_S))
def fit_rating_pools() -> dict[str, int]:
    """Refit the pools whose results changed; returns {pool: games} of those fitted."""
    settings = app.settings.ladder
    return {report.mode: report.games for report in run_db(lambda p: refit_and_scan(p, settings))}
