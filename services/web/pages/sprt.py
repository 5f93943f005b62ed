"""An SPRT test's page: the LLR's path between its bounds, the figures, and its live version."""

from __future__ import annotations

from typing import Any

import asyncpg
from litestar import Request, Response, get
from litestar.di import NamedDependency
from litestar.exceptions import NotFoundException

from services.api.routes.sprt_tests import sprt_read
from services.db import matches as db_matches
from services.db import sprt_tests as db_sprt
from services.web.i18n import gettext as _
from services.web.pages.live_poll import LivePoll, live_poll
from services.web.pages.render import Id, render
from services.web.views.sprt import sprt_view


def _sprt_version(test: db_sprt.StoredSprt) -> str:
    """Changes with every stored pair and when the test ends (the page polls it)."""
    return f"{test.status}.{len(test.scores)}"


@get("/tests/{test_id:int}", name="web:sprt")
async def sprt_page(
    request: Request[Any, Any, Any], pool: NamedDependency[asyncpg.Pool], test_id: Id
) -> Response[str]:
    test = await db_sprt.get_test(pool, test_id)
    if test is None:
        raise NotFoundException(_("There is no test %(id)d.") % {"id": test_id})
    names = await db_matches.entrant_names(pool, [test.bot_a, test.bot_b])
    view = sprt_view(sprt_read(test), names.get(test.bot_a, "?"), names.get(test.bot_b, "?"))
    live = test.status == "running"
    return render(
        request,
        "sprt.html",
        s=view,
        version=_sprt_version(test) if live else None,
        poll=f"/tests/{test_id}/live" if live else None,
    )


@get("/tests/{test_id:int}/live", name="web:sprt-live")
async def sprt_live(pool: NamedDependency[asyncpg.Pool], test_id: Id) -> Response[LivePoll]:
    test = await db_sprt.get_test(pool, test_id)
    if test is None:
        raise NotFoundException(f"no test {test_id}")
    return live_poll(_sprt_version(test), test.status == "running")
