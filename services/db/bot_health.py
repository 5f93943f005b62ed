"""Bots' health: the bots to check, and recording one check (SQL for the health task)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from services.db.accounts import Executor
from services.domain.probe_plan import ProbeCandidate


@dataclass(frozen=True, slots=True)
class CheckRecorded:
    bot_id: int
    before: str
    after: str
    consecutive_failures: int

    @property
    def became_unavailable(self) -> bool:
        return self.before == "active" and self.after == "unavailable"

    @property
    def came_back(self) -> bool:
        return self.before == "unavailable" and self.after == "active"


async def bots_to_check(
    conn: Executor,
    now: datetime,
    *,
    checked_before: datetime,
    idle_checked_before: datetime | None = None,
    idle_after: timedelta = timedelta(days=1),
    limit: int = 10_000,
) -> list[ProbeCandidate]:
    """Bots that are not deleted and not checked since ``checked_before`` (never checked
    first), each with whether it is busy: entered in a registering or running tournament (not
    withdrawn), on a ladder (not paused), in a running SPRT test, or in a match created within
    ``idle_after`` before ``now``. An idle bot checked since ``idle_checked_before`` is left out
    (None: not). :func:`services.domain.probe_plan.plan_probes` chooses among the rest."""
    rows = await conn.fetch(
        """
        WITH c AS MATERIALIZED (  -- busy is computed once a bot (not again in the WHERE)
            SELECT b.id, b.owner_id, b.url, b.last_check_at,
                EXISTS (SELECT 1 FROM tournament_entries AS e
                        JOIN tournaments AS t ON t.id = e.tournament_id
                        WHERE e.bot_id = b.id AND e.withdrawn_at IS NULL
                          AND t.status IN ('registering', 'running'))
                OR EXISTS (SELECT 1 FROM ladder_entries AS l
                           WHERE l.bot_id = b.id AND l.paused_at IS NULL)
                OR EXISTS (SELECT 1 FROM sprt_tests AS s
                           WHERE s.status = 'running' AND b.id IN (s.bot_a, s.bot_b))
                OR coalesce((SELECT m.created_at FROM match_entrants AS me
                             JOIN matches AS m ON m.id = me.match_id
                             WHERE me.bot_id = b.id ORDER BY me.match_id DESC LIMIT 1)
                            > $1::timestamptz - $2::interval, false) AS busy
            FROM bots AS b
            WHERE b.status <> 'deleted' AND (b.last_check_at IS NULL OR b.last_check_at < $3)
        )
        SELECT id, owner_id, url, last_check_at, busy FROM c
        WHERE busy OR $5::timestamptz IS NULL OR last_check_at IS NULL OR last_check_at < $5
        ORDER BY last_check_at NULLS FIRST, id
        LIMIT $4
        """,
        now,
        idle_after,
        checked_before,
        limit,
        idle_checked_before,
    )
    return [
        ProbeCandidate(row["id"], row["owner_id"], row["url"], row["last_check_at"], row["busy"])
        for row in rows
    ]


async def record_check(
    conn: Executor, bot_id: int, *, ok: bool, error: str | None, failures_to_unavailable: int
) -> CheckRecorded | None:
    """Record one check of a live bot. ``failures_to_unavailable`` failures in a row make an
    active bot 'unavailable'; one success makes an unavailable bot 'active' again.
    None if the bot is deleted or unknown."""
    row = await conn.fetchrow(
        """
        UPDATE bots AS b SET
            last_check_at = now(),
            last_ok_at = CASE WHEN $2 THEN now() ELSE b.last_ok_at END,
            consecutive_failures = CASE WHEN $2 THEN 0 ELSE b.consecutive_failures + 1 END,
            last_error = CASE WHEN $2 THEN NULL ELSE left($3, 500) END,
            status = CASE
                WHEN $2 THEN 'active'
                WHEN b.consecutive_failures + 1 >= $4 THEN 'unavailable'
                ELSE b.status END,
            updated_at = CASE
                WHEN b.status <> (CASE WHEN $2 THEN 'active'
                                       WHEN b.consecutive_failures + 1 >= $4 THEN 'unavailable'
                                       ELSE b.status END) THEN now()
                ELSE b.updated_at END
        FROM (SELECT id, status FROM bots WHERE id = $1 AND status <> 'deleted' FOR UPDATE) AS old
        WHERE b.id = old.id
        RETURNING old.status AS before, b.status AS after, b.consecutive_failures
        """,
        bot_id,
        ok,
        error,
        failures_to_unavailable,
    )
    if row is None:
        return None
    return CheckRecorded(bot_id, row["before"], row["after"], row["consecutive_failures"])
