"""Stored Elo ratings per bot and mode, their history, and the leaderboards.

The arithmetic is :mod:`services.domain.ratings` (pure); this module only reads and writes rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from services.db.accounts import Connection, Executor
from services.domain import BotResult, RatingPool


@dataclass(frozen=True, slots=True)
class StoredRating:
    bot_id: int
    rating: int
    matches: int


@dataclass(frozen=True, slots=True)
class RatingUpdate:
    bot_id: int
    before: int
    after: int
    outcome: BotResult


@dataclass(frozen=True, slots=True)
class LeaderboardRow:
    """A leaderboard line; ``low``/``high``/``next_bot_id``/``los_next``/``fitted_at`` come
    from the last rating fit (:mod:`services.db.rating_fits`), None before the bot's first."""

    bot_id: int
    name: str
    rating: float
    matches: int
    wins: int
    losses: int
    draws: int
    low: float | None = None
    high: float | None = None
    next_bot_id: int | None = None
    los_next: float | None = None
    fitted_at: datetime | None = None


LEADERBOARD_WHERE = "WHERE r.mode = $1 AND r.matches > 0 AND b.status <> 'deleted' "
"""Who is on pool $1's leaderboard (``r``: ratings, ``b``: bots), and in which order:"""
LEADERBOARD_ORDER = "ORDER BY r.rating DESC, r.bot_id "


async def lock_ratings(
    conn: Connection, mode: RatingPool, bot_ids: list[int]
) -> dict[int, StoredRating]:
    """The bots' ratings in ``mode`` (rows created at 1500 if missing), locked for update.

    Rows are locked in bot id order, so concurrent results never deadlock on them.
    """
    ordered = sorted(set(bot_ids))
    await conn.execute(
        "INSERT INTO ratings (bot_id, mode) SELECT unnest($1::bigint[]), $2 "
        "ON CONFLICT ON CONSTRAINT ratings_pkey DO NOTHING",
        ordered,
        mode,
    )
    rows = await conn.fetch(
        "SELECT bot_id, rating, matches FROM ratings WHERE mode = $1 "
        "AND bot_id = ANY($2::bigint[]) ORDER BY bot_id FOR UPDATE",
        mode,
        ordered,
    )
    return {
        int(row["bot_id"]): StoredRating(int(row["bot_id"]), round(row["rating"]), row["matches"])
        for row in rows
    }


async def apply_changes(
    conn: Connection, mode: RatingPool, match_id: int, changes: list[RatingUpdate]
) -> None:
    """Write new ratings and one history row per bot (a second write for the match fails)."""
    await conn.executemany(
        "UPDATE ratings SET rating = $3, matches = matches + 1, "
        "wins = wins + ($4 = 'win')::int, losses = losses + ($4 = 'loss')::int, "
        "draws = draws + ($4 = 'draw')::int, updated_at = now() "
        "WHERE bot_id = $1 AND mode = $2",
        [(c.bot_id, mode, float(c.after), c.outcome) for c in changes],
    )
    await conn.executemany(
        "INSERT INTO rating_history (bot_id, mode, match_id, rating_before, rating_after) "
        "VALUES ($1, $2, $3, $4, $5)",
        [(c.bot_id, mode, match_id, float(c.before), float(c.after)) for c in changes],
    )


async def leaderboard(
    conn: Executor, mode: RatingPool, *, limit: int, offset: int
) -> tuple[list[LeaderboardRow], LeaderboardRow | None]:
    """Bots that played rated matches in ``mode``, highest rating first (then bot id), with
    the last fit's interval: the page, and the first entry of the next page (None at the end;
    it is the entry below the page's last)."""
    # the page first, then its intervals: one primary-key lookup per entry shown, never one
    # per entry the offset skips (LIMIT 1 keeps the planner from turning the lateral lookup
    # into a hash join over the whole pool; bench/leaderboard.py measures both)
    rows = await conn.fetch(
        "SELECT p.*, i.low, i.high, i.next_bot_id, i.los_next, i.fitted_at FROM ("
        "SELECT r.bot_id, b.name, r.rating, r.matches, r.wins, r.losses, r.draws "
        "FROM ratings r JOIN bots b ON b.id = r.bot_id "
        f"{LEADERBOARD_WHERE}{LEADERBOARD_ORDER}OFFSET $2 LIMIT $3) p "
        "LEFT JOIN LATERAL (SELECT low, high, next_bot_id, los_next, fitted_at "
        "FROM rating_intervals WHERE bot_id = p.bot_id AND mode = $1 LIMIT 1) i ON true "
        "ORDER BY p.rating DESC, p.bot_id",
        mode,
        offset,
        limit + 1,
    )
    found = [LeaderboardRow(**dict(row)) for row in rows]
    return found[:limit], found[limit] if len(found) > limit else None


async def history_of_match(conn: Executor, match_id: int) -> list[tuple[int, str, float, float]]:
    """(bot, mode, before, after) rows written for a match."""
    rows = await conn.fetch(
        "SELECT bot_id, mode, rating_before, rating_after FROM rating_history "
        "WHERE match_id = $1 ORDER BY bot_id",
        match_id,
    )
    return [
        (int(row["bot_id"]), str(row["mode"]), row["rating_before"], row["rating_after"])
        for row in rows
    ]


@dataclass(frozen=True, slots=True)
class AppliedChange:
    """A rating change as a verifier needs it: the K factor follows ``rated_before``, the
    bot's rated matches in the pool before this one."""

    match_id: int
    bot_id: int
    pool: RatingPool
    before: int
    after: int
    rated_before: int


async def changes_of_matches(conn: Executor, match_ids: list[int]) -> list[AppliedChange]:
    """The rating changes written for ``match_ids``, by match then bot. A bot's history rows
    are written one at a time under its rating row's lock, so the rows with a smaller id are
    exactly its earlier rated matches."""
    rows = await conn.fetch(
        "SELECT h.match_id, h.bot_id, h.mode, h.rating_before, h.rating_after, "
        "(SELECT count(*) FROM rating_history p WHERE p.bot_id = h.bot_id "
        " AND p.mode = h.mode AND p.id < h.id) AS rated_before "
        "FROM rating_history h WHERE h.match_id = ANY($1::bigint[]) ORDER BY h.match_id, h.bot_id",
        match_ids,
    )
    return [
        AppliedChange(
            int(row["match_id"]),
            int(row["bot_id"]),
            row["mode"],  # the ratings_mode_check constraint keeps it a RatingPool
            round(row["rating_before"]),
            round(row["rating_after"]),
            int(row["rated_before"]),
        )
        for row in rows
    ]
