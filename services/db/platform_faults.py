"""A match the platform itself could not play (a worker refused it: its entrants cannot sit
at its rules) is decided as the platform's fault: a ``match_results`` row with reason
``error`` and the cause in its words, no winner, no rating change. In a tournament the match
becomes ``forfeit`` with nobody forfeiting (the status the event counts as finished, as the
recovery sweeper's give-up does), so the event goes on; elsewhere it becomes ``error``."""

from __future__ import annotations

from services.db.accounts import Connection
from services.domain import GAVE_UP
from services.domain.result import given_up_result


async def decide_as_fault(
    conn: Connection, match_id: int, *, in_tournament: bool, detail: str
) -> bool:
    """Decide a locked open match as the platform's fault; False if it has a result already
    (nothing changes)."""
    stored = await conn.fetchval(
        "INSERT INTO match_results (match_id, winner_side, result, task_id) "
        "VALUES ($1, NULL, $2, NULL) "
        "ON CONFLICT ON CONSTRAINT match_results_one_per_match DO NOTHING RETURNING id",
        match_id,
        given_up_result(detail),
    )
    if stored is None:
        return False
    await conn.execute(
        "UPDATE matches SET status = $2, winner_side = NULL, finished_at = now() WHERE id = $1",
        match_id,
        "forfeit" if in_tournament else GAVE_UP,
    )
    return True
