"""The language switch in a real browser (Debian's Chromium through Playwright): a browser set
to Argentine Spanish gets the pages in Spanish, the switch on the page changes the language,
and the choice sticks (a cookie) on the next pages, over the browser's own preference; axe-core
finds no serious or critical violation on any page type in Spanish. Skipped, with the reason,
without a browser."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.services.web.conftest import WebData, error_free_page, shot

pytestmark = pytest.mark.slow  # run early (tests/slow_first.py)

pytest.importorskip(
    "playwright.sync_api", reason="browser tests skipped: Playwright is not installed"
)


@pytest.fixture
def spanish(browser: Any, live_server: str) -> Iterator[Any]:
    """A page in a browser whose language is es-AR (its Accept-Language header)."""
    with error_free_page(
        browser, live_server, viewport={"width": 1280, "height": 900}, locale="es-AR"
    ) as page:
        yield page


def html_lang(page: Any) -> str:
    return str(page.evaluate("document.documentElement.lang"))


def test_a_spanish_browser_gets_spanish_and_the_switch_sticks(
    spanish: Any, web_data: WebData
) -> None:
    s = web_data.seeded
    spanish.goto("/")
    assert html_lang(spanish) == "es-AR"
    assert spanish.locator("h1").first.inner_text() == "Tablas de posiciones"
    switch = spanish.get_by_role("navigation", name="Idioma")
    assert switch.get_by_role("link", name="Español").get_attribute("aria-current") == "true"
    shot(spanish, "home-es")

    spanish.goto(f"/tournaments/{s.swiss_id}")
    assert spanish.locator("#standings h2").inner_text() == "Posiciones"
    # the switch: English, on this same page
    spanish.get_by_role("navigation", name="Idioma").get_by_role("link", name="English").click()
    spanish.wait_for_url(f"**/tournaments/{s.swiss_id}?lang=en")
    assert html_lang(spanish) == "en"
    assert spanish.locator("#standings h2").inner_text() == "Standings"
    cookies = {c["name"]: c["value"] for c in spanish.context.cookies()}
    assert cookies.get("lang") == "en"
    # the next page, asked for by a browser that prefers Spanish, stays in English
    spanish.get_by_role("link", name="El Ancho").first.click()
    spanish.wait_for_url(f"**/bots/{s.bots['El Ancho']}")
    assert html_lang(spanish) == "en"
    assert spanish.locator("#matches h2").inner_text() == "Recent matches"
    # and back to Spanish from the bot's page
    spanish.get_by_role("navigation", name="Language").get_by_role("link", name="Español").click()
    spanish.wait_for_url("**?lang=es")
    assert html_lang(spanish) == "es-AR"
    spanish.goto(f"/matches/{s.replay_match}?game=1&step=6")
    assert html_lang(spanish) == "es-AR"
    assert spanish.locator("#hands h2").inner_text() == "Puntos por mano"
    names = spanish.locator("svg.card[data-card]").evaluate_all(
        "cards => cards.map(c => c.getAttribute('aria-label'))"
    )
    assert names and all(" de " in n for n in names), names  # "ancho de espadas", "4 de copas"
    shot(spanish, "replay-es")


def test_no_serious_or_critical_violation_in_spanish(spanish: Any, web_data: WebData) -> None:
    """axe-core on every page type in Spanish (the English pass is test_accessibility.py)."""
    pytest.importorskip("axe_playwright_python", reason="axe-playwright-python missing")
    from tests.services.web.accessibility import settle, violations_by_width
    from tests.services.web.page_types import page_types

    found: dict[str, list[str]] = {}
    for name, url in page_types(web_data).items():
        spanish.goto(url)
        settle(spanish)
        assert html_lang(spanish) == "es-AR", url
        for width, violations in violations_by_width(spanish).items():
            found[f"{name} at {width}px ({url})"] = violations
    assert found == {}, "\n".join(f"{k}:\n  " + "\n  ".join(v) for k, v in found.items())
