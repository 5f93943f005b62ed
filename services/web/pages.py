"""Page handlers: fetch rows (``services.db.pages``), build view models (``views``), render."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from functools import cache
from http import HTTPStatus
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import parse_qsl, urlencode

import asyncpg
import msgspec
from litestar import Request, Response, Router, get
from litestar.datastructures import Cookie, ResponseHeader
from litestar.di import NamedDependency
from litestar.exceptions import HTTPException, NotFoundException, ValidationException
from litestar.params import Parameter, QueryParameter
from litestar.plugins.jinja import JinjaTemplateEngine
from litestar.template import TemplateConfig

from arena.match.replay import (
    FORMAT,
    EntrantRecord,
    GameRecord,
    MatchResult,
    Replay,
    ReplayEvent,
    VerifyError,
    load_replay,
)
from arena.match.runner import seat_entrants
from engine.rules import Rules
from services import flow
from services.api.deps import services
from services.api.problems import ProblemError
from services.api.sprt_tests import sprt_read
from services.db import matches as db_matches
from services.db import pages as db
from services.db import sprt_tests as db_sprt
from services.db import tournaments as db_tournaments
from services.domain import FINISHED_STATUSES, LIVE_TOURNAMENT_STATUSES, OPEN_STATUSES
from services.domain.ratings import POOLS
from services.tournaments.event import Played
from services.tournaments.formats import StandingRow
from services.tournaments.outcome import match_outcome
from services.tournaments.played import played as played_event
from services.web import i18n, paging
from services.web.i18n import N_
from services.web.i18n import gettext as _
from services.web.intervals import EXPLAINED
from services.web.views.bot import bot_view
from services.web.views.common import (
    card_name,
    decided_name,
    format_names,
    knockout_note,
    outcome,
    reason_name,
    side_links,
    status_name,
)
from services.web.views.home import leaderboard_view
from services.web.views.replay import replay_view
from services.web.views.sprt import sprt_view
from services.web.views.tournament import TournamentView, tournament_view
from services.worker.live import live_document, reader_for, to_replay_events

logger = logging.getLogger("services.web")
HERE = Path(__file__).resolve().parent
TEMPLATES = HERE / "templates"
STATIC = HERE / "static"

# No inline script or style anywhere: scripts and styles come from /static only.
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "X-Frame-Options": "DENY",
}
# Litestar adds "; charset=utf-8" to every text/* media type itself: never spell it here
HTML = "text/html"
LIVE_TOURNAMENT = LIVE_TOURNAMENT_STATUSES
LIVE_MATCH = OPEN_STATUSES
Id = Annotated[int, Parameter(ge=1, le=2**63 - 1)]


def template_config() -> TemplateConfig[JinjaTemplateEngine]:
    """Jinja2 over ``templates/`` with autoescape on (Litestar's Jinja engine sets it)."""
    return TemplateConfig(directory=TEMPLATES, engine=JinjaTemplateEngine)


@cache
def _engine(lang: i18n.Language) -> JinjaTemplateEngine:
    """The templates in ``lang``: Jinja2's i18n extension over that language's catalogue."""
    engine = template_config().to_engine()
    env = engine.engine
    assert env.autoescape is True
    env.trim_blocks = True
    env.lstrip_blocks = True
    env.add_extension("jinja2.ext.i18n")
    env.policies["ext.i18n.trimmed"] = True
    env.install_gettext_translations(i18n.translations(lang), newstyle=True)  # type: ignore[attr-defined]
    # a card's accessible name as players say it: "ancho de espadas", "7 de copas"
    env.globals["card_name"] = card_name
    env.globals["status_name"] = status_name
    env.globals["reason_name"] = reason_name
    env.globals["decided_name"] = decided_name
    return engine


def use_language(request: Request[Any, Any, Any]) -> i18n.Language:
    """The request's language (``?lang=``, cookie, ``Accept-Language``), made current."""
    lang = i18n.choose(
        request.query_params, request.cookies, request.headers.get("accept-language")
    )
    i18n.activate(lang)
    return lang


async def _before_page(request: Request[Any, Any, Any]) -> None:
    use_language(request)


def _switch(request: Request[Any, Any, Any]) -> list[tuple[str, str, str, bool]]:
    """The language switch: (code, name, this page's address in it, is current)."""
    query = [(k, v) for k, v in parse_qsl(request.url.query) if k != i18n.COOKIE]
    return [
        (
            code,
            i18n.NATIVE_NAMES[code],
            f"{request.url.path}?{urlencode([*query, (i18n.COOKIE, code)])}",
            code == i18n.current(),
        )
        for code in i18n.LANGUAGES
    ]


def render_html(request: Request[Any, Any, Any], name: str, **context: Any) -> str:
    """Template ``name`` rendered with ``context`` in the request's language."""
    lang = use_language(request)
    return (
        _engine(lang)
        .get_template(name)
        .render(html_lang=i18n.HTML_LANG[lang], languages=_switch(request), **context)
    )


def language_of_response(request: Request[Any, Any, Any]) -> tuple[dict[str, str], list[Cookie]]:
    """What a page's response says of its language: ``Content-Language`` and ``Vary``, and,
    when the reader chose one with ``?lang=``, the cookie that keeps the choice."""
    lang = i18n.choose(
        request.query_params, request.cookies, request.headers.get("accept-language")
    )
    cookies = []
    if i18n.language(request.query_params.get(i18n.COOKIE)) == lang:
        cookies.append(
            Cookie(
                key=i18n.COOKIE,
                value=lang,
                max_age=i18n.COOKIE_MAX_AGE,
                path="/",
                samesite="lax",
                httponly=True,
            )
        )
    headers = {"Content-Language": i18n.HTML_LANG[lang], "Vary": "Accept-Language, Cookie"}
    return headers, cookies


def render(
    request: Request[Any, Any, Any],
    name: str,
    status_code: int = 200,
    headers: dict[str, str] | None = None,
    **context: Any,
) -> Response[str]:
    """A page in the request's language (``?lang=`` also sets the cookie that keeps it)."""
    html = render_html(request, name, **context)
    language_headers, cookies = language_of_response(request)
    return Response(
        html,
        status_code=status_code,
        media_type=HTML,
        headers={
            **SECURITY_HEADERS,
            **language_headers,
            **(headers or {}),
        },
        cookies=cookies,
    )


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


async def _replays(pool: asyncpg.Pool, match_ids: list[int]) -> dict[int, Replay]:
    """The stored replays of these matches, decoded; one that is unreadable is left out (its
    match is shown without a viewer)."""
    return _decoded(await db.replays(pool, match_ids))


def _decoded(documents: Mapping[int, bytes | None]) -> dict[int, Replay]:
    """Replay documents decoded by match id; one that is not a valid replay is left out."""
    found: dict[int, Replay] = {}
    for match_id, document in documents.items():
        if document is None:
            continue
        try:
            found[match_id] = load_replay(document)
        except VerifyError:
            continue
    return found


async def _tournament_view(pool: asyncpg.Pool, tournament_id: Id) -> TournamentView:
    data = await db.tournament(pool, tournament_id)
    if data is None:
        raise NotFoundException(_("There is no tournament %(id)d.") % {"id": tournament_id})
    need = [m.id for m in data.matches if (out := outcome(m)) is not None and out.games is None]
    replays = await _replays(pool, need)
    standings, played = await _standings(pool, tournament_id)
    return tournament_view(
        data.tournament,
        data.entries,
        [(r.number, r.status) for r in data.rounds],
        data.matches,
        replays,
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
    third_place = flow.settings_of(tournament).third_place
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
) -> Response[str]:
    view = await _tournament_view(pool, tournament_id)
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
    version = await db.tournament_version(pool, tournament_id) if view.live else None
    poll = f"/tournaments/{tournament_id}/live" if view.live else None
    return render(request, "tournament.html", t=view, shown_round=shown, version=version, poll=poll)


@get("/tournaments/{tournament_id:int}/live", name="web:tournament-live")
async def tournament_live(
    pool: NamedDependency[asyncpg.Pool], tournament_id: Id
) -> Response[dict[str, Any]]:
    version = await db.tournament_version(pool, tournament_id)
    if version is None:
        raise NotFoundException(f"no tournament {tournament_id}")
    return Response(
        {"version": version, "live": version.split(".")[0] in LIVE_TOURNAMENT},
        headers={**SECURITY_HEADERS, "Cache-Control": "no-store"},
    )


@get("/bots/{bot_id:int}", name="web:bot")
async def bot_page(
    request: Request[Any, Any, Any], pool: NamedDependency[asyncpg.Pool], bot_id: Id
) -> Response[str]:
    bot = await db.bot(pool, bot_id)
    if bot is None:
        raise NotFoundException(_("There is no bot %(id)d.") % {"id": bot_id})
    matches = await db.bot_matches(pool, bot_id)
    replays = await _replays(pool, [m.id for m in matches if m.status in FINISHED_STATUSES])
    view = bot_view(
        bot,
        await db.bot_ratings(pool, bot_id),
        await db.rating_history(pool, bot_id),
        matches,
        replays,
    )
    tests = await db_sprt.tests_of_bot(pool, bot_id)
    names = await db_matches.entrant_names(
        pool, sorted({t.bot_a for t in tests} | {t.bot_b for t in tests})
    )
    return render(request, "bot.html", b=view, tests=tests, names=names)


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
async def sprt_live(pool: NamedDependency[asyncpg.Pool], test_id: Id) -> Response[dict[str, Any]]:
    test = await db_sprt.get_test(pool, test_id)
    if test is None:
        raise NotFoundException(f"no test {test_id}")
    return Response(
        {"version": _sprt_version(test), "live": test.status == "running"},
        headers={**SECURITY_HEADERS, "Cache-Control": "no-store"},
    )


def _reader(request: Request[Any, Any, Any]) -> Any:
    state = request.app.state
    return reader_for(state, services(state).settings.redis)


async def live_replay(
    request: Request[Any, Any, Any], pool: asyncpg.Pool, m: db.MatchRow
) -> Replay | None:
    """A live match as a spectator replay for the viewer, from the worker's live feed
    (``services.worker.live``): no deals (empty hands), no señas, no seeds. None if empty."""
    items = await _reader(request).items(m.id)
    document = live_document(m.id, m.status, [], items)
    row = await db_matches.get_match(pool, m.id)
    if not document["games"] or row is None:
        return None
    rules = Rules.from_dict(row.rules)
    names = [
        " & ".join(b.name for b in side_links(m, side)) or _("side %(n)d") % {"n": side}
        for side in (0, 1)
    ]
    games = [
        GameRecord(
            number=g["number"],
            game_id=f"{m.id}-g{g['number']}",
            seed=0,
            teams=(int(g["teams"][0]), int(g["teams"][1])),
            events=msgspec.convert(to_replay_events(g["events"], rules.players), list[ReplayEvent]),
            score=(int(g["score"][0]), int(g["score"][1])),
            seats=seat_entrants(g["number"] - 1, 4, 4) if row.individual else (),
        )
        for g in document["games"]
    ]
    entrants: tuple[EntrantRecord, ...] = (
        EntrantRecord(names[0], "live"),
        EntrantRecord(names[1], "live"),
    )
    if row.individual:  # a bot a seat: the records in slot order
        entrants = tuple(
            EntrantRecord(e.name, "live") for e in sorted(m.entrants, key=lambda e: e.slot)
        )
    return Replay(
        format=FORMAT,
        match_id=str(m.id),
        seed=0,
        rules=rules,
        deals=row.deals,
        games_per_match=row.games_per_match,
        timeout_ms=0,
        time_bank_ms=0,
        fault_limit=0,
        entrants=entrants,
        games=games,
        result=MatchResult(games_won=(0, 0), tantos=(0, 0), winner=None, reason="draw"),
    )


@get("/matches/{match_id:int}", name="web:match")
async def match_page(
    request: Request[Any, Any, Any],
    pool: NamedDependency[asyncpg.Pool],
    match_id: Id,
    game: Annotated[int, Parameter(ge=1, le=1000)] = 1,
    step: Annotated[int | None, Parameter(ge=0, le=1_000_000)] = None,
    view: Annotated[str, Parameter(max_length=16)] = "all",
    whole: Annotated[int, Parameter(ge=0, le=1)] = 0,
) -> Response[str]:
    data = await db.match(pool, match_id)
    if data is None:
        raise NotFoundException(_("There is no match %(id)d.") % {"id": match_id})
    m = data.match
    stored = _decoded({match_id: data.replay}).get(match_id)
    live = m.status not in FINISHED_STATUSES
    sides = (side_links(m, 0), side_links(m, 1))
    viewer = None
    shown = stored
    if shown is None and m.status in LIVE_MATCH:
        shown = await live_replay(request, pool, m)  # the spectator feed of the match being played
    if shown is not None:
        # a finished match opens at its first event, a live one at its latest
        start = step if step is not None else (None if live else 0)
        viewer = replay_view(shown, sides, game, start, view, live, whole=bool(whole))
    out = outcome(m, stored)
    version = await _match_version(request, pool, match_id) if live else None
    return render(
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
        result=stored.result if stored is not None else None,
        r=viewer,
        version=version,
        poll=f"/matches/{match_id}/live" if live else None,
    )


async def _match_version(
    request: Request[Any, Any, Any], pool: asyncpg.Pool, match_id: int
) -> str | None:
    """The stored version plus the length of the live feed (it grows with every decision)."""
    version = await db.match_version(pool, match_id)
    if version is None or version.split(".")[0] not in LIVE_MATCH:
        return version
    return f"{version}.{await _reader(request).length(match_id)}"


@get("/matches/{match_id:int}/live", name="web:match-live")
async def match_live(
    request: Request[Any, Any, Any], pool: NamedDependency[asyncpg.Pool], match_id: Id
) -> Response[dict[str, Any]]:
    version = await _match_version(request, pool, match_id)
    if version is None:
        raise NotFoundException(f"no match {match_id}")
    return Response(
        {"version": version, "live": version.split(".")[0] in LIVE_MATCH},
        headers={**SECURITY_HEADERS, "Cache-Control": "no-store"},
    )


def html_error(request: Request[Any, Any, Any], exc: Exception) -> Response[Any]:
    """An error on a browser route: the site's error page (layout, CSP, security headers); the
    live endpoints that pages poll answer a small JSON document instead."""
    use_language(request)  # also for addresses no page handler answers
    headers: dict[str, str] = {}
    if isinstance(exc, HTTPException):
        status, detail = exc.status_code, exc.detail
        headers = dict(exc.headers or {})
    elif isinstance(exc, ProblemError):
        status, detail = exc.status, exc.detail
        headers = dict(exc.headers or {})
    else:
        logger.exception("unhandled error on %s %s", request.method, request.url.path)
        status, detail = 500, ""
    if status >= 500:
        detail = _("An unexpected error occurred; it has been logged.")
    elif status == 404 and detail in ("", "Not Found", "no such file"):
        detail = _("There is no page at this address.")
    elif isinstance(exc, ValidationException):
        detail = _("This address is not valid: a number or a value in it is out of range.")
    if request.url.path.endswith("/live"):
        return Response(
            {"status": status, "detail": detail},
            status_code=status,
            headers={**SECURITY_HEADERS, **headers},
        )
    return render(
        request,
        "error.html",
        status_code=status,
        headers=headers,
        status=status,
        message=_error_title(status),
        detail=detail,
    )


ERROR_TITLES = {
    400: N_("Bad request"),
    404: N_("Not found"),
    405: N_("Method not allowed"),
    429: N_("Too many requests"),
    500: N_("Internal server error"),
}


def _error_title(status: int) -> str:
    if status in ERROR_TITLES:
        return _(ERROR_TITLES[status])
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return _("Error")


MEDIA_TYPES = {
    ".css": "text/css",
    ".js": "text/javascript",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".jpg": "image/jpeg",
}


@cache
def _static_files() -> dict[str, tuple[bytes, str]]:
    """The files of ``static/`` and its folders (``swagger_ui/...``) by relative path, read
    once; nothing else is ever served."""
    return {
        f.relative_to(STATIC).as_posix(): (f.read_bytes(), MEDIA_TYPES[f.suffix])
        for f in sorted(STATIC.rglob("*"))
        if f.is_file() and f.suffix in MEDIA_TYPES
    }


@get("/static/{name:path}", name="web:static")
async def static_file(name: Annotated[str, Parameter(max_length=96)]) -> Response[bytes]:
    found = _static_files().get(name.lstrip("/"))
    if found is None:
        raise NotFoundException("no such file")
    body, media_type = found
    return Response(
        body,
        media_type=media_type,
        headers={**SECURITY_HEADERS, "Cache-Control": "public, max-age=300"},
    )


def web_router() -> Router:
    """The pages, their live endpoints and ``/static``; mount it on the API app."""
    return Router(
        path="/",
        route_handlers=[
            home,
            tournament_page,
            tournament_live,
            bot_page,
            match_page,
            match_live,
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
