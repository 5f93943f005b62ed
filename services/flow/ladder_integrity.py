"""Collusion on the ladders, for the platform's admins (issue 33, item 2).

What this module gives an admin surface (its API and CLI are issue 37's, ``ops``):

* :func:`scan` runs the detector (:mod:`services.ladder.collusion`) over a pool's rated ladder
  results of the last :data:`WINDOW_S` (30 days, annulled ones left out), scored against the
  pool's current fit, and stores a flag with its evidence for every suspect pair (refreshing an
  open flag's evidence; a pair whose flag was dismissed is flagged again only once it has
  ``min_matches`` more results). The trusted worker runs it after each refit of a ladder pool.
* :func:`open_flags` lists the flags to look at, newest first, with their evidence.
* :func:`annul` decides a flag: every rated ladder match between the pair (the bot and the
  flagged opponent, or any bot of the flagged owner) is annulled: it keeps its result, replay
  and Elo change (a ladder day's verification is unchanged), but it leaves the pool's fit (the
  ladder's rating, interval, rank and LOS, refitted within a fit period) and its bots' counts.
* :func:`dismiss` closes a flag without changing anything.

Linked accounts (made from one address within ``TRUCO_LADDER_LINK_WINDOW_S``) never meet on a
ladder at all (:mod:`services.ladder.links`); the detector catches accomplices made elsewhere.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterator
from typing import Any

import asyncpg

from services.base.config import LadderSettings
from services.db import ladder as db_ladder
from services.db import ladder_flags as db_flags
from services.db.ladder_flags import Flag, ResultRow
from services.flow.errors import FlowError
from services.ladder.collusion import LadderResult, Suspect, suspects
from services.ladder.model import LadderPool

logger = logging.getLogger("services.flow")

WINDOW_S = 30 * 86400.0
"""The ladder results a scan reads: the last 30 days'."""


class FlagNotFound(FlowError):
    """There is no such flag."""


class FlagDecided(FlowError):
    """The flag was annulled or dismissed already."""


def results_of(rows: list[ResultRow]) -> Iterator[LadderResult]:
    """Each bot's result against each opponent (two in individual 2v2), with its partner's and
    the opposing side's fitted ratings (matches with an unfitted bot are left out)."""
    for row in rows:
        ratings = row.ratings
        if any(r is None for r in ratings):
            continue
        fitted = [float(r) for r in ratings if r is not None]
        for slot, bot in enumerate(row.bots):
            side = slot % 2
            opposing = [fitted[k] for k in range(len(fitted)) if k % 2 != side]
            partners = [fitted[k] for k in range(len(fitted)) if k % 2 == side and k != slot]
            score = 0.5 if row.winner_side is None else float(row.winner_side == side)
            points = sum(row.tantos)
            share = row.tantos[side] / points if points else None
            for other, opponent in enumerate(row.bots):
                if other % 2 != side:
                    yield LadderResult(
                        bot=bot,
                        opponent=opponent,
                        opponent_owner=row.owners[other],
                        score=score,
                        partner=partners[0] if partners else None,
                        opposing=sum(opposing) / len(opposing),
                        match_id=row.match_id,
                        own=fitted[slot],
                        share=share,
                    )


async def scan(pool: asyncpg.Pool, ladder: LadderPool, settings: LadderSettings) -> list[int]:
    """Flag the pool's suspect pairs now; the ids of the flags opened or refreshed."""
    async with pool.acquire() as conn:
        rows = await db_flags.recent_results(conn, ladder, WINDOW_S)
    found: list[Suspect] = suspects(
        results_of(rows),
        sigmas=float(settings.collusion_sigmas),
        min_matches=settings.collusion_min_matches,
    )
    ids = []
    async with pool.acquire() as conn, conn.transaction():
        for suspect in found:
            seen = await db_flags.decided_matches(
                conn, ladder, suspect.bot, suspect.against_kind, suspect.against
            )
            if (
                seen is not None
                and suspect.evidence.matches < seen + settings.collusion_min_matches
            ):
                continue  # dismissed: flagged again only with new evidence
            ids.append(
                await db_flags.upsert_flag(
                    conn,
                    ladder,
                    suspect.bot,
                    suspect.against_kind,
                    suspect.against,
                    suspect.evidence,
                )
            )
    for suspect in found:
        logger.warning(
            "ladder %s: bot %s flagged against %s %s (z %.1f over %d matches)",
            ladder,
            suspect.bot,
            suspect.against_kind,
            suspect.against,
            suspect.evidence.z,
            suspect.evidence.matches,
        )
    return ids


async def open_flags(pool: asyncpg.Pool, ladder: LadderPool | None = None) -> list[Flag]:
    """The flags still to decide, newest first."""
    async with pool.acquire() as conn:
        return await db_flags.flags(conn, status="open", pool=ladder)


async def annul(pool: asyncpg.Pool, flag_id: int, admin_id: int | None, note: str) -> list[int]:
    """Annul the flagged pair's ladder results (module docstring); the matches annulled."""
    async with pool.acquire() as conn, conn.transaction():
        flag = await _open_flag(conn, flag_id)
        matches = await db_flags.pair_matches(
            conn, flag.pool, flag.bot_id, flag.against_kind, flag.against_id
        )
        annulled = await db_flags.annul(conn, matches, flag.id)
        await db_ladder.note_annulled(
            conn, flag.pool, dict(Counter(await db_flags.bots_of_matches(conn, annulled)))
        )
        await db_flags.decide(conn, flag.id, "annulled", admin_id, note)
    logger.warning("ladder %s: flag %s annulled %d matches", flag.pool, flag_id, len(annulled))
    return annulled


async def dismiss(pool: asyncpg.Pool, flag_id: int, admin_id: int | None, note: str) -> None:
    """Close the flag: its pair's results stand."""
    async with pool.acquire() as conn, conn.transaction():
        flag = await _open_flag(conn, flag_id)
        await db_flags.decide(conn, flag.id, "dismissed", admin_id, note)


async def _open_flag(conn: Any, flag_id: int) -> Flag:
    flag = await db_flags.flag_for_update(conn, flag_id)
    if flag is None:
        raise FlagNotFound(f"there is no ladder flag {flag_id}")
    if flag.status != "open":
        raise FlagDecided(f"ladder flag {flag_id} is {flag.status} already")
    return flag
