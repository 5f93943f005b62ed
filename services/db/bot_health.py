"""Bots' health: the bots to check, and recording one check (SQL for the health task)."""

from __future__ import annotations

from dataclasses import dataclass

from services.db.accounts import Executor
from services.domain import BotStatus


@dataclass(frozen=True, slots=True)
class CheckTarget:
    id: int
    url: str
    status: BotStatus


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


async def bots_to_check(conn: Executor, limit: int = 10_000) -> list[CheckTarget]:
    """Bots that are not deleted, least recently checked first."""
    rows = await conn.fetch(
        "SELECT id, url, status FROM bots WHERE status <> 'deleted' "
        "ORDER BY last_check_at NULLS FIRST, id LIMIT $1",
        limit,
    )
    return [CheckTarget(row["id"], row["url"], row["status"]) for row in rows]


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
