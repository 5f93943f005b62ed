"""What the table formats (Swiss, round robin) share: standings by match points then the
format's tiebreaks over the complete rounds, and the round-by-round step."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar, Protocol

from services.tournaments.event import Plan, Planned, Played, StandingRow, seeded_players
from services.tournaments.standings import Tiebreak, compute_standings
from services.tournaments.swiss.pairing import NoValidPairing

TABLE_MIN_ENTRANTS = 2


def table_columns(tiebreaks: Sequence[Tiebreak]) -> tuple[str, ...]:
    """``points`` then the tiebreaks, as standings columns."""
    return (Tiebreak.MATCH_POINTS.value, *(k.value for k in tiebreaks))


def table_standings(played: Played, tiebreaks: Sequence[Tiebreak]) -> list[StandingRow]:
    """Match points, then ``tiebreaks`` in order, then seed."""
    order = (Tiebreak.MATCH_POINTS, *tiebreaks)
    withdrawn = {e.bot_id for e in played.entrants if e.withdrawn}
    rows = compute_standings(seeded_players(played.entrants), played.rounds, order)
    return [
        StandingRow(
            rank=row.place,
            bot_id=int(row.id),
            points=row.values[Tiebreak.MATCH_POINTS],
            tiebreaks={k: v for k, v in row.values.items() if k != Tiebreak.MATCH_POINTS},
            withdrawn=int(row.id) in withdrawn,
        )
        for row in rows
    ]


class TableRanking:
    """What a table format shares: its columns and standings from its ``tiebreaks``; it
    can be played as individual 2v2."""

    __slots__ = ()
    tiebreaks: ClassVar[tuple[Tiebreak, ...]]
    is_bracket: ClassVar[bool] = False
    individual: ClassVar[bool] = True
    offers_trf: ClassVar[bool] = False

    @property
    def columns(self) -> tuple[str, ...]:
        return table_columns(self.tiebreaks)

    def standings(self, played: Played) -> list[StandingRow]:
        return table_standings(played, self.tiebreaks)


def plan_table(
    played: Played,
    total: int,
    pair: Callable[[int], list[Planned]],
    *,
    min_entrants: int = TABLE_MIN_ENTRANTS,
) -> Plan:
    """The next round once the current one is complete: nothing while a match of it is still
    to finish; the end after ``total`` rounds or with fewer than ``min_entrants`` bots still
    in; else ``pair(number)``. A round ``pair`` leaves empty (only withdrawn bots were to
    meet) is skipped; a :class:`NoValidPairing` ends the event early."""
    if played.current_round_open:
        return Plan()
    current = played.current_round
    done = {current} if current > 0 else set()
    empty: list[int] = []
    while True:
        if current >= total or played.active < min_entrants:
            return Plan(done_rounds=frozenset(done), empty_rounds=tuple(empty), finished=True)
        number = current + 1
        try:
            planned = pair(number)
        except NoValidPairing as exc:
            return Plan(
                done_rounds=frozenset(done),
                empty_rounds=tuple(empty),
                finished=True,
                ended_early=f"ends after round {current}: {exc}",
            )
        if planned:
            return Plan(tuple(planned), frozenset(done), tuple(empty))
        empty.append(number)
        done.add(number)
        current = number


class TableFormat(Protocol):
    """A format played in rounds of a table (Swiss, round robin), as individual 2v2 needs it."""

    @property
    def name(self) -> str: ...

    @property
    def fixed_schedule(self) -> bool:
        """Whether every round is known from the start (round robin), else paired by score."""
        ...

    def total_rounds(self, wanted: int | None, entrants: int) -> int:
        """How many rounds an event of ``entrants`` plays (``wanted``: the organiser's)."""
        ...
