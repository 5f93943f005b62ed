"""Annul rated matches and refit their pools without them (moderation: a disqualified bot's
ladder results, a colluding pair's).

In one transaction, with every rating write of the platform held back
(:func:`services.db.annulment.lock_ratings`): the matches are marked annulled, their rating
changes deleted, and each pool they rated in is recomputed from its first match with the Elo
rule (:func:`services.domain.ratings.compute_ratings`), in the order its results were stored:
every later change and every bot's rating, match count and record are rewritten. A bot that
met the annulled bot is rated as if those matches had never been played. The rating fit (the
intervals and LOS) sees fewer rated games and refits the pool at its next run (at most
``FIT_EVERY_S`` later).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from services.db import annulment as db_annulment
from services.db.accounts import Connection
from services.domain import RatingPool, side_result
from services.domain.ratings import START, RatedMatch, compute_ratings


@dataclass(frozen=True, slots=True)
class Refit:
    annulled: list[int]
    """The matches annulled now (not those annulled before)."""
    pools: list[RatingPool]
    """The pools recomputed."""


async def annul_and_refit(conn: Connection, match_ids: list[int], log_id: int) -> Refit:
    """Annul ``match_ids`` (those not annulled yet) and recompute the pools they rated in;
    call inside a transaction."""
    await db_annulment.lock_ratings(conn)
    already = await db_annulment.annulled_among(conn, match_ids)
    fresh = sorted(set(match_ids) - already)
    if not fresh:
        return Refit([], [])
    pools = await db_annulment.pools_of(conn, fresh)
    await db_annulment.mark_annulled(conn, fresh, log_id)
    await db_annulment.delete_changes(conn, fresh)
    for pool in pools:
        await recompute_pool(conn, pool)
    return Refit(fresh, pools)


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
