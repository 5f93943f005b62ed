"""A large finished event's pages (issue 21, break 3): each page under 100 KB, served from the
rendered-page cache after the first view, 304 on ``If-None-Match``, and a per-address budget
of page views."""

from __future__ import annotations

import importlib.util
import re
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

import httpx
import pytest
from litestar import Litestar

from services.api.guard.ratelimit import MemoryCounter
from services.api.routes.schema_document import KeptJsonDocument
from services.base.config import RateLimits, Settings, WebSettings
from services.db.pool import create_pool
from services.launch.app import create_app
from services.web.pages.cached import page_cache
from services.web.pages.page_cache import LIVE_S
from services.web.pages.polls import STATE_KEY as POLLS_KEY
from services.web.pages.tournament import VIEWS_KEY
from tests.servers import (
    PostgresServer,
    new_migrated_database,
)
from tests.services.helpers.api_helpers import FrozenCounter
from tests.services.web.accessibility import violations_by_width
from tests.services.web.browser.test_page_weight import _serve
from tests.services.web.conftest import WebData, run_async, settings
from tests.services.web.fit import problems
from tests.services.web.seed_event import EVENT_BOTS, seed_event

pytestmark = pytest.mark.slow  # run early (tests/slow_first.py)

LIMIT = 100 * 1024


@pytest.fixture(scope="module")
def event(postgres_server: PostgresServer) -> Iterator[tuple[str, int]]:
    """(database URL, id of the finished 780-match round robin)."""
    url = new_migrated_database(postgres_server)  # a template's copy, dropped with the others
    yield url, run_async(seed_event(url))


@asynccontextmanager
async def served(
    url: str, peers: Sequence[str] = ("127.0.0.1",), **options: Any
) -> AsyncIterator[tuple[Litestar, list[httpx.AsyncClient]]]:
    """The platform app on ``url`` and one client per peer address (the address the app sees
    the connection come from, which the budgets count by)."""
    pool = await create_pool(url, min_size=1, max_size=4)
    try:
        app = create_app(settings(url), pool=pool, **options)
        async with AsyncExitStack() as stack:
            clients = [
                await stack.enter_async_context(
                    httpx.AsyncClient(
                        transport=httpx.ASGITransport(app=app, client=(peer, 40000)),  # type: ignore[arg-type]
                        base_url="http://testserver",
                    )
                )
                for peer in peers
            ]
            yield app, clients
    finally:
        await pool.close()


@pytest.fixture
async def client(event: tuple[str, int]) -> AsyncIterator[httpx.AsyncClient]:
    async with served(event[0]) as (_app, (one,)):
        yield one


@pytest.mark.anyio
@pytest.mark.parametrize("lang", ["en", "es"])
async def test_every_page_of_a_780_match_event_is_under_100_kb(
    client: httpx.AsyncClient, event: tuple[str, int], lang: str
) -> None:
    _url, tid = event
    main = await client.get(f"/tournaments/{tid}?lang={lang}")
    assert main.status_code == 200
    weights = {"main": len(main.content)}
    html = main.text
    # the crosstable (1,600 cells) is in parts of its own, linked from the page
    parts = re.findall(rf'href="(/tournaments/{tid}/crosstable\?part=\d+)"', html)
    assert len(parts) == 2, parts
    assert '<table class="cross">' not in html
    assert ("Filas 1–20" if lang == "es" else "Rows 1–20") in html
    rows = 0
    for address in parts:
        r = await client.get(address, params={"lang": lang})
        assert r.status_code == 200
        weights[address] = len(r.content)
        rows += len(re.findall(r"<tr><th>\d+\. ", r.text))
    assert rows == EVENT_BOTS  # every row once, across the parts
    # the rounds: one round's pairings at a time, a link to each of the 39 rounds
    rounds = re.findall(rf'href="/tournaments/{tid}\?round=(\d+)"', html)
    assert len(rounds) == EVENT_BOTS - 1
    for number in (1, 20, 39):
        r = await client.get(f"/tournaments/{tid}", params={"round": number, "lang": lang})
        assert r.status_code == 200
        weights[f"round {number}"] = len(r.content)
    heavy = {name: size for name, size in weights.items() if size >= LIMIT}
    assert heavy == {}, weights
    assert (await client.get(f"/tournaments/{tid}/crosstable?part=3")).status_code == 404


