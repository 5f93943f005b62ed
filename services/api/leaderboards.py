"""Leaderboards per mode, from the stored ratings."""

from __future__ import annotations

from typing import Annotated

import asyncpg
from litestar import Controller, get
from litestar.di import NamedDependency
from litestar.params import Parameter

from services.api.match_schemas import Leaderboard, LeaderboardEntry
from services.api.problems import problem_responses
from services.db import ratings as db_ratings
from services.domain import RatingPool
from services.ratings import PROVISIONAL_UNTIL


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
            "the ranking, so ranks stay exact)."
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
        rows, more = await db_ratings.leaderboard(pool, mode, limit=limit, offset=offset)
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
            )
            for k, row in enumerate(rows)
        ]
        return Leaderboard(
            mode=mode, entries=entries, next_cursor=offset + len(rows) if more else None
        )
