"""A worker refused a match it can never play (``truco.match_refused``): the match is decided
as the platform's fault, visibly (its result's ``error`` says why), rating nobody and counting
against no bot's health on a ladder; a tournament goes on past it, an SPRT test fails, as when
the recovery sweeper gives up on a match (:func:`services.flow.decided.follow_given_up`)."""

from __future__ import annotations

import asyncpg

from services.db import matches as db_matches
from services.db import platform_faults as db_faults
from services.db import sweep as db_sweep
from services.flow import decided
from services.flow.errors import MatchNotFound

FAULT = "platform fault: the worker cannot play this match"


def fault_detail(refusal: str) -> str:
    """The cause a refused match shows: the platform's fault, in the worker's words."""
    return f"{FAULT}: {refusal}"


async def refused(pool: asyncpg.Pool, match_id: int, refusal: str) -> tuple[bool, list[int]]:
    """Decide ``match_id`` as the platform's fault (once; a result stored meanwhile wins):
    (decided now?, the matches this made ready to send)."""
    async with pool.acquire() as conn, conn.transaction():
        peek = await db_matches.get_match(conn, match_id)
        if peek is None:
            raise MatchNotFound(f"there is no match {match_id}")
        tournament = await decided.lock_owner(conn, match_id, peek.tournament_id)
        if await db_sweep.lock_open(conn, match_id) is None:
            return False, []
        detail = fault_detail(refusal)
        in_tournament = peek.tournament_id is not None
        if not await db_faults.decide_as_fault(
            conn, match_id, in_tournament=in_tournament, detail=detail
        ):
            return False, []
        return True, await decided.follow_given_up(
            conn, match_id, tournament, peek.ladder_pool, detail
        )
