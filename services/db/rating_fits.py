"""The rating fit's rows: what a pool's fit reads (its rated games, Elo ratings and leaderboard
order, in one snapshot), the lease that keeps two workers from fitting one pool at once, and
the stored intervals (migration 0009). The arithmetic is :mod:`services.domain.rating_fit` (pure)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

import asyncpg

from services.db.accounts import Executor
from services.db.ratings import LEADERBOARD_ORDER, LEADERBOARD_WHERE

RatedGame = tuple[tuple[int, ...], tuple[int, ...], float]
"""Side a's bots, side b's, side a's score (1, 0.5, 0): :class:`services.domain.rating_fit.Game`'s
fields, kept plain so that reading the API's rows never imports numpy and scipy."""


class Fitted(Protocol):
    """What is stored of one bot's fit (:class:`services.domain.rating_fit.FittedRating`)."""

    @property
    def rating(self) -> float: ...
    @property
    def low(self) -> float: ...
    @property
    def high(self) -> float: ...
    @property
    def next_bot(self) -> int | str | None: ...
    @property
    def los_next(self) -> float | None: ...
    @property
    def ladder_next(self) -> int | str | None: ...
    @property
    def ladder_los(self) -> float | None: ...
    @property
    def games(self) -> int: ...
    @property
    def adjusted(self) -> AdjustedFitted | None: ...


class AdjustedFitted(Protocol):
    """What is stored of a bot's fit on luck-adjusted outcomes (a ladder pool's)."""

    @property
    def rating(self) -> float: ...
    @property
    def low(self) -> float: ...
    @property
    def high(self) -> float: ...


@dataclass(frozen=True, slots=True)
class PoolState:
    """What a fit depends on: the sum of the pool's ``matches`` (grows with every rated
    result), how many of its bots are deleted (they leave the order) and how many bots have
    rated matches (the size of the fit)."""

    rated: int
    deleted: int
    bots: int
    annulled: int = 0  # its ladder matches annulled (migration 0066)


@dataclass(frozen=True, slots=True)
class PoolGames:
    state: PoolState
    games: list[RatedGame]
    elo: dict[int, float]  # every bot with rated games in the pool, deleted ones too
    order: list[int]  # the leaderboard, best first
    luck: list[float | None]  # per game: side a's luck in game chance (None: no figures)
    lengths: list[int]  # per game: the match's games
    ladder: list[int] = field(default_factory=list)  # the bots on the pool's ladder, if any


@dataclass(frozen=True, slots=True)
class StoredInterval:
    mode: str
    rating: float
    low: float
    high: float
    next_bot_id: int | None
    next_bot_name: str | None
    los_next: float | None
    fitted_at: datetime


_STATE = (
    "SELECT coalesce(sum(r.matches), 0)::bigint AS rated, "
    "count(*) FILTER (WHERE b.status = 'deleted' AND r.matches > 0)::int AS deleted, "
    "count(*) FILTER (WHERE r.matches > 0)::int AS bots "
    "FROM ratings r JOIN bots b ON b.id = r.bot_id WHERE r.mode = $1"
)


_ANNULLED = (
    "SELECT count(*)::int FROM annulled_matches a JOIN matches m ON m.id = a.match_id "
    "WHERE m.ladder_pool = $1"
)
"""A pool's annulled ladder matches (a ladder pool is named as its rating pool)."""


async def pool_state(conn: Executor, mode: str) -> PoolState:
    row = await conn.fetchrow(_STATE, mode)
    assert row is not None
    annulled = int(await conn.fetchval(_ANNULLED, mode) or 0)
    return PoolState(int(row["rated"]), int(row["deleted"]), int(row["bots"]), annulled)


async def fitted_state(conn: Executor, mode: str) -> PoolState | None:
    """What the pool's last stored fit saw (None: never fitted)."""
    row = await conn.fetchrow(
        "SELECT rated_seen, deleted_seen, bots, annulled_seen FROM rating_fits "
        "WHERE mode = $1 AND fitted_at IS NOT NULL",
        mode,
    )
    if row is None:
        return None
    return PoolState(int(row[0]), int(row[1]), int(row[2]), int(row[3]))


async def claim(conn: Executor, mode: str, lease_s: float) -> bool:
    """Take the pool's fitting lease for ``lease_s`` seconds; False if another holds it."""
    row = await conn.fetchrow(
        "INSERT INTO rating_fits (mode, lease_until) "
        "VALUES ($1, now() + make_interval(secs => $2)) "
        "ON CONFLICT (mode) DO UPDATE SET lease_until = EXCLUDED.lease_until "
        "WHERE rating_fits.lease_until IS NULL OR rating_fits.lease_until < now() "
        "RETURNING mode",
        mode,
        float(lease_s),
    )
    return row is not None


async def release(conn: Executor, mode: str) -> None:
    await conn.execute("UPDATE rating_fits SET lease_until = NULL WHERE mode = $1", mode)


async def clear(conn: Executor, mode: str) -> int:
    """Drop the pool's stored intervals (a pool too large to fit); how many there were."""
    status = await conn.execute("DELETE FROM rating_intervals WHERE mode = $1", mode)
    return int(status.split()[-1])


