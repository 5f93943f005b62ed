"""Leaderboards per mode, from the stored ratings."""

from __future__ import annotations

from typing import Annotated

import asyncpg
from litestar import Controller, get
from litestar.di import NamedDependency
from litestar.params import Parameter

from services.api.problems import problem_responses
from services.api.schemas.matches import Leaderboard, LeaderboardEntry
from services.db import ratings as db_ratings
from services.domain import RatingPool
from services.domain.ratings import PROVISIONAL_UNTIL


class LeaderboardController(Controller):
    path = "/v1/leaderboards"
    tags = ("leaderboards",)

    @get(
        "/{mode:str}",
        operation_id="getLeaderboard",
        summary="The leaderboard of a mode, highest rating first",
        description=(
            "Bots with at least one rated match in the mode (deleted bots left out); ties keep "
            "bot id order. `cursor` is the next_cursor of the previous page (an offset into "
            "the ranking, so ranks stay exact). Each entry carries the 95% `interval` of its "
            "strength and `los_next`, its likelihood of superiority over the entry below, from "
            "the last maximum-likelihood fit of the pool (refitted off the request path within "
            "a minute of a result; `fitted_at` says when; docs/ratings.md)."
        ),
        responses=problem_responses(400),
    )
    async def get_leaderboard(
        self,
        pool: NamedDependency[asyncpg.Pool],
        mode: Annotated[
            RatingPool,
            Parameter(
                description="1v1, 2v2 (team 2v2: one bot a side) or 2v2-individual (a bot a seat)"
            ),
        ],
        limit: Annotated[int, Parameter(ge=1, le=100, description="page size")] = 20,
        cursor: Annotated[
            int | None,
            Parameter(ge=1, le=10**9, description="the next_cursor of the previous page"),
        ] = None,
    ) -> Leaderboard:
        offset = cursor or 0
        rows, after = await db_ratings.leaderboard(pool, mode, limit=limit, offset=offset)
        below = [*rows[1:], after][: len(rows)]  # the entry below each one
        entries = [
            LeaderboardEntry(
                rank=offset + k + 1,
                bot_id=row.bot_id,
                name=row.name,
                rating=row.rating,
                matches=row.matches,
                wins=row.wins,
                losses=row.losses,
                draws=row.draws,
                provisional=row.matches < PROVISIONAL_UNTIL,
                interval=interval(row),
                los_next=los_next(row, next_row),
            )
            for k, (row, next_row) in enumerate(zip(rows, below, strict=True))
        ]
        return Leaderboard(
            mode=mode,
            entries=entries,
            next_cursor=offset + len(rows) if after is not None else None,
            fitted_at=max((row.fitted_at for row in rows if row.fitted_at), default=None),
        )


def interval(row: db_ratings.LeaderboardRow) -> tuple[float, float] | None:
    if row.low is None or row.high is None:
        return None
    return (round(row.low, 1), round(row.high, 1))


def los_next(
    row: db_ratings.LeaderboardRow, below: db_ratings.LeaderboardRow | None
) -> float | None:
    """The stored LOS, while the bot it was computed against is still the entry below."""
    if row.los_next is None or below is None or row.next_bot_id != below.bot_id:
        return None
    return round(row.los_next, 4)
