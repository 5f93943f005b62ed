"""A match decided without its play while a worker may still play it is ``stopping``
(``matches.stopping_since``) until its worker has stopped: its seeds are not shown meanwhile
(docs/verify.md; :mod:`services.worker.stops` is the worker's side)."""

from __future__ import annotations

from services.db.accounts import Executor


async def mark_stopping(conn: Executor, match_id: int) -> bool:
    """A sent match (queued, running) being decided without its play: ``stopping`` until its
    worker has stopped. True if it was sent."""
    found = await conn.fetchval(
        "UPDATE matches SET stopping_since = now() "
        "WHERE id = $1 AND status IN ('queued', 'running') RETURNING id",
        match_id,
    )
    return found is not None


async def clear_stopping(conn: Executor, match_id: int) -> bool:
    """No worker plays the match any more (it said so, or its result came); True if it was
    ``stopping``."""
    found = await conn.fetchval(
        "UPDATE matches SET stopping_since = NULL "
        "WHERE id = $1 AND stopping_since IS NOT NULL RETURNING id",
        match_id,
    )
    return found is not None


async def stopping_matches(conn: Executor) -> list[tuple[int, float]]:
    """Every ``stopping`` match: (id, seconds since it was decided), oldest first."""
    rows = await conn.fetch(
        "SELECT id, extract(epoch FROM now() - stopping_since)::float8 AS age_s FROM matches "
        "WHERE stopping_since IS NOT NULL ORDER BY stopping_since, id"
    )
    return [(int(row["id"]), float(row["age_s"])) for row in rows]


async def clear_stopping_older_than(conn: Executor, age_s: float) -> list[int]:
    """``stopping`` matches decided more than ``age_s`` ago are stopped; their ids."""
    rows = await conn.fetch(
        "UPDATE matches SET stopping_since = NULL WHERE stopping_since IS NOT NULL "
        "AND stopping_since < now() - make_interval(secs => $1) RETURNING id",
        age_s,
    )
    return sorted(int(row["id"]) for row in rows)
