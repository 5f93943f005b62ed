"""What a started event is, in the tournament formats' terms: plain data, no I/O.

The workflow (:mod:`services.tournaments.played`) turns its stored rows into a :class:`Played`; a
format (:mod:`services.tournaments.formats`) ranks it (:class:`StandingRow`) and plans what
comes next from it (:class:`Plan` of :class:`Planned` matches).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from services.tournaments.model import Player, Round


@dataclass(frozen=True, slots=True)
class SeededEntrant:
    """A bot in a started event: its seed (1 = best), whether it has left, and its owner (an
    account: individual 2v2 keeps one owner's bots apart)."""

    bot_id: int
    seed: int
    withdrawn: bool = False
    owner: int = 0


@dataclass(frozen=True, slots=True)
class StandingRow:
    """One line of the standings; ``tiebreaks`` holds the values named by the format's
    ``columns`` after the first (``points``)."""

    rank: int
    bot_id: int
    points: float
    tiebreaks: dict[str, float]
    withdrawn: bool


@dataclass(frozen=True, slots=True)
class Played:
    """What a started event has played.

    ``rounds`` are the complete rounds (no match still to play), for the table formats;
    ``bracket_results`` maps each decided bracket match id to its winning seed and
    ``bracket_created`` holds the bracket matches that already have a row. For planning:
    ``current_round`` is the last round created, ``current_round_open`` whether one of its
    matches is still to finish, ``rounds_wanted`` the round count the organiser set (None:
    the format's default).
    """

    entrants: tuple[SeededEntrant, ...]
    rounds: tuple[Round, ...] = ()
    bracket_results: Mapping[str, int] = field(default_factory=dict)
    third_place: bool = False
    bracket_created: frozenset[str] = frozenset()
    current_round: int = 0
    current_round_open: bool = False
    rounds_wanted: int | None = None

    @property
    def active(self) -> int:
        """How many entrants are still in."""
        return sum(not e.withdrawn for e in self.entrants)


@dataclass(frozen=True, slots=True)
class Planned:
    """A match to create: its round, its bots by side (one bot for a bye), its place."""

    round: int
    bots: tuple[int, ...]
    board: int
    bracket: str = "main"
    bracket_match: str | None = None

    @property
    def bye(self) -> bool:
        return len(self.bots) == 1


@dataclass(frozen=True, slots=True)
class Plan:
    """What a format decides after a change: matches to create, the rounds now complete,
    rounds that have no match at all (only withdrawn bots were to meet), and whether the event
    is over (``ended_early`` says why when it ends before its last round)."""

    planned: tuple[Planned, ...] = ()
    done_rounds: frozenset[int] = frozenset()
    empty_rounds: tuple[int, ...] = ()
    finished: bool = False
    ended_early: str | None = None


def seeded_players(entrants: Sequence[SeededEntrant]) -> list[Player]:
    """Pure-module players whose initial ranking is the seed order."""
    return [Player(id=e.bot_id, rating=-float(e.seed)) for e in entrants]


def seed_maps(entrants: Sequence[SeededEntrant]) -> tuple[dict[int, int], dict[int, int]]:
    """(seed -> bot, bot -> seed)."""
    return {e.seed: e.bot_id for e in entrants}, {e.bot_id: e.seed for e in entrants}
