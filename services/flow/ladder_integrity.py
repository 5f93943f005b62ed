"""Collusion on the ladders, for the platform's admins (issue 33, item 2).

What this module gives the admins (their API: ``/v1/admin/ladder-flags``; their command line:
``truco admin flags``, ``annul-flag``, ``dismiss-flag``; docs/moderation.md):

* :func:`scan` runs the detector (:mod:`services.ladder.collusion`) over a pool's rated ladder
  results of the last :data:`WINDOW_S` (30 days, annulled ones left out), scored against the
  pool's current fit, and stores a flag with its evidence for every suspect pair (refreshing an
  open flag's evidence; a pair whose flag was dismissed is flagged again only once it has
  ``min_matches`` more results). The trusted worker runs it after each refit of a ladder pool.
* :func:`open_flags` lists the flags to look at, newest first, with their evidence.
* :func:`annul` decides a flag: every rated ladder match between the pair (the bot and the
  flagged opponent, or any bot of the flagged owner), not annulled yet, is annulled by the one
  rule every annulment follows (:func:`services.flow.rating_refit.annul_and_refit`,
  docs/moderation.md "Annulled ladder matches"): it keeps its result and replay, its rating
  changes go and its pools are recomputed without it (Elo now, the fit within a fit period),
  and it leaves its bots' ladder match counts. A match a disqualification annulled already
  stays annulled once.
* :func:`dismiss` closes a flag without changing anything else.

Each decision is one transaction with its line in the audit log (``annul_pair`` or
``dismiss_flag`` on the flagged bot, with the admin's reason), as every admin action is
(:mod:`services.flow.moderation`).

Linked accounts (made from one address within ``TRUCO_LADDER_LINK_WINDOW_S``) never meet on a
ladder at all (:mod:`services.ladder.links`); the detector catches accomplices made elsewhere.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass

import asyncpg

from services.base.config import LadderSettings
from services.db import annulment as db_annulment
from services.db import ladder_flags as db_flags
from services.db.accounts import Connection
from services.db.ladder_flags import Flag, Party, ResultRow
from services.db.moderation import LogEntry
from services.domain.moderation import AuditDetail
from services.flow.moderation import Actor, AlreadyDone, TargetNotFound, log_action, retrying
from services.flow.rating_refit import annul_and_refit
from services.ladder.collusion import LadderResult, Suspect, suspects
from services.ladder.model import LadderPool

logger = logging.getLogger("services.flow")

WINDOW_S = 30 * 86400.0
"""The ladder results a scan reads: the last 30 days'."""


class FlagNotFound(TargetNotFound):
    """There is no such flag (the admin API's 404)."""


class FlagDecided(AlreadyDone):
    """The flag was annulled or dismissed already (the admin API's 409)."""


@dataclass(frozen=True, slots=True)
class Decision:
    """A flag decided: its line in the audit log and the matches annulled now (none for a
    dismissal; an annulment's matches a disqualification annulled before are not counted)."""

    flag_id: int
    entry: LogEntry
    annulled: list[int]


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


@dataclass(frozen=True, slots=True)
class FlagView:
    """A flag as an admin reads it: the flagged bot and what it was flagged against (a bot or
    an owner), with names and owners, and the matches its annulment annulled."""

    flag: Flag
    bot: Party
    against: Party
    annulled: list[int]


async def flag_views(
    pool: asyncpg.Pool,
    *,
    status: str | None = "open",
    ladder: LadderPool | None = None,
    before: int | None = None,
    limit: int | None = None,
) -> list[FlagView]:
    """Flags of ``status`` (None: every one), newest first, as an admin reads them."""
    async with pool.acquire() as conn:
        found = await db_flags.flags(conn, status=status, pool=ladder, before=before, limit=limit)
        return await _views(conn, found)


async def flag_view(pool: asyncpg.Pool, flag_id: int) -> FlagView:
    async with pool.acquire() as conn:
        found = await db_flags.get_flag(conn, flag_id)
        if found is None:
            raise FlagNotFound(f"there is no ladder flag {flag_id}")
        return (await _views(conn, [found]))[0]


async def _views(conn: Connection, found: list[Flag]) -> list[FlagView]:
    bots = [f.bot_id for f in found] + [f.against_id for f in found if f.against_kind == "bot"]
    owners = [f.against_id for f in found if f.against_kind == "owner"]
    named = {(p.kind, p.id): p for p in await db_flags.parties(conn, bots, owners)}
    annulled = await db_annulment.annulled_by_flag(conn, [f.id for f in found])
    return [
        FlagView(
            flag=f,
            bot=named.get(("bot", f.bot_id)) or _unknown("bot", f.bot_id),
            against=named.get((f.against_kind, f.against_id))
            or _unknown(f.against_kind, f.against_id),
            annulled=annulled.get(f.id, []),
        )
        for f in found
    ]


def _unknown(kind: str, ident: int) -> Party:
    return Party(kind, ident, f"{kind}-{ident}", 0, "")


async def annul(pool: asyncpg.Pool, flag_id: int, actor: Actor, reason: str) -> Decision:
    """Annul the flagged pair's ladder results (module docstring)."""

    async def work(conn: Connection) -> Decision:
        flag = await _open_flag(conn, flag_id)
        await db_annulment.lock_ratings(conn)  # no annulment in between: this list is exact
        matches = await db_flags.pair_matches(
            conn, flag.pool, flag.bot_id, flag.against_kind, flag.against_id
        )
        detail: AuditDetail = {**_about(flag), "annulled_ladder_matches": matches}
        entry = await log_action(conn, actor, "annul_pair", "bot", flag.bot_id, reason, detail)
        refit = await annul_and_refit(conn, matches, entry.id, flag.id)
        await db_flags.decide(conn, flag.id, "annulled", actor.account_id, reason)
        return Decision(flag.id, entry, refit.annulled)

    done: Decision = await retrying(pool, work)
    logger.warning("ladder flag %s annulled %d matches", flag_id, len(done.annulled))
    return done


async def dismiss(pool: asyncpg.Pool, flag_id: int, actor: Actor, reason: str) -> Decision:
    """Close the flag: its pair's results stand."""
    async with pool.acquire() as conn, conn.transaction():
        flag = await _open_flag(conn, flag_id)
        entry = await log_action(
            conn, actor, "dismiss_flag", "bot", flag.bot_id, reason, _about(flag)
        )
        await db_flags.decide(conn, flag.id, "dismissed", actor.account_id, reason)
    return Decision(flag.id, entry, [])


def _about(flag: Flag) -> AuditDetail:
    """What the audit line says of the flag (the evidence stays on the flag)."""
    return {
        "flag_id": flag.id,
        "pool": flag.pool,
        "against_kind": flag.against_kind,
        "against_id": flag.against_id,
        "z": flag.evidence.z,
    }


async def _open_flag(conn: Connection, flag_id: int) -> Flag:
    flag = await db_flags.flag_for_update(conn, flag_id)
    if flag is None:
        raise FlagNotFound(f"there is no ladder flag {flag_id}")
    if flag.status != "open":
        raise FlagDecided(f"ladder flag {flag_id} is {flag.status} already")
    return flag
