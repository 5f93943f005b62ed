"""The home page: a leaderboard per rating pool, the running and the recent tournaments."""

from __future__ import annotations

from typing import Any

import asyncpg
from litestar import Request, Response, get
from litestar.di import NamedDependency

from services.db import page_reads as db
from services.domain import LIVE_TOURNAMENT_STATUSES
from services.domain.ratings import POOLS
from services.web.i18n import gettext as _
from services.web.pages.render import render
from services.web.views.common import format_names
from services.web.views.home import leaderboard_view
from services.web.views.intervals import EXPLAINED


@get("/", name="web:home")
async def home(
    request: Request[Any, Any, Any], pool: NamedDependency[asyncpg.Pool]
) -> Response[str]:
    boards = {mode: leaderboard_view(await db.leaderboard(pool, mode)) for mode in POOLS}
    running = await db.tournaments_by_status(pool, LIVE_TOURNAMENT_STATUSES)
    recent = await db.tournaments_by_status(pool, ("finished",), limit=10)
    return render(
        request,
        "home.html",
        boards=boards,
        running=running,
        recent=recent,
        formats=format_names(),
        explained=_(EXPLAINED),
    )
