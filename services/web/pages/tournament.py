"""The tournament page (rounds, standings, brackets, crosstable) and its live version."""

from __future__ import annotations

from typing import Annotated, Any

import asyncpg
from litestar import Request, Response, get
from litestar.di import NamedDependency
from litestar.exceptions import NotFoundException
from litestar.params import QueryParameter

from services import flow
from services.api.deps import services_of
from services.db import page_reads as db
from services.db import tournaments as db_tournaments
from services.domain import LIVE_TOURNAMENT_STATUSES, OPEN_STATUSES
from services.tournaments.event import Played
from services.tournaments.formats import StandingRow
from services.tournaments.played import played as played_event
from services.web.i18n import current
from services.web.i18n import gettext as _
from services.web.pages.cached import cached_page
from services.web.pages.live_poll import LivePoll, live_poll
from services.web.pages.memo import Memo
from services.web.pages.page_cache import LIVE_S, Rendered
from services.web.pages.render import Id, render_html
from services.web.pages.replays import replays
from services.web.views import paging
from services.web.views.common import STATUS_NAMES, outcome, status_name
from services.web.views.tournament import TournamentView, tournament_view

LIVE_TOURNAMENT = LIVE_TOURNAMENT_STATUSES
VIEWS_KEY = "tournament_views"


VIEW_ITEMS = 20_000
"""How much of tournaments' view models one API process keeps, counted in pairings, crosstable
cells and standings rows (a 780-match round robin's is about 2,400)."""


def _weight(view: TournamentView) -> int:
    pairings = sum(len(r.pairings) for r in view.rounds)
    return 1 + pairings + len(view.crosstable or []) ** 2 + len(view.standings or [])


def _views(request: Request[Any, Any, Any]) -> Memo[TournamentView]:
    """The tournaments' view models this process keeps, per tournament and language: every page
    of an event (each round, each crosstable part, any query) is made from the one view, so
    only the template is rendered per page (the view is 90% of a page's cost). None kept when
    the page cache is off (``TRUCO_PAGE_CACHE_BYTES=0``)."""
    state = request.app.state
    memo = state.get(VIEWS_KEY)
    if memo is None:
        web = services_of(state).settings.web
        memo = Memo(
            VIEW_ITEMS if web.page_cache_bytes else 0,
            weigh=_weight,
            keep_s=lambda view: web.page_max_age_s if settled(view) else LIVE_S,
        )
        state[VIEWS_KEY] = memo
    assert isinstance(memo, Memo)
    return memo


async def _view(
    request: Request[Any, Any, Any], pool: asyncpg.Pool, tournament_id: int, version: str | None
) -> TournamentView:
    return await _views(request).value(
        (tournament_id, current(), version), lambda: _tournament_view(pool, tournament_id)
    )


async def _tournament_view(pool: asyncpg.Pool, tournament_id: Id) -> TournamentView:
    data = await db.tournament(pool, tournament_id)
    if data is None:
        raise NotFoundException(_("There is no tournament %(id)d.") % {"id": tournament_id})
    need = [m.id for m in data.matches if (out := outcome(m)) is not None and out.games is None]
    stored = await replays(pool, need)
    standings, played = await _standings(pool, tournament_id)
    return tournament_view(
        data.tournament,
        data.entries,
        [(r.number, r.status) for r in data.rounds],
        data.matches,
        stored,
        standings,
        played,
    )


async def _standings(
    pool: asyncpg.Pool, tournament_id: int
) -> tuple[list[StandingRow], Played | None]:
    """The standings exactly as the API gives them (:func:`services.flow.standings`), and the
    event as its format sees it (the bracket's results)."""
    tournament = await db_tournaments.get_tournament(pool, tournament_id)
    if tournament is None:
        return [], None
    entrants, matches = await flow.event_state(pool, tournament_id)
    third_place = tournament.settings.third_place
    rows = flow.standings(
        tournament.format,
        entrants,
        matches,
        third_place=third_place,
        partnership=tournament.partnership,
    )
    return rows, played_event(entrants, matches, third_place=third_place)


@get("/tournaments/{tournament_id:int}", name="web:tournament")
async def tournament_page(
    request: Request[Any, Any, Any],
    pool: NamedDependency[asyncpg.Pool],
    tournament_id: Id,
    round_number: Annotated[int | None, QueryParameter(name="round", ge=1, le=10_000)] = None,
) -> Response[bytes]:
    version = await db.tournament_version(pool, tournament_id)

    async def produce() -> Rendered:
        view = await _view(request, pool, tournament_id, version)
        try:
            shown = paging.round_shown(
                [r.number for r in view.rounds],
                sum(len(r.pairings) for r in view.rounds),
                round_number,
            )
        except paging.NoSuchRound as exc:
            raise NotFoundException(
                _("There is no round %(n)d in this tournament.") % {"n": round_number}
            ) from exc
        poll = f"/tournaments/{tournament_id}/live" if view.live else None
        html = render_html(
            request,
            "tournament.html",
            t=view,
            shown_round=shown,
            version=version if view.live else None,
            poll=poll,
            stream=f"/v1/tournaments/{tournament_id}/stream" if view.live else None,
            stream_kind="tournament",
            statuses={k: status_name(k) for k in STATUS_NAMES} if view.live else None,
            stream_status=view.tournament.status if view.live else None,
        )
        return Rendered(html.encode(), not settled(view))

    return await cached_page(request, produce, version)


def settled(view: TournamentView) -> bool:
    """Whether the tournament's pages can no longer change: it is over (finished or cancelled)
    and none of its matches is still to be played or being played."""
    return not view.live and all(
        p.status not in OPEN_STATUSES for r in view.rounds for p in r.pairings
    )


@get("/tournaments/{tournament_id:int}/crosstable", name="web:crosstable")
async def crosstable_page(
    request: Request[Any, Any, Any],
    pool: NamedDependency[asyncpg.Pool],
    tournament_id: Id,
    part: Annotated[int, QueryParameter(ge=1, le=10_000)] = 1,
) -> Response[bytes]:
    """One part of a large crosstable (:func:`services.web.views.paging.cross_parts`); a crosstable
    small enough for the tournament's page is there, not here."""
    version = await db.tournament_version(pool, tournament_id)

    async def produce() -> Rendered:
        view = await _view(request, pool, tournament_id, version)
        if view.crosstable is None or not view.cross_parts:
            raise NotFoundException(
                _("The crosstable of this tournament is on its page.")
                if view.crosstable is not None
                else _("This tournament has no crosstable.")
            )
        if part > len(view.cross_parts):
            raise NotFoundException(_("There is no part %(n)d of this crosstable.") % {"n": part})
        first, end = view.cross_parts[part - 1]
        html = render_html(request, "crosstable.html", t=view, part=part, first=first, end=end)
        return Rendered(html.encode(), not settled(view))

    return await cached_page(request, produce, version)


@get("/tournaments/{tournament_id:int}/live", name="web:tournament-live")
async def tournament_live(
    pool: NamedDependency[asyncpg.Pool], tournament_id: Id
) -> Response[LivePoll]:
    version = await db.tournament_version(pool, tournament_id)
    if version is None:
        raise NotFoundException(f"no tournament {tournament_id}")
    return live_poll(version, version.split(".")[0] in LIVE_TOURNAMENT)
