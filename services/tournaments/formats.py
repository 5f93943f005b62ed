"""Tournament formats: one object per format, found by its name in :data:`FORMATS`.

A format owns how its event is played and ranked: :meth:`TournamentFormat.plan_next` says which matches
to create next, which rounds are complete and when the event is over; :meth:`TournamentFormat.standings`
ranks it. The workflow (:mod:`services.flow`) calls them for every format alike, and the API
and the web page both take their standings from :meth:`TournamentFormat.standings` (through
:func:`services.flow.standings`), so one event is never ranked two ways.

Everything here is pure: the workflow turns its stored matches into a
:class:`~services.tournaments.event.Played` first. A format lives in a module of its own
(``swiss_format.py``, ``round_robin_format.py``, ``bracket_format.py``) and is listed in
:data:`FORMATS`; docs/architecture.md says what else a new one touches.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol, cast

from services.tournaments.brackets.format import (
    DOUBLE_ELIMINATION,
    SINGLE_ELIMINATION,
    BracketFormat,
)
from services.tournaments.event import Plan, Played, StandingRow
from services.tournaments.round_robin.format import RoundRobinFormat
from services.tournaments.swiss.format import SwissFormat
from services.tournaments.table_format import TableFormat

__all__ = [
    "FORMATS",
    "StandingRow",  # defined in services.tournaments.event; the pages import it from here
    "TournamentFormat",
    "UnknownFormat",
    "bracket_format",
    "get_format",
    "table_format",
]


class UnknownFormat(ValueError):
    """No format of that name is registered."""


class TournamentFormat(Protocol):
    """What every tournament format provides."""

    @property
    def name(self) -> str:
        """The stored and API name (``"swiss"``)."""
        ...

    @property
    def title(self) -> str:
        """The name people read (``"Swiss"``)."""
        ...

    @property
    def is_bracket(self) -> bool:
        """Whether the event is drawn as a bracket (else as rounds of a table)."""
        ...

    @property
    def individual(self) -> bool:
        """Whether it can be played as individual 2v2 (partners change every round)."""
        ...

    @property
    def offers_trf(self) -> bool:
        """Whether a started event of one bot a side offers its FIDE TRF file
        (:mod:`services.tournaments.files.trf`)."""
        ...

    @property
    def columns(self) -> tuple[str, ...]:
        """The standings' columns in ranking order: the first is ``points``, the others are
        keys of :attr:`StandingRow.tiebreaks`."""
        ...

    def settle_rounds(self, wanted: int | None, entrants: int) -> int | None:
        """The round count to store at the start, from the organiser's (None: not given)."""
        ...

    def plan_next(self, played: Played) -> Plan:
        """What to do after ``played`` changed: the matches to create, the rounds now
        complete, or the end of the event."""
        ...

    def standings(self, played: Played) -> list[StandingRow]:
        """The standings of ``played``, best first."""
        ...


FORMATS: Mapping[str, TournamentFormat] = {
    f.name: f for f in (SwissFormat(), SINGLE_ELIMINATION, DOUBLE_ELIMINATION, RoundRobinFormat())
}


def get_format(name: str) -> TournamentFormat:
    """The registered format called ``name``; :class:`UnknownFormat` otherwise."""
    try:
        return FORMATS[name]
    except KeyError:
        raise UnknownFormat(f"unknown tournament format {name!r}") from None


def bracket_format(name: str) -> BracketFormat:
    """The registered bracket format called ``name``; :class:`UnknownFormat` otherwise."""
    found = get_format(name)
    if not isinstance(found, BracketFormat):
        raise UnknownFormat(f"{name!r} is not a bracket format")
    return found


def table_format(name: str) -> TableFormat:
    """The registered table format called ``name``; :class:`UnknownFormat` otherwise."""
    found = get_format(name)
    if found.is_bracket:
        raise UnknownFormat(f"{name!r} is not a table format")
    return cast(TableFormat, found)
