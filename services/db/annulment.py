"""Annulled ladder matches and the rated pool rewritten without them (migrations 0065, 0066):
the one table of matches a moderator annulled, by disqualifying a bot or deciding a collusion
flag (``flag_id``), each with its line in the audit log (``log_id``).

An annulled match keeps its row, result and replay; its rating changes are deleted and every
other change of its pool is rewritten as the Elo rule gives it without the match (the
arithmetic is :func:`services.domain.ratings.compute_ratings`; the order of the pool's
matches is the order their changes were written, which the ids of ``rating_history`` keep).
The rating fit reads the same rows, so it follows at its next run.

While a pool is rewritten, ``ratings`` and ``rating_history`` take no writes
(:func:`lock_ratings`): a result stored meanwhile waits, then applies its change on top of the
rewritten ratings.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from services.db.accounts import Connection, Executor
from services.domain import RatingPool


@dataclass(frozen=True, slots=True)
class HistoryRow:
    """One stored rating change, as the recomputation needs it."""

    id: int
    match_id: int
    bot_id: int
    side: int
    winner_side: int | None


@dataclass(frozen=True, slots=True)
class Rewritten:
    """A bot's rating in the pool after the recomputation."""

    bot_id: int
    rating: int
    matches: int
    wins: int
    losses: int
    draws: int


async def lock_ratings(conn: Connection) -> None:
    """No rating is written by anyone else until this transaction ends (reads go on)."""
    await conn.execute("LOCK TABLE ratings, rating_history IN SHARE ROW EXCLUSIVE MODE")


async def ladder_matches_of_bot(conn: Executor, bot_id: int) -> list[int]:
    """The bot's finished ladder matches not yet annulled."""
    rows = await conn.fetch(
        "SELECT m.id FROM matches m JOIN match_entrants e ON e.match_id = m.id "
        "WHERE e.bot_id = $1 AND m.ladder_pool IS NOT NULL "
        "AND m.status IN ('done', 'forfeit') "
        "AND NOT EXISTS (SELECT 1 FROM annulled_matches a WHERE a.match_id = m.id) "
        "GROUP BY m.id ORDER BY m.id",
        bot_id,
    )
    return [int(row["id"]) for row in rows]


async def annulled_among(conn: Executor, match_ids: Sequence[int]) -> set[int]:
    rows = await conn.fetch(
        "SELECT match_id FROM annulled_matches WHERE match_id = ANY($1::bigint[])",
        list(match_ids),
    )
    return {int(row["match_id"]) for row in rows}


async def mark_annulled(
    conn: Executor, match_ids: Sequence[int], log_id: int, flag_id: int | None = None
) -> None:
    await conn.executemany(
        "INSERT INTO annulled_matches (match_id, log_id, flag_id) VALUES ($1, $2, $3) "
        "ON CONFLICT (match_id) DO NOTHING",
        [(match_id, log_id, flag_id) for match_id in match_ids],
    )


async def unsettled(conn: Executor) -> list[int]:
    """Annulled matches that still have rating changes: moved by migration 0066 from the
    fit-only annulments of 0034 (:func:`services.flow.rating_refit.settle_moved`)."""
    rows = await conn.fetch(
        "SELECT a.match_id FROM annulled_matches a WHERE EXISTS "
        "(SELECT 1 FROM rating_history h WHERE h.match_id = a.match_id) ORDER BY a.match_id"
    )
    return [int(row["match_id"]) for row in rows]


async def rated_ladder_bots(conn: Executor, match_ids: Sequence[int]) -> dict[str, list[int]]:
    """The bots of the matches' rated ladder results (those with rating changes), by ladder
    pool, one entry per bot per match: the ladder's match counts they leave."""
    rows = await conn.fetch(
        "SELECT m.ladder_pool, e.bot_id FROM matches m "
        "JOIN match_entrants e ON e.match_id = m.id "
        "WHERE m.id = ANY($1::bigint[]) AND m.ladder_pool IS NOT NULL "
        "AND EXISTS (SELECT 1 FROM rating_history h WHERE h.match_id = m.id) "
        "ORDER BY m.id, e.slot",
        list(match_ids),
    )
    found: dict[str, list[int]] = {}
    for row in rows:
        found.setdefault(str(row["ladder_pool"]), []).append(int(row["bot_id"]))
    return found


