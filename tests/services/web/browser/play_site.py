"""What the ``/play`` browser tests share (``test_play_board.py``, ``test_play_table.py``): the
app on the run's API database with a house bot stored there, and Chromium. The fixtures are
module-scoped (``served`` and ``chromium`` by name): each test module that imports them gets
its own server and browser."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from typing import Any

import pytest

from services.db import play_matches as db_play
from services.db.pool import create_pool
from tests.services.helpers.api_helpers import settings as app_settings
from tests.services.helpers.flow_helpers import make_account, make_bot
from tests.services.helpers.sse_client import Served, serve
from tests.services.web.conftest import CHROMIUM, CHROMIUM_ARGS

sync_api = pytest.importorskip(
    "playwright.sync_api", reason="browser tests skipped: Playwright is not installed"
)


async def house_bot(url: str) -> int:
    """The house bot a person plays (stored once: the first house bot, or a new heuristic)."""
    pool = await create_pool(url, min_size=1, max_size=1)
    try:
        for bot in await db_play.house_bots(pool, house_account=None):
            return bot.id
        owner = await make_account(pool, "house-owner")
        return await make_bot(pool, owner, url="builtin:heuristic", prefix="house-heuristic")
    finally:
        await pool.close()


@pytest.fixture(scope="module", name="served")
def play_served(api_database_url: str) -> Iterator[Served]:
    asyncio.run(house_bot(api_database_url))
    with serve(app_settings(api_database_url)) as site:
        yield site


@pytest.fixture(scope="module", name="chromium")
def play_chromium(served: Served) -> Iterator[Any]:
    if not os.access(CHROMIUM, os.X_OK):
        pytest.skip(f"browser tests skipped: no Chromium at {CHROMIUM}")
    with sync_api.sync_playwright() as pw:
        try:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        except sync_api.Error as exc:
            pytest.skip(f"browser tests skipped: Chromium did not start: {exc}")
        try:
            yield browser
        finally:
            browser.close()
