"""A match's page: its result and why, and the replay viewer (stored, or live)."""

from __future__ import annotations

from typing import Annotated, Any

import asyncpg
import msgspec
from litestar import Request, Response, get
from litestar.di import NamedDependency
from litestar.exceptions import NotFoundException
from litestar.params import Parameter

from services.db import page_reads as db
from services.domain import FINISHED_STATUSES, OPEN_STATUSES
from services.tournaments.outcome import match_outcome
from services.web.i18n import gettext as _
from services.web.pages.cached import cached_page
from services.web.pages.live_poll import LivePoll, live_poll
from services.web.pages.live_replay import live_replay, reader
from services.web.pages.page_cache import Rendered
from services.web.pages.polls import poll_answer
from services.web.pages.render import Id, render_html
from services.web.pages.replays import decoded
from services.web.pages.steps import stepper_words
from services.web.views.causes import match_causes
from services.web.views.common import knockout_note, outcome, side_links
from services.web.views.luck import match_luck_line
from services.web.views.replay import Shown, replay_view
from services.web.views.table_events import context_for
from services.web.views.table_words import table_words

LIVE_MATCH = OPEN_STATUSES
VIEWS = frozenset({"all", "seat0", "seat1", "seat2", "seat3"})
"""The ``view`` values the replay viewer reads (:func:`replay_view`; any other shows ``all``)."""


@get("/matches/{match_id:int}", name="web:match")
async def match_page(
    request: Request[Any, Any, Any],
    pool: NamedDependency[asyncpg.Pool],
    match_id: Id,
    game: Annotated[int | None, Parameter(ge=1, le=1000)] = None,
    step: Annotated[int | None, Parameter(ge=0, le=1_000_000)] = None,
    view: Annotated[str, Parameter(max_length=16)] = "all",
    whole: Annotated[int, Parameter(ge=0, le=1)] = 0,
) -> Response[bytes]:
    version = await _match_version(request, pool, match_id)
    view = view if view in VIEWS else "all"  # as the viewer reads it: one page for any other

    async def produce() -> Rendered:
        data = await db.match(pool, match_id)
        if data is None:
            raise NotFoundException(_("There is no match %(id)d.") % {"id": match_id})
        m = data.match
        stored = decoded({match_id: data.replay}).get(match_id)
        live = m.status not in FINISHED_STATUSES
        sides = (side_links(m, 0), side_links(m, 1))
        viewer = None
        shown: Shown | None = stored
        stream, seen = None, 0
        if shown is None and m.status in LIVE_MATCH:
            # the spectator feed of the match being played; the page follows its stream from
            # there (``seen``: the items it was built from, skipped when the stream repeats them)
            shown, seen = await live_replay(request, m)
            stream = f"/v1/matches/{match_id}/stream"
        if shown is not None:
            # a finished match opens at its first game's first event, a live one at its latest
            start = step if step is not None else (None if live else 0)
            shown_game = game if game is not None else (len(shown.games) if live else 1)
            luck = m.result.luck if m.result is not None else None
            viewer = replay_view(
                shown, sides, shown_game, start, view, live, whole=bool(whole), luck=luck
            )
        out = outcome(m, stored)
        html = render_html(
            request,
            "match.html",
            m=m,
            sides=sides,
            tournament_name=data.tournament_name,
            live=live,
            outcome=out,
            told=match_outcome(
                status=m.status,
                bye=False,
                seats=m.entrants,
                winner_side=m.winner_side,
                result=m.result,
                bracket_match=m.bracket_match,
            ),
            knockout=knockout_note(m, out),
            luck=match_luck_line(
                m.result.luck if m.result is not None else None,
                sides,
                m.result.games_won if m.result is not None else (0, 0),
            ),
            result=stored.result if stored is not None else None,
            causes=match_causes(m, stored),
            r=viewer,
            version=version if live else None,
            poll=f"/matches/{match_id}/live" if live else None,
            stream=stream,
            stream_kind="match",
            seen=seen,
            words={**table_words(), **stepper_words()} if viewer else None,
            table_ctx=msgspec.to_builtins(context_for(shown, sides, viewer.game, "spectator"))
            if stream and viewer and shown
            else None,
        )
        return Rendered(html.encode(), live)

    reads = {"game": game, "step": step, "view": view, "whole": whole or None}  # 0: absent
    return await cached_page(request, produce, version, reads)


async def _match_version(
    request: Request[Any, Any, Any], pool: asyncpg.Pool, match_id: int
) -> str | None:
    """The stored version plus the length of the live feed (it grows with every decision)."""
    version = await db.match_version(pool, match_id)
    if version is None or version.split(".")[0] not in LIVE_MATCH:
        return version
    return f"{version}.{await reader(request).length(match_id)}"


@get("/matches/{match_id:int}/live", name="web:match-live")
async def match_live(
    request: Request[Any, Any, Any], pool: NamedDependency[asyncpg.Pool], match_id: Id
) -> Response[LivePoll]:
    async def read() -> tuple[str, bool] | None:
        version = await _match_version(request, pool, match_id)
        return None if version is None else (version, version.split(".")[0] in LIVE_MATCH)

    answer = await poll_answer(request, ("match", match_id), read)
    if answer is None:
        raise NotFoundException(f"no match {match_id}")
    return live_poll(*answer)
