"""An event's standings as its format ranks them: the one scoring every reader uses (the API,
the pages, the workflow's planning, and ``truco verify`` over an export)."""

from __future__ import annotations

from collections.abc import Sequence

from services.domain import INDIVIDUAL, TEAM
from services.tournaments import individual
from services.tournaments.event import SeededEntrant, StandingRow
from services.tournaments.formats import get_format, table_format
from services.tournaments.played import played
from services.tournaments.records import MatchRecord


def standings(
    format: str,
    entrants: Sequence[SeededEntrant],
    matches: Sequence[MatchRecord],
    *,
    third_place: bool = False,
    partnership: str = TEAM,
) -> list[StandingRow]:
    """Standings of a started event, as its format ranks them: the Swiss / round-robin table
    over the complete rounds, or the bracket placing (:mod:`services.tournaments.formats`);
    per bot in individual 2v2 (:mod:`services.tournaments.individual`). The one source of standings:
    the API and the web page both call it. Empty before the start."""
    if not entrants:
        return []
    if partnership == INDIVIDUAL:
        return individual.standings(table_format(format), entrants, matches)
    return get_format(format).standings(played(entrants, matches, third_place=third_place))


def standing_columns(format: str, partnership: str = TEAM) -> tuple[str, ...]:
    """The standings' columns in ranking order, as :func:`standings` ranks: the format's
    (:attr:`~services.tournaments.formats.TournamentFormat.columns`), or in individual 2v2
    points then the per-bot tiebreaks (:func:`services.tournaments.individual.tiebreak_names`).
    The first column is the standing's ``points``."""
    if partnership == INDIVIDUAL:
        return ("match_points", *individual.tiebreak_names(table_format(format)))
    return tuple(get_format(format).columns)