async def annulled_by_flag(conn: Executor, flag_ids: Sequence[int]) -> dict[int, list[int]]:
    """The matches each flag's annulment annulled."""
    rows = await conn.fetch(
        "SELECT flag_id, match_id FROM annulled_matches WHERE flag_id = ANY($1::bigint[]) "
        "ORDER BY match_id",
        list(flag_ids),
    )
    found: dict[int, list[int]] = {}
    for row in rows:
        found.setdefault(int(row["flag_id"]), []).append(int(row["match_id"]))
    return found


async def pools_of(conn: Executor, match_ids: Sequence[int]) -> list[RatingPool]:
    """The rating pools the matches moved ratings in."""
    rows = await conn.fetch(
        "SELECT DISTINCT mode FROM rating_history WHERE match_id = ANY($1::bigint[]) ORDER BY mode",
        list(match_ids),
    )
    return [row["mode"] for row in rows]


async def delete_changes(conn: Executor, match_ids: Sequence[int]) -> int:
    """Delete the matches' rating changes; how many rows went."""
    status = await conn.execute(
        "DELETE FROM rating_history WHERE match_id = ANY($1::bigint[])", list(match_ids)
    )
    return int(status.split()[-1])


async def pool_history(conn: Executor, pool: RatingPool) -> list[HistoryRow]:
    """Every stored change of the pool, in the order it was written, with its bot's side."""
    rows = await conn.fetch(
        "SELECT DISTINCT ON (h.id) h.id, h.match_id, h.bot_id, e.side, m.winner_side "
        "FROM rating_history h "
        "JOIN match_entrants e ON e.match_id = h.match_id AND e.bot_id = h.bot_id "
        "JOIN matches m ON m.id = h.match_id "
        "WHERE h.mode = $1 ORDER BY h.id",
        pool,
    )
    return [
        HistoryRow(
            int(row["id"]),
            int(row["match_id"]),
            int(row["bot_id"]),
            int(row["side"]),
            row["winner_side"],
        )
        for row in rows
    ]


async def pool_bots(conn: Executor, pool: RatingPool) -> list[int]:
    rows = await conn.fetch("SELECT bot_id FROM ratings WHERE mode = $1 ORDER BY bot_id", pool)
    return [int(row["bot_id"]) for row in rows]


async def rewrite(
    conn: Executor,
    pool: RatingPool,
    changes: Iterable[tuple[int, int, int]],
    ratings: Iterable[Rewritten],
) -> None:
    """Write the recomputed changes (``(history id, before, after)``) and every bot's rating
    of the pool."""
    await conn.execute(
        "UPDATE rating_history h SET rating_before = c.before, rating_after = c.after "
        "FROM unnest($1::bigint[], $2::float8[], $3::float8[]) AS c(id, before, after) "
        "WHERE h.id = c.id AND (h.rating_before <> c.before OR h.rating_after <> c.after)",
        *_columns(((i, float(b), float(a)) for i, b, a in changes), 3),
    )
    await conn.execute(
        "UPDATE ratings r SET rating = n.rating, matches = n.matches, wins = n.wins, "
        "losses = n.losses, draws = n.draws, updated_at = now() "
        "FROM unnest($2::bigint[], $3::float8[], $4::int[], $5::int[], $6::int[], $7::int[]) "
        "AS n(bot_id, rating, matches, wins, losses, draws) "
        "WHERE r.mode = $1 AND r.bot_id = n.bot_id",
        pool,
        *_columns(
            ((r.bot_id, float(r.rating), r.matches, r.wins, r.losses, r.draws) for r in ratings),
            6,
        ),
    )


def _columns(rows: Iterable[tuple[Any, ...]], width: int) -> list[list[Any]]:
    columns: list[list[Any]] = [[] for _ in range(width)]
    for row in rows:
        for column, value in zip(columns, row, strict=True):
            column.append(value)
    return columns
