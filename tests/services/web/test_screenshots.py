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
