"""A page served through this process's cache of rendered pages (:mod:`services.web.pages.page_cache`),
with an ``ETag`` and ``Cache-Control``: a finished event's page is immutable, so browsers and
proxies keep it ``TRUCO_PAGE_MAX_AGE_S`` and ``If-None-Match`` gets a 304 without a body; a
live one is rendered at most once a second (``Cache-Control: no-cache``: browsers ask again,
with its ``ETag``).

The key is the page's path, its whole query but ``lang`` (the page's links repeat the query),
the language the page is in (which ``lang``, the cookie or ``Accept-Language`` chose) and the
version of what the page shows (``db.page_reads.tournament_version``, ``match_version``: one
cheap read a view), so a page is never served from before a change: a result, a new round, the
end of the event and its revealed seed show at once, while a burst of views of an unchanged
page costs one rendering.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qsl

from litestar import Request, Response
from litestar.datastructures import State

from services.api.deps import services_of
from services.web import i18n
from services.web.pages.page_cache import PageCache, Rendered
from services.web.pages.render import HTML, SECURITY_HEADERS, language_of_response, use_language

STATE_KEY = "page_cache"


def page_cache(state: State) -> PageCache:
    """This app's cache of rendered pages (made on first use, from ``settings.web``)."""
    cache = state.get(STATE_KEY)
    if cache is None:
        web = services_of(state).settings.web
        cache = PageCache(web.page_cache_bytes, web.page_max_age_s)
        state[STATE_KEY] = cache
    assert isinstance(cache, PageCache)
    return cache


def _matches(if_none_match: str | None, etag: str) -> bool:
    if not if_none_match:
        return False
    tags = [t.strip().removeprefix("W/") for t in if_none_match.split(",")]
    return "*" in tags or etag in tags


async def cached_page(
    request: Request[Any, Any, Any],
    render: Callable[[], Awaitable[Rendered]],
    version: str | None = None,
) -> Response[bytes]:
    """The page ``render`` makes for ``request``, from the cache when it holds it for this
    ``version`` of what the page shows."""
    lang = use_language(request)
    query = sorted(
        (k, v) for k, v in parse_qsl(request.url.query, keep_blank_values=True) if k != i18n.COOKIE
    )
    cache = page_cache(request.app.state)
    entry = await cache.page((request.url.path, tuple(query), lang, version), render)
    language_headers, cookies = language_of_response(request)
    if entry.live:
        caching = "no-cache"
    else:  # a response that sets the language cookie is the reader's own
        scope = "private" if cookies else "public"
        caching = f"{scope}, max-age={cache.max_age_s}"
    headers = {
        **SECURITY_HEADERS,
        **language_headers,
        "ETag": entry.etag,
        "Cache-Control": caching,
    }
    if _matches(request.headers.get("if-none-match"), entry.etag):
        return Response(b"", status_code=304, headers=headers, cookies=cookies)
    return Response(entry.html, media_type=HTML, headers=headers, cookies=cookies)
