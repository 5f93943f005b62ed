"""A page stays light: each page's HTML is under 100 KB for a 100-bot Swiss of 7 rounds and
for a replay whose game lasts 30 hands or more, measured in Chromium on data of that size
(``seed_large``, its own database and server)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import uvicorn

from tests.servers import PostgresServer, new_migrated_database
from tests.services.helpers.uvicorn_thread import local_server, start
from tests.services.web.conftest import run_async, web_app
from tests.services.web.seed_large import LONG_HANDS, SWISS_BOTS, SWISS_ROUNDS, Large, seed_large

LIMIT = 100 * 1024  # bytes of HTML, as the server sends it (uncompressed)


def _serve(url: str) -> tuple[uvicorn.Server, threading.Thread, str]:
    server = local_server(web_app(url), lifespan="auto")
    thread, port = start(server)
    return server, thread, f"http://127.0.0.1:{port}"


@pytest.fixture(scope="module")
def large(postgres_server: PostgresServer) -> Iterator[tuple[str, Large]]:
    """The large data in a database of its own, served by uvicorn: (base URL, ids).

    The database is a copy of the run's migrated template, dropped at the end of the run with
    the others (``tests/servers.py``): dropped here, mid-run, its DROP DATABASE waited for a
    checkpoint of every other worker's dirty buffers, 38 s of teardown in a full run."""
    with ThreadPoolExecutor(1) as pool:  # asyncio.run inside, off Playwright's loop
        url = pool.submit(new_migrated_database, postgres_server).result()
    data = run_async(seed_large(url))
    server, thread, base = _serve(url)
    try:
        yield base, data
    finally:
        server.should_exit = True
        thread.join(10)


def _weigh(page: Any, url: str) -> int:
    response = page.goto(url)
    assert response is not None and response.status == 200, url
    return len(response.body())


def test_pages_stay_under_100_kb_with_a_100_bot_swiss_and_a_30_hand_replay(
    large: tuple[str, Large], browser: Any
) -> None:
    base, data = large
    context = browser.new_context(base_url=base)
    try:
        page = context.new_page()
        weights: dict[str, int] = {}
        # the Swiss: every standing, one round's pairings and a link to each round
        weights["swiss"] = _weigh(page, f"/tournaments/{data.swiss_id}")
        assert page.locator("#standings tbody tr").count() == SWISS_BOTS
        picker = page.locator("#rounds nav.round-picker a")
        assert picker.count() == SWISS_ROUNDS
        assert page.locator("#rounds table.pairings tr").count() == SWISS_BOTS // 2
        for number in range(1, SWISS_ROUNDS + 1):
            weights[f"swiss round {number}"] = _weigh(
                page, f"/tournaments/{data.swiss_id}?round={number}"
            )
            assert page.locator("#rounds h3").inner_text().startswith(f"Round {number}")
            assert page.locator("#rounds table.pairings tr").count() == SWISS_BOTS // 2
        weights["bot"] = _weigh(page, f"/bots/{data.bot_id}")
        weights["home"] = _weigh(page, "/")
        # the long replay: its first step, and its last, where the score table has every hand
        assert data.long_hands >= LONG_HANDS
        weights["replay first step"] = _weigh(page, f"/matches/{data.long_match}")
        last = page.locator("#last").get_attribute("href")
        assert last is not None
        weights["replay last step"] = _weigh(page, last)
        assert page.locator("#hands tbody tr").count() == data.long_hands
        heavy = {name: size for name, size in weights.items() if size >= LIMIT}
        assert heavy == {}, weights
    finally:
        context.close()
