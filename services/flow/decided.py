"""A match is decided: the one place that takes the locks in the platform's order and says
what follows (as lila's Swiss module answers every finished game through one ``finishGame``).

A match is decided three ways: its result is stored (:func:`services.flow.results.record_result`),
a bot that left forfeits it (:func:`services.flow.advance.forfeit`, inside a tournament's
transaction), or the recovery sweeper gives up on it (``services.worker.results.sweep``). Each
does its own writes; the locks and what follows are these:

* :func:`lock_owner` first, then the match's row (``FOR UPDATE``): the match's owner is its
  tournament (row lock) or, outside tournaments, its SPRT test if it is a pair of one. Cancels,
  starts and a test's end take the same order, so no two of them deadlock.
* :func:`follow_played` or :func:`follow_given_up`, in the same transaction: a ladder match counts for its bots' health on the
  ladder (played results only); a tournament's match advances the event (its next round or its
  end); a pair of an SPRT test counts for the test (a played result), or fails it (given up).
  It returns the ids of the new matches to send once the transaction commits.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from arena.match.replay import Replay
from services.db import tournaments as db_tournaments
from services.db.accounts import Connection
from services.db.matches import StoredMatch
from services.db.tournaments import Tournament
from services.domain.result import StoredResult
from services.flow import ladder, sprt_pairs
from services.flow.advance import advance


@dataclass(frozen=True, slots=True)
class Followed:
    """What a decided match set off: the new matches to send once the transaction commits,
    and the matches it decided without their play (an SPRT test it ended cancels its open
    pairs), whose workers are asked to stop."""

    next_ids: list[int] = field(default_factory=list)
    stop: list[int] = field(default_factory=list)


async def lock_owner(
    conn: Connection, match_id: int, tournament_id: int | None
) -> Tournament | None:
    """Lock what the match belongs to, before the match's own row: its tournament (returned:
    the row read under the lock, for what follows), or its SPRT test (a challenge or a ladder
    match has nothing above it to lock)."""
    if tournament_id is not None:
        return await db_tournaments.get_tournament(conn, tournament_id, lock="update")
    await sprt_pairs.lock_test_of(conn, match_id)
    return None


async def follow_played(
    conn: Connection,
    match: StoredMatch,
    replay: Replay,
    result: StoredResult,
    tournament: Tournament | None,
    *,
    ladder_pause_after: int,
    rated: bool = False,
) -> Followed:
    """What a stored, played result sets off (module docstring); ``tournament`` is the match's,
    as :func:`lock_owner` read it; ``rated``: the result moved ratings (a ladder counts its
    bots' rated matches)."""
    if match.ladder_pool is not None:
        await ladder.after_result(conn, match, result, ladder_pause_after, rated=rated)
        return Followed()
    if tournament is None:
        next_ids, stop = await sprt_pairs.after_result(conn, match.id, replay, result.luck)
        return Followed(next_ids, stop)
    return Followed(await advance(conn, tournament))


async def follow_given_up(
    conn: Connection,
    match_id: int,
    tournament: Tournament | None,
    ladder_pool: str | None,
    detail: str,
) -> list[int]:
    """What giving up on a match sets off: its tournament advances, its SPRT test fails; a
    challenge or a ladder match sets off nothing (a given-up ladder match is the platform's
    failure, not its bots': it does not count for their health)."""
    if tournament is not None:
        return await advance(conn, tournament)
    if ladder_pool is None:
        await sprt_pairs.after_given_up(conn, match_id, detail)
    return []
