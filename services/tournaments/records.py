"""A stored match as the pure planner reads it: the fields the event's history, its bracket
results and its individual tables are made from. The database's row
(:class:`services.db.matches.StoredMatch`) has them; so does anything else that stands for a
played match (an export's row in ``truco verify``), without this room importing either."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from services.domain import FINISHED_STATUSES, MatchStatus


class MatchRecord(Protocol):
    """One match: ``bot0``/``bot1`` the first bot of each side (``bot1`` None for a bye),
    ``seats`` every bot in slot order (empty for a 1v1 row; side of slot k: k % 2)."""

    @property
    def round_number(self) -> int | None: ...
    @property
    def bracket_match(self) -> str | None: ...
    @property
    def status(self) -> MatchStatus: ...
    @property
    def bye(self) -> bool: ...
    @property
    def bot0(self) -> int: ...
    @property
    def bot1(self) -> int | None: ...
    @property
    def seats(self) -> tuple[int, ...]: ...
    @property
    def winner_side(self) -> int | None: ...
    @property
    def finished(self) -> bool: ...
    @property
    def bots(self) -> tuple[int, ...]: ...
    @property
    def games_won(self) -> tuple[int, int]: ...
    @property
    def tantos(self) -> tuple[int, int]: ...


@dataclass(frozen=True, slots=True)
class PlainRecord:
    """A :class:`MatchRecord` made from plain values (an exported match, a test's data)."""

    round_number: int | None
    bracket_match: str | None
    status: MatchStatus
    bye: bool
    seats: tuple[int, ...]
    winner_side: int | None
    games_won: tuple[int, int] = (0, 0)
    tantos: tuple[int, int] = (0, 0)

    @property
    def bot0(self) -> int:
        return self.seats[0]

    @property
    def bot1(self) -> int | None:
        return self.seats[1] if len(self.seats) > 1 else None

    @property
    def bots(self) -> tuple[int, ...]:
        return self.seats

    @property
    def finished(self) -> bool:
        return self.status in FINISHED_STATUSES
