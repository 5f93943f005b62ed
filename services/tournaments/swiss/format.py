"""The Swiss format: pairs by score each round (:mod:`services.tournaments.swiss.pairing`) over the
whole history, but only bots still in the event are paired (withdrawn bots keep their results
for the standings and their opponents' tiebreaks). Side 0 of a match is its mano (plays first
in the first game). The bye is a one-entrant match won by side 0."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import ClassVar

from services.tournaments.event import Plan, Planned, Played, SeededEntrant, seeded_players
from services.tournaments.model import Round
from services.tournaments.standings import Tiebreak
from services.tournaments.swiss.field import make_field
from services.tournaments.swiss.pairing import (
    NoValidPairing,
    final_after,
    match_field,
    pairing_from,
)
from services.tournaments.swiss.state import build_states
from services.tournaments.table_format import TableRanking, plan_table


def default_swiss_rounds(entrants: int) -> int:
    """``ceil(log2(n)) + 1`` rounds, capped so small fields can always be paired without a
    rematch: n - 1 with an even field (4 bots: 3 rounds), n - 2 with an odd one of 5 or more
    (5 bots: 3 rounds; 4 rounds of 5 can leave no rematch-free pairing), 3 with 3 bots. At
    least 1. A round that cannot be paired without a rematch ends the event early anyway."""
    if entrants < 2:
        return 1
    wanted = math.ceil(math.log2(entrants)) + 1
    most = entrants - 1 if entrants % 2 == 0 else entrants if entrants == 3 else entrants - 2
    return max(1, min(wanted, most))


def pair_swiss(
    entrants: tuple[SeededEntrant, ...], history: tuple[Round, ...], number: int, total: int
) -> list[Planned]:
    """Round ``number`` of a Swiss of ``total`` rounds after ``history`` (its rounds before
    ``number``): pairs of the bots still in, plus the bye if odd.

    Raises :class:`NoValidPairing` when no rematch-free pairing exists (the event then ends).
    """
    active = {e.bot_id for e in entrants if not e.withdrawn}
    if len(active) < 2:
        raise NoValidPairing("fewer than two bots are left")
    states = [
        dataclasses.replace(state, opponents=state.opponents & active)
        for state in build_states(seeded_players(entrants), list(history))
        if state.id in active
    ]
    field = make_field(states, final_after=final_after(len(history), total))
    if field.size % 2 and not field.bye_value:
        raise NoValidPairing("the field is odd and every bot still in has had the bye")
    pairing = pairing_from(field, match_field(field))
    planned = [
        Planned(number, (int(pair.mano), int(pair.b if pair.mano == pair.a else pair.a)), board)
        for board, pair in enumerate(pairing.pairs)
    ]
    if pairing.bye is not None:
        planned.append(Planned(number, (int(pairing.bye),), len(planned)))
    return planned


@dataclass(frozen=True, slots=True)
class SwissFormat(TableRanking):
    """Swiss: match points, then every tiebreak in the default order, then seed."""

    name: ClassVar[str] = "swiss"
    title: ClassVar[str] = "Swiss"
    fixed_schedule: ClassVar[bool] = False
    offers_trf: ClassVar[bool] = True
    tiebreaks: ClassVar[tuple[Tiebreak, ...]] = tuple(Tiebreak)[1:]

    def settle_rounds(self, wanted: int | None, entrants: int) -> int | None:
        """The round count is fixed at the start: the organiser's, else the default."""
        return wanted or default_swiss_rounds(entrants)

    def total_rounds(self, wanted: int | None, entrants: int) -> int:
        return wanted or default_swiss_rounds(entrants)

    def plan_next(self, played: Played) -> Plan:
        total = self.total_rounds(played.rounds_wanted, len(played.entrants))
        return plan_table(
            played, total, lambda number: pair_swiss(played.entrants, played.rounds, number, total)
        )
