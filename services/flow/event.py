"""A tournament as stored, read for planning and ranking: its seeded entrants and matches,
and its standings as its format ranks them (the one source of standings: the API and the web
page both call :func:`~services.tournaments.ranked.standings`)."""

from __future__ import annotations

from collections.abc import Sequence

import asyncpg

from services.db import matches as db_matches
from services.db import tournaments as db_tournaments
from services.db.accounts import Connection
from services.db.matches import StoredMatch
from services.tournaments.event import SeededEntrant
from services.tournaments.ranked import standings


def _entrants(entries: Sequence[db_tournaments.Entry]) -> list[SeededEntrant]:
    return [
        SeededEntrant(e.bot_id, e.seed, e.withdrawn_at is not None, e.owner_id)
        for e in entries
        if e.seed is not None
    ]


async def event_state(
    conn: Connection | asyncpg.Pool, tournament_id: int
) -> tuple[list[SeededEntrant], list[StoredMatch]]:
    """The seeded entrants and every match of a tournament."""
    entries = await db_tournaments.entries(conn, tournament_id)
    return _entrants(entries), await db_matches.tournament_matches(conn, tournament_id)


__all__ = ["event_state", "standings"]
