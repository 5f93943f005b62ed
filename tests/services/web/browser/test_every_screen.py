"""Every page type, in every mode, at 320, 390, 768 and 1280 px, in English and Spanish, in
Chromium: the page is never wider than the screen, every bot name outside a bracket can be seen
without scrolling sideways, no score is hidden or cut, and no text is under 11 px
(:mod:`tests.services.web.fit`). One browser and one tab: each page is loaded once per language and
measured at each width. Skipped, with the reason, without a browser."""

from __future__ import annotations

from typing import Any

import pytest

from tests.services.web.conftest import WebData
from tests.services.web.fit import problems
from tests.services.web.page_types import every_page
from tests.services.web.waits import eventually

pytest.importorskip("playwright.sync_api", reason="browser tests skipped: Playwright is missing")

WIDTHS = (320, 390, 768, 1280)
LANGUAGES = ("en", "es")


def _with_lang(url: str, lang: str) -> str:
    return f"{url}{'&' if '?' in url else '?'}lang={lang}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_page_fits_every_screen(
    browser: Any, live_server: str, web_data: WebData, lang: str
) -> None:
    context = browser.new_context(
        viewport={"width": WIDTHS[-1], "height": 900}, base_url=live_server
    )
    found: dict[str, list[str]] = {}
    try:
        page = context.new_page()
        for name, url in every_page(web_data).items():
            response = page.goto(_with_lang(url, lang))
            assert response is not None
            assert response.status == (404 if name.startswith("error") else 200), (name, url)
            for width in WIDTHS:
                page.set_viewport_size({"width": width, "height": 900})
                if lines := problems(page):
                    found[f"{name} at {width} px ({url})"] = lines
            page.set_viewport_size({"width": WIDTHS[-1], "height": 900})
    finally:
        context.close()
    assert found == {}, "\n".join(f"{k}:\n  " + "\n  ".join(v) for k, v in found.items())


def test_the_check_finds_what_it_looks_for(browser: Any, live_server: str) -> None:
    """The checks fail where they should: a page wider than the screen, a bot name scrolled out
    of view, a score inside a shortened box, text under 11 px."""
    context = browser.new_context(viewport={"width": 390, "height": 900}, base_url=live_server)
    try:
        page = context.new_page()
        page.goto("/no/such/page")  # any page of the site, then its body replaced
        page.evaluate(  # styles set through the CSSOM: the page's CSP forbids style attributes
            """() => {
            const main = document.querySelector('main');
            main.replaceChildren();
            const add = (parent, tag, css, text, cls) => {
                const el = document.createElement(tag);
                Object.assign(el.style, css);
                if (text) el.textContent = text;
                if (cls) el.className = cls;
                parent.appendChild(el);
                return el;
            };
            add(main, 'div', {width: '600px'}, 'wide');
            const box = add(main, 'div', {overflowX: 'auto', width: '200px'});
            const inner = add(box, 'div', {width: '900px'});
            add(inner, 'span', {marginLeft: '500px'}, 'far-away-bot', 'bot');
            const name = add(main, 'span', {display: 'inline-block', width: '30px',
                overflow: 'hidden', whiteSpace: 'nowrap'}, 'a long name ');
            add(name, 'strong', {}, '15').setAttribute('data-score', '');
            add(main, 'p', {fontSize: '9px'}, 'tiny');
            }"""
        )
        found = "\n".join(problems(page))
    finally:
        context.close()
    assert "page is 6" in found
    assert 'bot name off screen or cut: <span class="bot"> "far-away-bot"' in found
    assert 'score hidden or cut: <strong class=""> "15"' in found
    assert 'text 9.0 px: <p class=""> "tiny"' in found


def test_a_crosstable_wider_than_a_phone_says_it_scrolls(
    browser: Any, live_server: str, web_data: WebData
) -> None:
    context = browser.new_context(viewport={"width": 320, "height": 900}, base_url=live_server)
    try:
        page = context.new_page()
        page.goto(f"/tournaments/{web_data.seeded.faults_id}")  # eight bots: a wide matrix
        hint = page.locator("#crosstable .scroll-hint")
        assert hint.is_visible() and "Scroll sideways" in hint.inner_text()
        page.set_viewport_size({"width": 1280, "height": 900})
        eventually(page, "!document.querySelector('#crosstable.overflows')")
        assert not hint.is_visible()  # it fits: no hint
    finally:
        context.close()
