"""A tournament as stored, read for planning and ranking: its seeded entrants and matches,
and its standings as its format ranks them (the one source of standings: the API and the web
page both call :func:`standings`)."""

from __future__ import annotations

from collections.abc import Sequence

import asyncpg

from services.db import matches as db_matches
from services.db import tournaments as db_tournaments
from services.db.accounts import Connection
from services.db.matches import StoredMatch
from services.domain import INDIVIDUAL, TEAM
from services.flow import individual as fi
from services.flow import pairing as fp
from services.tournaments.event import SeededEntrant, StandingRow
from services.tournaments.formats import get_format, table_format


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


def standings(
    format: str,
    entrants: Sequence[SeededEntrant],
    matches: Sequence[StoredMatch],
    *,
    third_place: bool = False,
    partnership: str = TEAM,
) -> list[StandingRow]:
    """Standings of a started event, as its format ranks them: the Swiss / round-robin table
    over the complete rounds, or the bracket placing (:mod:`services.tournaments.formats`);
    per bot in individual 2v2 (:mod:`services.flow.individual`). The one source of standings:
    the API and the web page both call it. Empty before the start."""
    if not entrants:
        return []
    if partnership == INDIVIDUAL:
        return fi.standings(table_format(format), entrants, matches)
    return get_format(format).standings(fp.played(entrants, matches, third_place=third_place))
