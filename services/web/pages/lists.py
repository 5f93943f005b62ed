"""The index pages: ``/tournaments`` (running, upcoming, finished; each paged), ``/bots``
(paged, by name) and ``/leaderboards`` (every rating pool), linked from every page's nav."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import asyncpg
from litestar import Request, Response, get
from litestar.di import NamedDependency
from litestar.params import Parameter, QueryParameter

from services.db import page_lists
from services.db import page_reads as db
from services.domain.ratings import POOLS
from services.web.i18n import gettext as _
from services.web.pages.render import render
from services.web.views.common import format_names
from services.web.views.home import leaderboard_view
from services.web.views.intervals import EXPLAINED

PER_PAGE = 20
LEADERBOARD_ROWS = 100
PageNumber = Annotated[int, Parameter(ge=1, le=100_000)]
Shown = Literal["running", "upcoming", "finished"]
SECTIONS: dict[str, tuple[str, ...]] = {
    "running": ("running",),
    "upcoming": ("registering",),
    "finished": ("finished", "cancelled"),
}
"""Each section of ``/tournaments`` and the statuses it lists."""


@get("/tournaments", name="web:tournaments")
async def tournaments_index(
    request: Request[Any, Any, Any],
    pool: NamedDependency[asyncpg.Pool],
    status: Annotated[Shown | None, QueryParameter()] = None,
    page: PageNumber = 1,
) -> Response[str]:
    shown = [status] if status is not None else list(SECTIONS)
    sections = [
        (name, await page_lists.tournaments_page(pool, SECTIONS[name], page, PER_PAGE))
        for name in shown
    ]
    return render(
        request,
        "tournaments.html",
        sections=sections,
        status=status,
        page=page,
        formats=format_names(),
    )


@get("/bots", name="web:bots")
async def bots_index(
    request: Request[Any, Any, Any], pool: NamedDependency[asyncpg.Pool], page: PageNumber = 1
) -> Response[str]:
    found = await page_lists.bots_page(pool, page, PER_PAGE)
    return render(request, "bots.html", bots=found, page=page, pools=POOLS)


@get("/leaderboards", name="web:leaderboards")
async def leaderboards_index(
    request: Request[Any, Any, Any], pool: NamedDependency[asyncpg.Pool]
) -> Response[str]:
    boards = {
        mode: leaderboard_view(await db.leaderboard(pool, mode, limit=LEADERBOARD_ROWS))
        for mode in POOLS
    }
    return render(request, "leaderboards.html", boards=boards, explained=_(EXPLAINED))
