"""Annul rated matches and refit their pools without them: the ONE way a moderator annuls a
match, whether by disqualifying a bot (:func:`services.flow.moderation.disqualify_bot`) or by
deciding a collusion flag (:func:`services.flow.ladder_integrity.annul`); the rule is
docs/moderation.md's "Annulled ladder matches".

In one transaction, with every rating write of the platform held back
(:func:`services.db.annulment.lock_ratings`): the matches are marked annulled, their rating
changes deleted, and each pool they rated in is recomputed from its first match with the Elo
rule (:func:`services.domain.ratings.compute_ratings`), in the order its results were stored:
every later change and every bot's rating, match count and record are rewritten. A bot that
met the annulled bot is rated as if those matches had never been played. The rating fit (the
intervals and LOS) sees fewer rated games and refits the pool at its next run (at most
``FIT_EVERY_S`` later). A ladder match annulled leaves its bots' ladder match counts too.
A match is annulled once: one already annulled (by the other path) is left as it is.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import asyncpg

from services.db import annulment as db_annulment
from services.db import ladder as db_ladder
from services.db.accounts import Connection
from services.domain import RatingPool, side_result
from services.domain.ratings import START, RatedMatch, compute_ratings


@dataclass(frozen=True, slots=True)
class Refit:
    annulled: list[int]
    """The matches annulled now (not those annulled before)."""
    pools: list[RatingPool]
    """The pools recomputed."""


async def annul_and_refit(
    conn: Connection, match_ids: list[int], log_id: int, flag_id: int | None = None
) -> Refit:
    """Annul ``match_ids`` (those not annulled yet) and recompute the pools they rated in;
    call inside a transaction, after writing the action's audit line (``log_id``);
    ``flag_id``: the collusion flag the annulment decides."""
    await db_annulment.lock_ratings(conn)
    already = await db_annulment.annulled_among(conn, match_ids)
    fresh = sorted(set(match_ids) - already)
    if not fresh:
        return Refit([], [])
    await db_annulment.mark_annulled(conn, fresh, log_id, flag_id)
    for ladder, bots in (await db_annulment.rated_ladder_bots(conn, fresh)).items():
        await db_ladder.note_annulled(conn, ladder, dict(Counter(bots)))
    return Refit(fresh, await _take_out(conn, fresh))


async def settle_moved(pool: asyncpg.Pool) -> list[int]:
    """Take out of Elo the annulled matches that still have rating changes (moved by
    migration 0066 from 0034's fit-only annulments, whose ladder counts were adjusted then);
    the matches settled. The trusted worker calls it before each fit: nothing to do but one
    read once they are settled."""
    async with pool.acquire() as conn:
        if not await db_annulment.unsettled(conn):
            return []
    async with pool.acquire() as conn, conn.transaction():
        await db_annulment.lock_ratings(conn)
        found = await db_annulment.unsettled(conn)
        if found:
            await _take_out(conn, found)
    return found


async def _take_out(conn: Connection, match_ids: list[int]) -> list[RatingPool]:
    """Delete the matches' rating changes and recompute the pools they rated in."""
    pools = await db_annulment.pools_of(conn, match_ids)
    await db_annulment.delete_changes(conn, match_ids)
    for pool in pools:
        await recompute_pool(conn, pool)
    return pools


async def recompute_pool(conn: Connection, pool: RatingPool) -> None:
    """Every stored change of ``pool`` and every bot's rating, recomputed from the first match
    with the Elo rule, in the order the changes were written."""
    rows = await db_annulment.pool_history(conn, pool)
    sides: dict[int, tuple[list[int], list[int]]] = {}
    winners: dict[int, int | None] = {}
    row_of: dict[tuple[int, int], int] = {}
    for row in rows:  # in id order: a match first appears where it was stored
        teams = sides.setdefault(row.match_id, ([], []))
        teams[row.side].append(row.bot_id)
        winners[row.match_id] = row.winner_side
        row_of[(row.bot_id, row.match_id)] = row.id
    rated = [
        RatedMatch(pool, tuple(a), tuple(b), side_result(winners[match_id]), match_id)
        for match_id, (a, b) in sides.items()
    ]
    table = compute_ratings(rated).get(pool, {})
    record: dict[int, Counter[str]] = {}
    for match in rated:
        for bots, won in ((match.team_a, "a"), (match.team_b, "b")):
            for bot in bots:
                outcome = (
                    "draw" if match.result == "draw" else "win" if match.result == won else "loss"
                )
                record.setdefault(int(bot), Counter())[outcome] += 1
    changes = [
        (row_of[(int(bot), int(change.match_id or 0))], change.before, change.after)
        for bot, rating in table.items()
        for change in rating.history
    ]
    rewritten = []
    for bot in await db_annulment.pool_bots(conn, pool):
        rating = table.get(bot)
        counts = record.get(bot, Counter())
        rewritten.append(
            db_annulment.Rewritten(
                bot_id=bot,
                rating=START if rating is None else rating.rating,
                matches=0 if rating is None else rating.matches,
                wins=counts["win"],
                losses=counts["loss"],
                draws=counts["draw"],
            )
        )
    await db_annulment.rewrite(conn, pool, changes, rewritten)
