"""``/play``, ``/play/{id}`` and ``/play/{id}/replay``: a person plays a bot in the browser, and
watches the game again (docs/play.md).

``/play`` chooses the opponent (the house bots) and the rules; the form is sent by
``static/play.js`` to ``POST /v1/play``, which keeps the session's token in the tab's
``sessionStorage`` and opens ``/play/{id}``: the table (``static/table.js``, the one table of
the replays and live matches), drawn from the session's stream (``GET /v1/play/{id}/stream``).
The server renders the page's frame and its words (the narration, the card names, the calls)
in the page's language. ``/play/{id}/replay`` is the replay viewer of a finished match, from
the stored replay (the document itself stays at ``GET /v1/play/{id}/replay``).
"""

from __future__ import annotations

from typing import Annotated, Any

import asyncpg
from litestar import Request, Response, get
from litestar.di import NamedDependency
from litestar.exceptions import NotFoundException
from litestar.params import Parameter

from services.api.deps import services_of
from services.api.routes.play import HOUSE_ACCOUNT
from services.db import play_matches as db_play
from services.web.i18n import gettext as _
from services.web.pages.render import SECURITY_HEADERS, Id, render
from services.web.pages.replays import decoded
from services.web.pages.steps import stepper_words
from services.web.views.play import play_words
from services.web.views.play_replay import person_view, play_sides, played_result
from services.web.views.replay import replay_view
from services.web.views.table_events import TableSteps, table_events
from services.web.views.table_words import table_words


@get("/play", name="web:play")
async def play_page(
    request: Request[Any, Any, Any], pool: NamedDependency[asyncpg.Pool]
) -> Response[str]:
    local = services_of(request.app.state).settings.allow_loopback_bots
    house = await db_play.house_bots(pool, house_account=HOUSE_ACCOUNT if local else None)
    return render(request, "play.html", house=house)


@get("/play/{play_id:int}", name="web:play-board")
async def play_board(request: Request[Any, Any, Any], play_id: Id) -> Response[str]:
    return render(
        request, "play_board.html", play_id=play_id, words=table_words(), play=play_words()
    )


async def _stored(pool: asyncpg.Pool, play_id: int) -> Any:
    document = await db_play.play_replay(pool, play_id)
    stored = decoded({play_id: document}).get(play_id)
    if stored is None:
        raise NotFoundException(_("This game has no replay yet (unknown, or still being played)."))
    return stored


@get("/play/{play_id:int}/replay", name="web:play-replay")
async def play_replay_page(
    request: Request[Any, Any, Any],
    pool: NamedDependency[asyncpg.Pool],
    play_id: Id,
    game: Annotated[int, Parameter(ge=1, le=1000)] = 1,
    step: Annotated[int, Parameter(ge=0, le=1_000_000)] = 0,
    view: Annotated[str | None, Parameter(max_length=16)] = None,
    whole: Annotated[int, Parameter(ge=0, le=1)] = 0,
) -> Response[str]:
    stored = await _stored(pool, play_id)
    chosen = view if view is not None else person_view(stored, game)
    viewer = replay_view(stored, play_sides(stored), game, step, chosen, False, whole=bool(whole))
    return render(
        request,
        "play_replay.html",
        play_id=play_id,
        r=viewer,
        live=False,
        autoplay=view is None and step == 0,
        told=played_result(stored),
        words={**table_words(), **stepper_words()},
    )


@get("/play/{play_id:int}/replay/steps", name="web:play-replay-steps")
async def play_replay_steps(
    pool: NamedDependency[asyncpg.Pool],
    play_id: Id,
    game: Annotated[int, Parameter(ge=1, le=1000)] = 1,
    view: Annotated[str, Parameter(max_length=16)] = "all",
) -> Response[TableSteps]:
    stored = await _stored(pool, play_id)
    found = table_events(stored, play_sides(stored), game, view)
    if found is None:
        raise NotFoundException(_("This game has no replay yet (unknown, or still being played)."))
    return Response(
        found,
        headers={
            **SECURITY_HEADERS,
            "Cache-Control": "private, max-age=300",
            "Vary": "Accept-Language, Cookie",
        },
    )
