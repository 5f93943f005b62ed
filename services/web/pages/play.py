"""``/play`` and ``/play/{id}``: a person plays a bot in the browser (docs/play.md).

``/play`` chooses the opponent (the house bots) and the rules; the form is sent by
``static/play.js`` to ``POST /v1/play``, which keeps the session's token in the tab's
``sessionStorage`` and opens ``/play/{id}``: the board, drawn by the same script from the
session's stream (``GET /v1/play/{id}/stream``). The server renders the board's frame and the
words (card names as the replay names them, the calls, the sentences) in the page's language.
"""

from __future__ import annotations

from typing import Any

import asyncpg
import msgspec
from litestar import Request, Response, get
from litestar.di import NamedDependency

from services.api.deps import services_of
from services.api.routes.play import HOUSE_ACCOUNT
from services.db import play_matches as db_play
from services.web.pages.render import Id, render
from services.web.views.play import play_words


@get("/play", name="web:play")
async def play_page(
    request: Request[Any, Any, Any], pool: NamedDependency[asyncpg.Pool]
) -> Response[str]:
    local = services_of(request.app.state).settings.allow_loopback_bots
    house = await db_play.house_bots(pool, house_account=HOUSE_ACCOUNT if local else None)
    return render(request, "play.html", house=house, words=msgspec.to_builtins(play_words()))


@get("/play/{play_id:int}", name="web:play-board")
async def play_board(request: Request[Any, Any, Any], play_id: Id) -> Response[str]:
    return render(
        request, "play_board.html", play_id=play_id, words=msgspec.to_builtins(play_words())
    )
