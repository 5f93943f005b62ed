"""The data of the live streams' frames (docs/live.md): what a match's or a tournament's
Server-Sent Events carry besides the live items themselves."""

from __future__ import annotations

import msgspec

from services.domain import MatchStatus, TournamentStatus


class MatchEnd(msgspec.Struct, frozen=True):
    """A match's ``end`` frame: its final status, the winning side (null: a draw) and games."""

    match_id: int
    status: MatchStatus
    winner_side: int | None
    games_won: list[int]


class MatchGone(msgspec.Struct, frozen=True):
    """The ``end`` frame of a match that no longer exists."""

    match_id: int
    status: str = "gone"


class MatchChange(msgspec.Struct, frozen=True):
    """A tournament stream's ``match`` frame: one of its matches changed."""

    id: int
    round: int | None
    board: int
    status: MatchStatus
    winner_side: int | None
    games_won: list[int]


class TournamentHead(msgspec.Struct, frozen=True):
    """A tournament stream's ``tournament`` frame (and its ``end`` frame once it is over)."""

    tournament_id: int
    status: TournamentStatus
    current_round: int


class TournamentGone(msgspec.Struct, frozen=True):
    """The ``end`` frame of a tournament that no longer exists."""

    tournament_id: int
    status: str = "gone"


class Unavailable(msgspec.Struct, frozen=True):
    """The ``end`` frame of a stream whose poller failed (the client reconnects)."""

    status: str = "unavailable"
