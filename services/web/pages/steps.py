"""``/matches/{id}/steps``: one game of a finished match's replay, its events as one view may
see them, for the in-page viewer (a 404 for a match not over, whose page shows only the
spectator's view) (``static/live.js`` and ``static/table.js``;
:mod:`services.web.views.table_events`). A page's data, not the API: the replay itself is
``GET /v1/matches/{id}/replay``."""

from __future__ import annotations

from typing import Annotated

import asyncpg
from litestar import Response, get
from litestar.di import NamedDependency
from litestar.exceptions import NotFoundException
from litestar.params import Parameter

from services.db import page_reads as db
from services.domain import FINISHED_STATUSES
from services.web.i18n import gettext as _
from services.web.pages.render import SECURITY_HEADERS, Id
from services.web.pages.replays import decoded
from services.web.views.common import side_links
from services.web.views.table_events import TableSteps, table_events


def stepper_words() -> dict[str, str]:
    """The replay controls' labels in the page's language (as the server renders them)."""
    return {
        "back": _("back"),
        "next": _("next"),
        "hand": _("hand"),
        "first_title": _("first event"),
        "last_title": _("last event"),
        "prev_hand_title": _("previous hand"),
        "next_hand_title": _("next hand"),
        "back_title": _("back (←)"),
        "next_title": _("forward (→)"),
        "announce": _("Step %(n)d of %(m)d: %(caption)s"),
    }


@get("/matches/{match_id:int}/steps", name="web:match-steps")
async def match_steps(
    pool: NamedDependency[asyncpg.Pool],
    match_id: Id,
    game: Annotated[int, Parameter(ge=1, le=1000)] = 1,
    view: Annotated[str, Parameter(max_length=16)] = "all",
) -> Response[TableSteps]:
    data = await db.match(pool, match_id)
    if data is None or data.match.status not in FINISHED_STATUSES:
        # a match not over is shown only as a spectator sees it, by its page
        raise NotFoundException(_("No replay stored for this match."))
    stored = decoded({match_id: data.replay}).get(match_id)
    if stored is None:
        raise NotFoundException(_("No replay stored for this match."))
    sides = (side_links(data.match, 0), side_links(data.match, 1))
    found = table_events(stored, sides, game, view)
    if found is None:
        raise NotFoundException(_("No replay stored for this match."))
    return Response(
        found,
        # worded in the request's language: a cache keeps one copy per language
        headers={
            **SECURITY_HEADERS,
            "Cache-Control": "private, max-age=300",
            "Vary": "Accept-Language, Cookie",
        },
    )
