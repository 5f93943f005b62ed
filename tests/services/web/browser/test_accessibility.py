"""Accessibility: axe-core finds no serious or critical violation on any page type, at desktop
and phone widths; cards have names a screen reader says; the replay works by keyboard alone."""

from __future__ import annotations

import re
from typing import Any

import pytest

from engine.events import HandStarted
from services.web.reference import REFERENCE_URL
from tests.services.web.accessibility import settle, violations_by_width
from tests.services.web.conftest import WebData
from tests.services.web.page_types import page_types

pytestmark = pytest.mark.slow  # run early (tests/slow_first.py)

pytest.importorskip(
    "axe_playwright_python", reason="accessibility tests skipped: axe-playwright-python missing"
)
expect = pytest.importorskip(
    "playwright.sync_api", reason="browser tests skipped: Playwright is not installed"
).expect


def test_no_serious_or_critical_violation_on_any_page_type(page: Any, web_data: WebData) -> None:
    found: dict[str, list[str]] = {}
    for name, url in page_types(web_data).items():
        response = page.goto(url)
        assert response is not None
        if name.startswith("error"):  # the browser logs the page's own status as an error
            page.wait_for_load_state("networkidle")
            page.errors[:] = [e for e in page.errors if str(response.status) not in e]
        if url == REFERENCE_URL:  # with one operation open, its parameters and answers
            page.locator("#operations-bots-listBots .opblock-summary-control").click()
            page.locator("#operations-bots-listBots .parameters").wait_for(timeout=20000)
        settle(page)
        for width, violations in violations_by_width(page).items():
            found[f"{name} at {width}px ({url})"] = violations
    assert found == {}, "\n".join(f"{k}:\n  " + "\n  ".join(v) for k, v in found.items())


SUITS = {"E": "espadas", "B": "bastos", "O": "oros", "C": "copas"}
NAMED_CARDS = {
    "1E": "ancho de espadas",
    "1B": "ancho de bastos",
    "7E": "siete de espadas",
    "7O": "siete de oros",
}  # the four cards players name rather than number


def test_cards_have_the_names_players_say(page: Any, web_data: WebData) -> None:
    s = web_data.seeded
    deal = next(e for e in s.replays[s.replay_match].games[0].events if isinstance(e, HandStarted))
    page.goto(f"/matches/{s.replay_match}?game=1&step=0&view=all")
    for seat, cards in enumerate(deal.deal):
        hand = page.locator(f"#seat-{seat} .hand")
        names = [NAMED_CARDS.get(card, f"{card[:-1]} de {SUITS[card[-1]]}") for card in cards]
        for name in names:
            assert hand.get_by_role("img", name=name, exact=True).count() == 1, name
    page.goto(f"/matches/{s.replay_match}?game=1&step=0&view=seat0")
    assert page.locator("#seat-1 .hand").get_by_role("img", name="hidden card").count() == 3


def test_the_replay_works_by_keyboard_alone(page: Any, web_data: WebData) -> None:
    s = web_data.seeded
    page.goto(f"/matches/{s.replay_match}?game=1&step=0")
    counter = page.locator("#step-count")
    assert counter.inner_text().startswith("1 / ")
    page.keyboard.press("ArrowRight")  # the shortcut
    expect(counter).to_have_text(re.compile(r"^2 / "))
    page.keyboard.press("ArrowLeft")
    expect(counter).to_have_text(re.compile(r"^1 / "))
    # Tab through the page to the "next" link, Enter follows it; the focus is visible
    for _ in range(80):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.id") == "next":
            break
    assert page.evaluate("document.activeElement.id") == "next"
    outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert outline not in ("", "none")
    page.keyboard.press("Enter")
    expect(counter).to_have_text(re.compile(r"^2 / "))
    # the timeline's steps and the game and view tabs are links too: reachable and followed
    for _ in range(120):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.closest('#timeline li') !== null"):
            break
    item = page.evaluate("document.activeElement.getAttribute('href')")
    assert item and "step=" in item
    page.keyboard.press("Enter")
    page.wait_for_url(f"**{item.replace('&amp;', '&')}")
