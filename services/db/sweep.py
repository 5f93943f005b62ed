"""SQL of the recovery sweeper (``services.worker.results.sweep``): open matches nobody runs.

A match is open while ``pending`` (created, never sent), ``queued`` (sent: ``attempts`` counts
the sends) or ``running``. The sweeper looks for open matches that have stayed so for too long
and either sends them again or, after too many attempts, gives up on them
(:func:`give_up`). Every change here is made under the row locks ``services.flow`` takes
(tournament row first, then the match row), and re-checks the match inside the transaction, so
a result that lands at the same moment wins and the sweeper changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import asyncpg

from arena.game.deals import DealsMode
from engine.rules import Rules
from services.db.accounts import Connection, Executor
from services.domain import GAVE_UP, MatchStatus, Partnership
from services.domain.result import given_up_result
from services.domain.tournament_settings import (
    DEFAULT_FAULT_LIMIT,
    DEFAULT_TIME_BANK_MS,
    DEFAULT_TIMEOUT_MS,
)


@dataclass(frozen=True, slots=True)
class OpenMatch:
    """An open match that has waited at least the shortest threshold, with what decides its
    own threshold (its games, rules and time limits)."""

    id: int
    status: MatchStatus
    attempts: int
    tournament_id: int | None
    games_per_match: int
    rules: Rules  # the JSONB documents, decoded here once
    deals: DealsMode
    since: datetime
    """When it was created (``pending``), last sent (``queued``) or last began (``running``)."""
    age_s: float
    """Seconds since ``since``, by the database's clock."""
    partnership: Partnership = "team"
    """``individual``: four entrants, four time banks (migration 0005)."""
    ladder_pool: str | None = None
    """The ladder it was made for, if any."""
    timeout_ms: int = DEFAULT_TIMEOUT_MS
    time_bank_ms: int = DEFAULT_TIME_BANK_MS
    fault_limit: int = DEFAULT_FAULT_LIMIT
    """Its time limits (migration 0027)."""


async def open_matches(
    conn: Executor, *, pending_after_s: float, queued_after_s: float, limit: int = 500
) -> list[OpenMatch]:
    """Open matches ``pending`` for at least ``pending_after_s`` or ``queued``/``running`` for
    at least ``queued_after_s`` (oldest first), in running tournaments or outside any."""
    rows = await conn.fetch(
        """
        SELECT m.id, m.status, m.attempts, m.tournament_id, m.games_per_match, m.rules, m.deals,
               s.since, extract(epoch FROM now() - s.since)::float8 AS age_s, m.partnership,
               m.ladder_pool, m.timeout_ms, m.time_bank_ms, m.fault_limit
        FROM matches m
        LEFT JOIN tournaments t ON t.id = m.tournament_id
        CROSS JOIN LATERAL (
            SELECT CASE m.status
                WHEN 'pending' THEN m.created_at
                WHEN 'running' THEN coalesce(greatest(m.started_at, m.queued_at), m.created_at)
                ELSE coalesce(m.queued_at, m.created_at) END AS since
        ) s
        WHERE m.status IN ('pending', 'queued', 'running')
          AND NOT m.bye
          AND (m.tournament_id IS NULL OR t.status = 'running')
          AND s.since <= now() - make_interval(secs => CASE WHEN m.status = 'pending'
                                                         THEN $1::float8 ELSE $2::float8 END)
        ORDER BY s.since, m.id
        LIMIT $3
        """,
        pending_after_s,
        queued_after_s,
        limit,
    )
    return [_open_match(row) for row in rows]


def _open_match(row: asyncpg.Record) -> OpenMatch:
    fields = dict(row)
    fields["rules"] = Rules.from_dict(fields["rules"])
    return OpenMatch(**fields)


async def lock_open(conn: Connection, match_id: int) -> tuple[str, int] | None:
    """Lock an open match (``FOR UPDATE``): (status, attempts), or None if it is not open."""
    row = await conn.fetchrow(
        "SELECT status, attempts FROM matches WHERE id = $1 "
        "AND status IN ('pending', 'queued', 'running') FOR UPDATE",
        match_id,
    )
    return None if row is None else (str(row["status"]), int(row["attempts"]))


async def give_up(conn: Connection, match_id: int, *, in_tournament: bool, detail: str) -> bool:
    """Give up on a locked open match; False if it has a result already (nothing changes).

    In a tournament the match is decided without a winner and without rating change, so the
    event goes on: a ``match_results`` row with reason ``error`` and status ``forfeit`` (the
    status ``services.flow`` counts as finished; nobody is the forfeiting side). Outside a
    tournament (a challenge) it just becomes ``error``: nothing waits for it.
    """
    if not in_tournament:
        await conn.execute(
            "UPDATE matches SET status = $2, finished_at = now() WHERE id = $1", match_id, GAVE_UP
        )
        return True
    document = given_up_result(detail)
    stored = await conn.fetchval(
        "INSERT INTO match_results (match_id, winner_side, result, task_id) "
        "VALUES ($1, NULL, $2, NULL) "
        "ON CONFLICT ON CONSTRAINT match_results_one_per_match DO NOTHING RETURNING id",
        match_id,
        document,
    )
    if stored is None:
        return False
    await conn.execute(
        "UPDATE matches SET status = 'forfeit', winner_side = NULL, finished_at = now() "
        "WHERE id = $1",
        match_id,
    )
    return True