async def load_pool(pool: asyncpg.Pool, mode: str) -> PoolGames:
    """Every rated match of the pool (from ``rating_history``: walkovers and unrated matches
    have none), the Elo ratings and the leaderboard order, read in one snapshot."""
    async with (
        pool.acquire() as conn,
        conn.transaction(isolation="repeatable_read", readonly=True),
    ):
        state = await pool_state(conn, mode)
        rows = await conn.fetch(
            "SELECT array_agg(e.bot_id ORDER BY e.slot) FILTER (WHERE e.side = 0) AS side_a, "
            "array_agg(e.bot_id ORDER BY e.slot) FILTER (WHERE e.side = 1) AS side_b, "
            "m.winner_side, m.games_per_match, max((r.result -> 'luck' ->> 'win')::float8) AS luck "
            "FROM rating_history h "
            "JOIN match_entrants e ON e.match_id = h.match_id AND e.bot_id = h.bot_id "
            "JOIN matches m ON m.id = h.match_id "
            "LEFT JOIN match_results r ON r.match_id = h.match_id "
            "WHERE h.mode = $1 AND NOT EXISTS (SELECT 1 FROM annulled_matches a "
            "WHERE a.match_id = h.match_id) "
            "GROUP BY h.match_id, m.winner_side, m.games_per_match ORDER BY h.match_id",
            mode,
        )
        elo = await conn.fetch(
            "SELECT bot_id, rating FROM ratings WHERE mode = $1 AND matches > 0", mode
        )
        order = await conn.fetch(
            f"SELECT r.bot_id FROM ratings r JOIN bots b ON b.id = r.bot_id "
            f"{LEADERBOARD_WHERE}{LEADERBOARD_ORDER}",
            mode,
        )
        # a pool with a ladder (1v1, 2v2-individual) names it as the pool does
        ladder = await conn.fetch("SELECT bot_id FROM ladder_entries WHERE pool = $1", mode)
    score = {0: 1.0, 1: 0.0, None: 0.5}
    return PoolGames(
        state=state,
        games=[
            (tuple(row["side_a"]), tuple(row["side_b"]), score[row["winner_side"]]) for row in rows
        ],
        elo={int(row["bot_id"]): float(row["rating"]) for row in elo},
        order=[int(row["bot_id"]) for row in order],
        luck=[None if row["luck"] is None else float(row["luck"]) for row in rows],
        lengths=[int(row["games_per_match"]) for row in rows],
        ladder=[int(row["bot_id"]) for row in ladder],
    )


async def store_fit(
    pool: asyncpg.Pool,
    mode: str,
    state: PoolState,
    fits: Mapping[int, Fitted],
    *,
    games: int,
    duration_ms: int,
) -> None:
    """Replace the pool's intervals with ``fits`` and record the fit; releases the lease."""
    bots = list(fits)
    async with pool.acquire() as conn, conn.transaction():
        await conn.execute("DELETE FROM rating_intervals WHERE mode = $1", mode)
        await conn.execute(
            "INSERT INTO rating_intervals "
            "(bot_id, mode, rating, low, high, next_bot_id, los_next, ladder_next_bot_id, "
            "ladder_los, games, fitted_at, adjusted_rating, adjusted_low, adjusted_high) "
            "SELECT bot, $1, rating, low, high, next_bot, los, ladder_next, ladder_los, games, "
            "now(), a, a_low, a_high FROM unnest($2::bigint[], $3::float8[], $4::float8[], "
            "$5::float8[], $6::bigint[], $7::float8[], $8::bigint[], $9::float8[], $10::int[], "
            "$11::float8[], $12::float8[], $13::float8[]) "
            "AS f(bot, rating, low, high, next_bot, los, ladder_next, ladder_los, games, "
            "a, a_low, a_high)",
            mode,
            bots,
            [fits[b].rating for b in bots],
            [fits[b].low for b in bots],
            [fits[b].high for b in bots],
            [fits[b].next_bot for b in bots],
            [fits[b].los_next for b in bots],
            [fits[b].ladder_next for b in bots],
            [fits[b].ladder_los for b in bots],
            [fits[b].games for b in bots],
            *_adjusted_columns([fits[b] for b in bots]),
        )
        await conn.execute(
            "INSERT INTO rating_fits "
            "(mode, fitted_at, rated_seen, deleted_seen, games, bots, duration_ms, "
            "annulled_seen) VALUES ($1, now(), $2, $3, $4, $5, $6, $7) "
            "ON CONFLICT (mode) DO UPDATE SET fitted_at = now(), rated_seen = $2, "
            "deleted_seen = $3, games = $4, bots = $5, duration_ms = $6, annulled_seen = $7, "
            "lease_until = NULL",
            mode,
            state.rated,
            state.deleted,
            games,
            state.bots,
            duration_ms,
            state.annulled,
        )


def _adjusted_columns(
    fits: list[Fitted],
) -> tuple[list[float | None], list[float | None], list[float | None]]:
    """The adjusted estimate, low and high of each fit (None where it has none)."""
    found = [f.adjusted for f in fits]
    return (
        [None if a is None else a.rating for a in found],
        [None if a is None else a.low for a in found],
        [None if a is None else a.high for a in found],
    )


async def intervals(conn: Executor, bot_ids: list[int]) -> dict[int, list[StoredInterval]]:
    """The stored intervals of each bot, one per pool it was fitted in."""
    rows = await conn.fetch(
        "SELECT i.bot_id, i.mode, i.rating, i.low, i.high, i.next_bot_id, "
        "n.name AS next_bot_name, i.los_next, i.fitted_at "
        "FROM rating_intervals i LEFT JOIN bots n ON n.id = i.next_bot_id "
        "WHERE i.bot_id = ANY($1::bigint[]) ORDER BY i.bot_id, i.mode",
        bot_ids,
    )
    found: dict[int, list[StoredInterval]] = {bot: [] for bot in bot_ids}
    for row in rows:
        values = dict(row)
        found[int(values.pop("bot_id"))].append(StoredInterval(**values))
    return found