@pytest.mark.anyio
async def test_a_finished_event_page_is_rendered_once_then_served_from_the_cache(
    event: tuple[str, int],
) -> None:
    url, tid = event
    async with served(url) as (app, (client,)):
        cache = page_cache(app.state)
        first = await client.get(f"/tournaments/{tid}")
        assert first.status_code == 200
        assert cache.renders == 1
        for _ in range(5):
            again = await client.get(f"/tournaments/{tid}")
            assert again.status_code == 200 and again.content == first.content
        assert cache.renders == 1  # five more views, no more rendering
        assert first.headers["cache-control"] == "public, max-age=300"
        etag = first.headers["etag"]
        assert again.headers["etag"] == etag
        # the same page in Spanish is another page; a round is another page
        es = await client.get(f"/tournaments/{tid}", headers={"Accept-Language": "es-AR"})
        assert es.headers["content-language"] == "es-AR" and es.headers["etag"] != etag
        await client.get(f"/tournaments/{tid}?round=2")
        assert cache.renders == 3
        # ?lang= sets the reader's cookie: the same HTML, not for shared caches
        chosen = await client.get(f"/tournaments/{tid}?lang=es")
        assert chosen.content == es.content and cache.renders == 3
        assert (
            chosen.headers["cache-control"].startswith("private") and "set-cookie" in chosen.headers
        )
        # every page of the event is made from one view model per language: other rounds and
        # crosstable parts render a template, no more; a query no page reads is the same page
        for address in ("?round=3", "?round=39", "/crosstable?part=1", "?utm_source=x"):
            assert (await client.get(f"/tournaments/{tid}{address}")).status_code == 200
        assert cache.renders == 6
        assert app.state[VIEWS_KEY].made == 2  # English and Spanish


@pytest.mark.anyio
async def test_a_running_event_page_is_rendered_again_after_a_second(web_data: WebData) -> None:
    running = f"/tournaments/{web_data.seeded.swiss_id}"
    async with served(web_data.url) as (app, (client,)):
        cache = page_cache(app.state)
        first = await client.get(running)
        assert first.status_code == 200 and "data-poll" in first.text
        assert first.headers["cache-control"] == "no-cache"  # browsers ask again every time
        await client.get(running)
        assert cache.renders == 1  # within the second: the same rendering
        now = cache.clock()
        cache.clock = lambda: now + LIVE_S + 0.01
        again = await client.get(running, headers={"If-None-Match": first.headers["etag"]})
        assert cache.renders == 2
        assert again.status_code == 304  # rendered again, and still the same bytes


@pytest.mark.anyio
async def test_if_none_match_gets_a_304_without_a_body(event: tuple[str, int]) -> None:
    url, tid = event
    async with served(url) as (app, (client,)):
        first = await client.get(f"/tournaments/{tid}/crosstable?part=2")
        etag = first.headers["etag"]
        again = await client.get(
            f"/tournaments/{tid}/crosstable?part=2", headers={"If-None-Match": etag}
        )
        assert again.status_code == 304 and again.content == b""
        assert again.headers["etag"] == etag
        stale = await client.get(
            f"/tournaments/{tid}/crosstable?part=2", headers={"If-None-Match": '"other"'}
        )
        assert stale.status_code == 200 and stale.content == first.content
        assert page_cache(app.state).renders == 1


@pytest.mark.anyio
async def test_without_the_cache_every_view_renders(event: tuple[str, int]) -> None:
    url, tid = event
    off = Settings(
        database=settings(url).database,
        secrets=settings(url).secrets,
        web=WebSettings(page_cache_bytes=0),
    )
    pool = await create_pool(url, min_size=1, max_size=2)
    try:
        app = create_app(off, pool=pool)
        transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            first = await client.get(f"/tournaments/{tid}")
            second = await client.get(
                f"/tournaments/{tid}", headers={"If-None-Match": first.headers["etag"]}
            )
        assert second.status_code == 304  # the validator still holds: the same bytes
        assert page_cache(app.state).renders == 2 and len(page_cache(app.state)) == 0
    finally:
        await pool.close()


