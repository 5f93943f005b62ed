"""A played match's result: stored with its replay and its Elo change in one transaction,
then what follows a decided match (:mod:`services.flow.decided`)."""

from __future__ import annotations

from dataclasses import dataclass, field

import asyncpg

from arena.match.replay import Replay
from services.base.config import LadderSettings
from services.db import matches as db_matches
from services.db import ratings as db_ratings
from services.db import stopping as db_stopping
from services.db.accounts import Connection
from services.db.matches import StoredMatch
from services.domain import CANCELLED, BotResult, SideResult, side_result
from services.domain.packed_replay import PackedReplay, pack
from services.domain.rated import moves_ratings
from services.domain.ratings import k_factor, match_delta, rating_pool
from services.domain.result import played_result
from services.flow import decided, fair_play
from services.flow.errors import MatchNotFound, ResultMismatch


@dataclass(frozen=True, slots=True)
class Recorded:
    """What :func:`record_result` did, so its caller need not read it again: whether the result
    was stored (False: stored before, or the match was decided without this play), the new
    matches to send once committed (``next_ids``), the matches decided without their play that
    their workers should stop (``stop``: the open pairs of an SPRT test this result ended), and
    the ladder of a ladder match, stored now or not (``ladder_pool``: its matchmaker may run at
    once)."""

    stored: bool
    next_ids: list[int] = field(default_factory=list)
    stop: list[int] = field(default_factory=list)
    ladder_pool: str | None = None


async def mark_running(pool: asyncpg.Pool, match_id: int) -> bool:
    """A worker began playing the match (``truco.match_started``): pending/queued -> running."""
    return await db_matches.mark_running(pool, match_id)


async def match_stopped(pool: asyncpg.Pool, match_id: int) -> bool:
    """A worker stopped playing a decided match (``truco.match_stopped``): no longer
    ``stopping``, so its seeds may be shown. True if it was stopping."""
    return await db_stopping.clear_stopping(pool, match_id)


async def record_result(
    pool: asyncpg.Pool,
    match_id: int,
    replay: Replay,
    task_id: str | None = None,
    *,
    packed: PackedReplay | None = None,
    ladder_pause_after: int = LadderSettings().pause_after,
) -> Recorded:
    """Store a played match's result, in ONE transaction: the ``match_results`` row (once: a
    second call for the match changes nothing and says so), the zlib-compressed replay,
    the match's status and winner, the Elo change of a rated match (not for walkovers), then what
    follows (:func:`services.flow.decided.follow_played`: the tournament's next
    matches, an SPRT test's next pairs, a ladder bot's health).
    Returns what it did (:class:`Recorded`). A ladder match's result also counts for its
    bots' health on the ladder (``ladder_pause_after`` walkovers or forfeits in a row pause
    a bot there: :func:`services.flow.ladder.after_result`).

    ``replay.entrants`` are in slot order (as :func:`match_specs` gave them). ``packed`` is
    the replay as the worker sent it (:mod:`services.domain.packed_replay`), stored as it is;
    without it the replay is packed here.
    """
    packed = packed if packed is not None else pack(replay)
    async with pool.acquire() as conn, conn.transaction():
        peek = await db_matches.get_match(conn, match_id)
        if peek is None:
            raise MatchNotFound(f"there is no match {match_id}")
        tournament = await decided.lock_owner(conn, match_id, peek.tournament_id)
        match = await db_matches.get_match(conn, match_id, for_update=True)
        assert match is not None
        if match.finished or match.bot1 is None or match.status == CANCELLED:
            # decided without this play (cancelled, withdrawn): its worker has stopped now
            await db_stopping.clear_stopping(conn, match_id)
            return Recorded(False, ladder_pool=match.ladder_pool)
        if (replay.seed, replay.deals) != (match.seed, match.deals):
            raise ResultMismatch(
                f"match {match_id} has seed {match.seed} and {match.deals} deals; the replay "
                f"was played with seed {replay.seed} and {replay.deals} deals"
            )
        winner = replay.result.winner
        result = played_result(replay)
        stored = await db_matches.insert_result(
            conn, match_id, winner_side=winner, result=result, task_id=task_id
        )
        if not stored:
            return Recorded(False, ladder_pool=match.ladder_pool)
        await db_matches.store_replay(conn, match_id, packed)
        await db_matches.set_played_attempt(conn, match_id, replay.attempt)
        await db_matches.finish_match(conn, match_id, status="done", winner_side=winner)
        await fair_play.record_latency(conn, match, replay)
        rated = moves_ratings(
            rated=match.rated,
            reason=replay.result.reason,
            winner_side=winner,
            ladder=match.ladder_pool is not None,
        ) and not await fair_play.spared_forfeit(conn, match, replay)
        if rated:
            await _rate(conn, match, winner)
        followed = await decided.follow_played(
            conn,
            match,
            replay,
            result,
            tournament,
            ladder_pause_after=ladder_pause_after,
            rated=rated,
        )
        return Recorded(True, followed.next_ids, followed.stop, match.ladder_pool)


_RESULT_OF_SIDE_A: dict[SideResult, BotResult] = {"a": "win", "b": "loss", "draw": "draw"}
_SWAPPED: dict[SideResult, SideResult] = {"a": "b", "b": "a", "draw": "draw"}


async def _rate(conn: Connection, match: StoredMatch, winner_side: int | None) -> None:
    """One Elo update (services.domain.ratings rules): a side is one bot (1v1, team 2v2) or the two
    bots of an individual 2v2 side, rated as their mean; every bot of a side moves by its
    side's delta, in the match's rating pool."""
    assert match.bot1 is not None
    pool_name = rating_pool(match.mode, match.partnership)
    stored = await db_ratings.lock_ratings(conn, pool_name, list(match.bots))
    sides = (
        [stored[b] for b in match.side_bots(0)],
        [stored[b] for b in match.side_bots(1)],
    )
    result = side_result(winner_side)
    delta = match_delta(
        [r.rating for r in sides[0]],
        [r.rating for r in sides[1]],
        [k_factor(r.matches) for r in (*sides[0], *sides[1])],
        result,
    )
    outcome_a: BotResult = _RESULT_OF_SIDE_A[result]
    outcome_b: BotResult = _RESULT_OF_SIDE_A[_SWAPPED[result]]
    await db_ratings.apply_changes(
        conn,
        pool_name,
        match.id,
        [
            *(
                db_ratings.RatingUpdate(r.bot_id, r.rating, r.rating + delta, outcome_a)
                for r in sides[0]
            ),
            *(
                db_ratings.RatingUpdate(r.bot_id, r.rating, r.rating - delta, outcome_b)
                for r in sides[1]
            ),
        ],
    )
