"""A large finished event's pages (issue 21, break 3): each page under 100 KB, served from the
rendered-page cache after the first view, 304 on ``If-None-Match``, and a per-address budget
of page views."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterator

import httpx
import pytest

from services.db.migrate import migrate_url
from services.db.pool import create_pool
from tests.servers import PostgresServer, create_database, drop_database, new_database_name
from tests.web.conftest import run_async, web_app
from tests.web.seed_event import EVENT_BOTS, seed_event

LIMIT = 100 * 1024


@pytest.fixture(scope="module")
def event(postgres_server: PostgresServer) -> Iterator[tuple[str, int]]:
    """(database URL, id of the finished 780-match round robin)."""
    name = new_database_name()
    url = run_async(create_database(postgres_server, name))
    try:
        run_async(migrate_url(url))
        tid = run_async(seed_event(url))
        yield url, tid
    finally:
        run_async(drop_database(postgres_server, name))


@pytest.fixture
async def client(event: tuple[str, int]) -> AsyncIterator[httpx.AsyncClient]:
    url, _tid = event
    pool = await create_pool(url, min_size=1, max_size=4)
    try:
        transport = httpx.ASGITransport(app=web_app(url, pool))  # type: ignore[arg-type]
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
            yield c
    finally:
        await pool.close()


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
