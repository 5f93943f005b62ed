"""``make screenshots``: every page type at 1280 and 390 px, full length, into ``screenshots/``
(git-ignored), so a reviewer can look at the pages without running the platform. Marked
``screenshots``: not part of ``make test``."""

from __future__ import annotations

import re
from typing import Any

import pytest

from services.web.reference import REFERENCE_URL
from tests.services.web.conftest import SCREENSHOTS, WebData
from tests.services.web.page_types import page_types

pytestmark = pytest.mark.screenshots
WIDTHS = (1280, 390)


def file_name(name: str, width: int) -> str:
    return f"{re.sub(r'[^a-z0-9]+', '-', name.lower()).strip('-')}-{width}.png"


def test_screenshots_of_every_page_type(browser: Any, live_server: str, web_data: WebData) -> None:
    SCREENSHOTS.mkdir(exist_ok=True)
    written = []
    for width in WIDTHS:
        context = browser.new_context(
            viewport={"width": width, "height": 900}, base_url=live_server, is_mobile=width < 800
        )
        try:
            page = context.new_page()
            for name, url in page_types(web_data).items():
                page.goto(url)
                if url == REFERENCE_URL:
                    page.locator("#swagger-ui .opblock").first.wait_for(timeout=20000)
                page.wait_for_load_state("networkidle")
                path = SCREENSHOTS / file_name(name, width)
                page.screenshot(path=str(path), full_page=True)
                written.append(path)
        finally:
            context.close()
    assert all(p.stat().st_size > 5000 for p in written), written  # real images, not blanks


TABLE_WIDTHS = (320, 390, 1280)


def _house_bot(url: str) -> None:
    import asyncio

    from services.db import play_matches as db_play
    from services.db.pool import create_pool
    from tests.services.helpers.flow_helpers import make_account, make_bot

    async def make() -> None:
        pool = await create_pool(url, min_size=1, max_size=1)
        try:
            if not await db_play.house_bots(pool, house_account=None):
                owner = await make_account(pool, "house-owner")
                await make_bot(pool, owner, url="builtin:heuristic", prefix="house-heuristic")
        finally:
            await pool.close()

    asyncio.run(make())


def _shoot(page: Any, moment: str, lang: str, mode: str) -> list[Any]:
    """The page now at each width of :data:`TABLE_WIDTHS` (the page is left at 390 px)."""
    written = []
    for width in TABLE_WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        path = SCREENSHOTS / f"play-table-{mode}-{moment}-{lang}-{width}.png"
        page.screenshot(path=str(path), full_page=True)
        written.append(path)
    page.set_viewport_size({"width": 390, "height": 900})
    return written


def _play_and_shoot(page: Any, lang: str, players: int) -> list[Any]:
    """A match at /play in ``lang``, photographed with a hand in progress (cards on the felt,
    the person to act), at a hand's summary and at the end of the game."""
    from tests.services.web.waits import eventually

    mode = "1v1" if players == 2 else "2v2"
    page.goto(f"/play?lang={lang}")
    page.locator(f"input[name=players][value='{players}']").check()
    page.locator("#play-start").click()
    page.wait_for_url(re.compile(r".*/play/\d+$"), timeout=20_000)
    written: list[Any] = []
    shot = {"hand": False, "summary": False}
    last = ""
    for _ in range(1500):
        eventually(
            page,
            "(last) => !document.querySelector('#continue-box').hidden || "
            "document.querySelector('#end').textContent.trim() !== '' || "
            "((document.querySelector('#board').dataset.turn || '') !== '' && "
            "document.querySelector('#board').dataset.turn !== last)",
            last,
            timeout_ms=600_000,
        )
        if page.locator("#end").inner_text().strip():
            break
        if page.locator("#continue-box").is_visible():
            if not shot["summary"]:
                written += _shoot(page, "hand-summary", lang, mode)
                shot["summary"] = True
            page.locator("#continue").click()
            continue
        last = page.locator("#board").get_attribute("data-turn") or ""
        if not shot["hand"] and page.locator("#felt svg.card").count() >= 1:
            written += _shoot(page, "hand-in-progress", lang, mode)
            shot["hand"] = True
        cards = page.locator("#hand button:not([disabled])")
        if cards.count():
            cards.first.click()
        else:
            calls = page.locator("#calls button")
            words = calls.all_inner_texts()
            pick = next((i for i, w in enumerate(words) if w not in ("Mazo",)), 0)
            calls.nth(pick).click()
    written += _shoot(page, "end-of-game", lang, mode)
    return written


def test_screenshots_of_the_play_table(api_database_url: str) -> None:
    """The play table at 320, 390 and 1280 px in both languages: a hand in progress, a hand's
    summary, the end of a game (1v1; and a 2v2 in Spanish)."""
    import os

    from playwright.sync_api import sync_playwright

    from tests.services.helpers.api_helpers import settings as app_settings
    from tests.services.helpers.sse_client import serve
    from tests.services.web.conftest import CHROMIUM, CHROMIUM_ARGS

    if not os.access(CHROMIUM, os.X_OK):
        pytest.skip(f"no Chromium at {CHROMIUM}")
    _house_bot(api_database_url)
    SCREENSHOTS.mkdir(exist_ok=True)
    written = []
    with serve(app_settings(api_database_url)) as served, sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            for lang, players in (("en", 2), ("es", 2), ("es", 4)):
                context = chromium.new_context(
                    viewport={"width": 390, "height": 900}, base_url=served.base
                )
                try:
                    written += _play_and_shoot(context.new_page(), lang, players)
                finally:
                    context.close()
        finally:
            chromium.close()
    assert len(written) == 3 * 3 * 3
    assert all(p.stat().st_size > 5000 for p in written), written