@pytest.mark.anyio
async def test_past_its_budget_an_address_gets_429_and_another_is_still_answered(
    event: tuple[str, int],
) -> None:
    url, tid = event
    budget = 5
    limits = RateLimits(pages_per_minute=budget)
    peers = ("203.0.113.7", "198.51.100.9")
    async with served(url, peers, rate_limits=limits, rate_counter=FrozenCounter()) as (
        _app,
        (flooder, other),
    ):
        for _ in range(budget):
            assert (await flooder.get(f"/tournaments/{tid}")).status_code == 200
        # the stylesheet and the live poll are not page views
        assert (await flooder.get("/static/site.css")).status_code == 200
        assert (await flooder.get(f"/tournaments/{tid}/live")).status_code == 200
        refused = await flooder.get(f"/tournaments/{tid}", headers={"Accept-Language": "es"})
        assert refused.status_code == 429
        assert 0 < int(refused.headers["retry-after"]) <= 60
        assert refused.headers["content-type"].startswith("text/html")
        assert refused.headers["content-language"] == "es-AR"
        assert "Demasiados pedidos" in refused.text
        assert (await flooder.get("/bots")).status_code == 429  # every page, not one
        assert (await other.get(f"/tournaments/{tid}")).status_code == 200
        # the API keeps its own budgets
        assert (await flooder.get("/v1/bots")).status_code == 200


@pytest.mark.anyio
async def test_the_page_budget_is_off_with_the_rate_limits(event: tuple[str, int]) -> None:
    url, tid = event
    limits = RateLimits(pages_per_minute=1, enabled=False)
    async with served(url, rate_limits=limits, rate_counter=MemoryCounter()) as (_app, (c,)):
        for _ in range(3):
            assert (await c.get(f"/tournaments/{tid}")).status_code == 200


@pytest.mark.anyio
async def test_random_query_strings_do_not_bypass_the_page_cache(event: tuple[str, int]) -> None:
    """Issue 33, 8: the cache key held the whole query, so random query strings made every view
    a rendering (45 a second from 20 addresses took others' p50 from 17 ms to 1.2 s). The key
    is now the parameters a page reads, and its links repeat only those."""
    url, tid = event
    async with served(url) as (app, (client,)):
        cache = page_cache(app.state)
        first = await client.get(f"/tournaments/{tid}?round=2&lang=en")
        assert first.status_code == 200 and cache.renders == 1
        for n in range(30):
            junk = f"/tournaments/{tid}?x{n}={n}&round=2&utm={n}&lang=en"
            again = await client.get(junk)
            assert again.status_code == 200 and again.content == first.content
            assert f"x{n}=" not in again.text  # the language links repeat no stranger's query
        assert cache.renders == 1
        assert f'href="/tournaments/{tid}?round=2&amp;lang=es"' in first.text
        # the match page: a view the viewer does not know is its "all" page
        match_id = await _a_match_of(url, tid)
        shown = await client.get(f"/matches/{match_id}?lang=en")
        made = cache.renders
        for junk in ("view=zzz", "view=all&q=1", "view=seat9", "foo=bar"):
            assert (await client.get(f"/matches/{match_id}?{junk}&lang=en")).content == (
                shown.content
            )
        assert cache.renders == made


async def _a_match_of(url: str, tid: int) -> int:
    pool = await create_pool(url, min_size=1, max_size=1)
    try:
        found = await pool.fetchval(
            "SELECT min(id) FROM matches WHERE tournament_id = $1 AND status = 'done'", tid
        )
    finally:
        await pool.close()
    assert isinstance(found, int)
    return found


