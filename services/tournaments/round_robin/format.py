"""The round-robin format: the circle method (:mod:`services.tournaments.round_robin.circle`) over the
bots in seed order; round ``k`` is the ``k``-th list of fixtures. The bot that rests in a round
with an odd field scores nothing (everyone rests once). A fixture between two withdrawn bots is
not created; a round left with none is skipped."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from services.tournaments.event import Plan, Planned, Played, SeededEntrant
from services.tournaments.round_robin.circle import Fixture, round_robin
from services.tournaments.standings import Tiebreak
from services.tournaments.table_format import TableRanking, plan_table


def round_robin_rounds(entrants: Sequence[SeededEntrant]) -> list[list[Fixture[int]]]:
    """Every round's fixtures, bots in seed order."""
    return round_robin([e.bot_id for e in sorted(entrants, key=lambda e: e.seed)])


def plan_round_robin(entrants: Sequence[SeededEntrant], number: int) -> list[Planned]:
    """Round ``number``'s fixtures, except those between two withdrawn bots."""
    gone = {e.bot_id for e in entrants if e.withdrawn}
    fixtures = round_robin_rounds(entrants)[number - 1]
    return [
        Planned(number, (f.mano, f.other), board)
        for board, f in enumerate(fixtures)
        if not {f.mano, f.other} <= gone
    ]


@dataclass(frozen=True, slots=True)
class RoundRobinFormat(TableRanking):
    """Round robin: match points, then direct encounter, Sonneborn-Berger, game points,
    tantos difference, then seed."""

    name: ClassVar[str] = "round_robin"
    title: ClassVar[str] = "Round robin"
    fixed_schedule: ClassVar[bool] = True
    tiebreaks: ClassVar[tuple[Tiebreak, ...]] = (
        Tiebreak.DIRECT_ENCOUNTER,
        Tiebreak.SONNEBORN_BERGER,
        Tiebreak.GAME_POINTS,
        Tiebreak.TANTOS_DIFFERENCE,
    )

    def settle_rounds(self, wanted: int | None, entrants: int) -> int | None:
        """The field fixes the round count; the organiser's is kept as given (ignored)."""
        return wanted

    def total_rounds(self, wanted: int | None, entrants: int) -> int:
        return len(round_robin(list(range(entrants))))

    def plan_next(self, played: Played) -> Plan:
        total = self.total_rounds(played.rounds_wanted, len(played.entrants))
        return plan_table(played, total, lambda n: plan_round_robin(played.entrants, n))
