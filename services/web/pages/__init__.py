"""The pages, one module per page: handlers fetch rows (``services.db.page_reads``), build view
models (``services.web.views``) and render templates (:mod:`.render`). :func:`web_router`
mounts them all."""

from __future__ import annotations

from typing import Any

from litestar import Request, Router
from litestar.datastructures import ResponseHeader
from litestar.exceptions import HTTPException, ValidationException

from services.web.pages.bot import bot_page
from services.web.pages.budget import page_budget
from services.web.pages.error import html_error
from services.web.pages.home import home
from services.web.pages.ladder import ladder_page
from services.web.pages.lists import bots_index, leaderboards_index, tournaments_index
from services.web.pages.match import match_live, match_page
from services.web.pages.play import play_board, play_page, play_replay_page, play_replay_steps
from services.web.pages.render import CSP, SECURITY_HEADERS, before_page
from services.web.pages.report import report_bot
from services.web.pages.sprt import sprt_live, sprt_page
from services.web.pages.static import static_file
from services.web.pages.steps import match_steps
from services.web.pages.tournament import crosstable_page, tournament_live, tournament_page

__all__ = ["CSP", "SECURITY_HEADERS", "html_error", "web_router"]


async def _before_page(request: Request[Any, Any, Any]) -> None:
    """The page's language (its error page too), then the address's budget of page views."""
    await before_page(request)
    await page_budget(request)


def web_router() -> Router:
    """The pages, their live endpoints and ``/static``; mount it on the API app."""
    return Router(
        path="/",
        route_handlers=[
            home,
            tournaments_index,
            bots_index,
            leaderboards_index,
            tournament_page,
            crosstable_page,
            tournament_live,
            bot_page,
            report_bot,
            ladder_page,
            match_page,
            match_live,
            play_page,
            play_board,
            play_replay_page,
            play_replay_steps,
            match_steps,
            sprt_page,
            sprt_live,
            static_file,
        ],
        response_headers=[ResponseHeader(name=k, value=v) for k, v in SECURITY_HEADERS.items()],
        exception_handlers={
            ValidationException: html_error,
            HTTPException: html_error,
            Exception: html_error,
        },
        before_request=_before_page,
        include_in_schema=False,
    )