@pytest.mark.anyio
async def test_live_polls_are_read_once_a_second_and_have_a_budget(
    event: tuple[str, int],
) -> None:
    """Issue 33, 8: each ``/tournaments/{id}/live`` answer aggregated the event's 780 match
    states and counted in no budget (2,986 answers in 20 s from one address)."""
    url, tid = event
    limits = RateLimits(polls_per_minute=40, pages_per_minute=1000)
    peers = ("203.0.113.7", "198.51.100.9")
    async with served(url, peers, rate_limits=limits, rate_counter=FrozenCounter()) as (
        app,
        (flooder, other),
    ):
        answers = [await flooder.get(f"/tournaments/{tid}/live") for _ in range(40)]
        assert {a.status_code for a in answers} == {200}
        assert len({a.content for a in answers}) == 1
        assert app.state[POLLS_KEY].made == 1  # 40 polls, one read of the event
        refused = await flooder.get(f"/tournaments/{tid}/live")
        assert refused.status_code == 429 and refused.json()["status"] == 429
        assert int(refused.headers["retry-after"]) > 0
        assert (await other.get(f"/tournaments/{tid}/live")).status_code == 200
        # polls spend no page views, nor page views polls
        assert (await flooder.get(f"/tournaments/{tid}")).status_code == 200
        assert (await flooder.get(f"/tournaments/{10**9}/live")).status_code == 429


@pytest.mark.anyio
async def test_the_openapi_document_is_encoded_once_and_counted(event: tuple[str, int]) -> None:
    """Issue 33, 8: ``/schema/openapi.json`` (136 KB) was encoded for every request and counted
    in no budget (2,694 answers in 15 s)."""
    url, _tid = event
    limits = RateLimits(per_key_per_minute=10)
    peers = ("203.0.113.7", "198.51.100.9")
    async with served(url, peers, rate_limits=limits, rate_counter=FrozenCounter()) as (
        app,
        (flooder, other),
    ):
        answers = [await flooder.get("/schema/openapi.json") for _ in range(10)]
        assert {a.status_code for a in answers} == {200}
        assert len({a.content for a in answers}) == 1
        plugin = next(
            p for p in app.openapi_config.render_plugins if isinstance(p, KeptJsonDocument)
        )  # type: ignore[union-attr]
        assert plugin.encodings == 1
        refused = await flooder.get("/schema/openapi.json")
        assert refused.status_code == 429 and "retry-after" in refused.headers
        assert (await flooder.get("/v1/bots")).status_code == 429  # one budget with the API
        assert (await other.get("/schema/openapi.json")).status_code == 200


def test_the_pages_of_a_large_event_fit_every_screen(event: tuple[str, int], browser: Any) -> None:
    """The tournament's page and a part of its crosstable, served by uvicorn, at 320 to 1280
    px in English and Spanish (the checks of :mod:`tests.services.web.fit`), and without a serious or
    critical axe-core violation (:mod:`tests.services.web.accessibility`, when installed)."""
    url, tid = event
    axe = importlib.util.find_spec("axe_playwright_python") is not None
    server, thread, base = _serve(url)
    context = browser.new_context(viewport={"width": 1280, "height": 900}, base_url=base)
    found: dict[str, list[str]] = {}
    try:
        page = context.new_page()
        for lang in ("en", "es"):
            for address in (f"/tournaments/{tid}", f"/tournaments/{tid}/crosstable?part=2"):
                response = page.goto(f"{address}{'&' if '?' in address else '?'}lang={lang}")
                assert response is not None and response.status == 200, address
                for width in (320, 390, 768, 1280):
                    page.set_viewport_size({"width": width, "height": 900})
                    if lines := problems(page):
                        found[f"{address} {lang} at {width} px"] = lines
                page.set_viewport_size({"width": 1280, "height": 900})
                if axe and lang == "en":  # axe-core's serious and critical violations
                    for width, lines in violations_by_width(page).items():
                        found[f"{address} axe at {width} px"] = lines
    finally:
        context.close()
        server.should_exit = True
        thread.join(10)
    assert found == {}, found
