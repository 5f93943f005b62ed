"""The ladders' wire shapes (``/v1/ladders``)."""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated, Literal

import msgspec

from services.ladder.model import LadderPool, PickReason

PlacementState = Literal["waiting", "placing", "placed", "needs_opponents"]


class LadderJoin(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    bot_id: Annotated[int, msgspec.Meta(ge=1, le=2**63 - 1, description="your bot's id")]
    hourly_cap: (
        Annotated[
            int,
            msgspec.Meta(
                ge=1,
                le=3600,
                description="ladder matches it may start in an hour (at most the "
                "platform's TRUCO_LADDER_HOURLY_CAP)",
            ),
        ]
        | None
    ) = None


class LadderUpdate(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    hourly_cap: Annotated[int, msgspec.Meta(ge=1, le=3600)] | None = None
    resume: bool = False


class Placement(msgspec.Struct, kw_only=True):
    """``waiting``: no rated ladder match yet; ``placing``: its 95% interval is still +-100
    Elo or wider, with ``matches`` played of ``about`` a placement takes (``at_least`` before
    its first fit); ``placed``;
    ``needs_opponents``: not placed, and the pool cannot give it a match now (it met every bot
    it may meet as often as a ladder day allows, or too few owners are on the ladder to seat a
    match): ``opponents`` bots of other owners it may meet, ``needed`` how many a placement
    needs within a day (docs/ladder.md, "Small pools")."""

    state: PlacementState
    matches: Annotated[int, msgspec.Meta(description="its rated ladder matches")]
    about: int | None = None
    opponents: Annotated[
        int | None, msgspec.Meta(description="bots of other owners it may meet on this ladder")
    ] = None
    needed: Annotated[
        int | None,
        msgspec.Meta(description="bots of other owners a placement within a day needs"),
    ] = None
    at_least: Annotated[
        int | None,
        msgspec.Meta(
            description="before the bot's first fit, instead of `about`: the matches a "
            "placement takes at least (at even odds against well-known opponents)"
        ),
    ] = None


class LadderEntryRead(msgspec.Struct, kw_only=True):
    rank: int | None
    bot_id: int
    name: str
    owner: str
    rating: float | None
    interval: tuple[float, float] | None
    los_next: float | None
    adjusted_rating: Annotated[
        float | None,
        msgspec.Meta(
            description=(
                "the estimate on luck-adjusted outcomes (docs/luck.md) that the ladder places "
                "and matches the bot by; `rating` and `interval` stay on actual results"
            )
        ),
    ] = None
    adjusted_interval: Annotated[
        tuple[float, float] | None,
        msgspec.Meta(description="its 95% interval (placed once narrower than +-100)"),
    ] = None
    elo: float | None
    matches: int
    placement: Placement
    playing: bool
    paused: bool
    pause_cause: str | None = None  # only for its owner
    hourly_cap: int | None = None  # only for its owner
    joined_at: datetime


class LadderRead(msgspec.Struct, kw_only=True):
    pool: LadderPool
    entries: list[LadderEntryRead]
    in_flight: int
    today: date
    commitment: str | None  # today's, once its first match is made


class LadderDayMatch(msgspec.Struct, kw_only=True):
    id: int
    number: int
    status: str
    seats: list[int]
    seed: int | None  # once the match is over
    reason: PickReason | None
    detail: str | None


class LadderDayRead(msgspec.Struct, kw_only=True):
    pool: LadderPool
    day: date
    commitment: str
    master_seed: str | None  # hex, once the day is over and its matches have stopped
    revealed_at: datetime | None
    matches: list[LadderDayMatch]
    """A page of the day's matches by number: those numbered past ``after``, at most ``limit``."""
    total: int = 0
    """How many matches the day has."""
    next_after: int | None = None
    """The ``after`` of the next page; null on the last one."""
