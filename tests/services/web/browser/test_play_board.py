"""``/play``'s table in a real browser (Chromium through Playwright): a 2v2 in play is axe
clean, a seña chosen by keyboard goes with the next card and is said, leaving forfeits; a page
opened again in mid-game (a reload) shows the hand in play at once, and a browser without
EventSource follows the session by long polls; a page without the session's token says so.
Whole games by keyboard: ``test_play_table.py``. The app runs on its own database (a house bot
stored there) on 127.0.0.1. Skipped, with the reason, without a browser."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.services.helpers.sse_client import Served
from tests.services.web.accessibility import violations_by_width
from tests.services.web.browser.play_site import (  # noqa: F401 - the module's fixtures
    play_chromium,
    play_served,
)
from tests.services.web.waits import eventually

sync_api = pytest.importorskip(
    "playwright.sync_api", reason="browser tests skipped: Playwright is not installed"
)
CARD_NAME = re.compile(
    r"(ancho de (espadas|bastos)|siete de (espadas|oros)|\d+ de (espadas|bastos|oros|copas))"
)


def _focused(page: Any) -> str:
    return str(
        page.evaluate(
            "() => document.activeElement ? "
            "document.activeElement.id || document.activeElement.className : ''"
        )
    )


def test_the_board_without_a_token_says_so(chromium: Any, served: Served) -> None:
    context = chromium.new_context(viewport={"width": 390, "height": 844}, base_url=served.base)
    try:
        page = context.new_page()
        page.goto("/play/1?lang=en")
        sync_api.expect(page.locator("#status")).to_contain_text("another browser")
    finally:
        context.close()


def test_a_2v2_with_a_sena_by_keyboard(chromium: Any, served: Served) -> None:
    """The 2v2 table: the seña buttons show, axe-core finds nothing serious on the board in
    play; a seña chosen by keyboard goes with the next card
    (the replay has it on the person's action); leaving by keyboard ends the match."""
    context = chromium.new_context(viewport={"width": 390, "height": 844}, base_url=served.base)
    try:
        page = context.new_page()
        page.goto("/play?lang=es")
        page.locator("input[name=players][value='2']").focus()
        page.keyboard.press("ArrowRight")  # the radio group: 2v2
        assert page.locator("input[name=players][value='4']").is_checked()
        page.locator("#play-form button[type=submit]").focus()
        page.keyboard.press("Enter")
        page.wait_for_url(re.compile(r".*/play/\d+$"), timeout=20_000)
        play_id = page.url.rsplit("/", 1)[1]
        eventually(page, "(document.querySelector('#board').dataset.turn || '') !== ''")
        sync_api.expect(page.locator("#senas-box")).to_be_visible()
        # the person and the partner against the two rivals, told apart
        assert re.fullmatch(
            r"Vos & \S+ \(compañero\) contra \S+ \(1\) & \S+ \(2\)",
            page.locator("#opponent").inner_text(),
        )
        # axe-core on the board in play: cards, calls and señas shown, at 1280 and 390 px
        assert violations_by_width(page) == {}
        page.set_viewport_size({"width": 390, "height": 844})
        page.get_by_role("button", name="un tres", exact=True).focus()
        page.keyboard.press("Enter")
        assert (
            page.get_by_role("button", name="un tres", exact=True).get_attribute("aria-pressed")
            == "true"
        )
        turn = page.locator("#board").get_attribute("data-turn")
        hand = page.locator("#hand button")
        playable = [i for i in range(hand.count()) if not hand.nth(i).is_disabled()]
        if playable:
            page.keyboard.press(str(playable[0] + 1))
        else:
            page.locator("#calls button").first.focus()
            page.keyboard.press("Enter")
        # the person's action is said on the table, with its seña
        eventually(
            page, "document.querySelector('#timeline').textContent.includes('con seña: un tres')"
        )
        eventually(page, "(t) => document.querySelector('#board').dataset.turn !== t", turn)
        page.locator("#leave").focus()
        page.keyboard.press("Enter")
        sync_api.expect(page.locator("#end")).not_to_be_empty(timeout=30_000)
        assert "Perdiste" in page.locator("#end").inner_text()
        assert page.get_by_role("link", name="Jugar otra vez").count() == 1
        replay = page.request.get(f"/v1/play/{play_id}/replay").json()
        game = replay["games"][0]
        seat = game["seats"].index(0)
        senas = [
            e["sena"]
            for e in game["events"]
            if e.get("type") == "action" and e["seat"] == seat and e.get("sena")
        ]
        assert senas[:1] == ["tres"], senas
    finally:
        context.close()


def _start(page: Any) -> str:
    page.goto("/play?lang=es")
    page.locator("#play-start").focus()
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r".*/play/\d+$"), timeout=20_000)
    return str(page.url.rsplit("/", 1)[1])


def _my_turn(page: Any) -> None:
    eventually(page, "(document.querySelector('#board').dataset.turn || '') !== ''")


def test_a_page_opened_again_shows_the_hand_in_play(chromium: Any, served: Served) -> None:
    context = chromium.new_context(viewport={"width": 390, "height": 844}, base_url=served.base)
    try:
        page = context.new_page()
        _start(page)
        _my_turn(page)
        page.keyboard.press("1")  # a card to the felt
        eventually(page, "document.querySelectorAll('#felt svg.card').length > 0")
        _my_turn(page)
        felt = sorted(
            page.eval_on_selector_all("#felt svg.card", "ns => ns.map(n => n.dataset.card)")
        )
        mine = page.eval_on_selector_all("#hand button", "ns => ns.map(n => n.dataset.card)")
        page.reload()
        _my_turn(page)
        again = page.eval_on_selector_all("#felt svg.card", "ns => ns.map(n => n.dataset.card)")
        assert sorted(again) == felt
        assert (
            page.eval_on_selector_all("#hand button", "ns => ns.map(n => n.dataset.card)") == mine
        )
        assert page.locator("#timeline li").count() > 1  # the hand so far, from its deal
        page.locator("#leave").click()
        sync_api.expect(page.locator("#end")).not_to_be_empty(timeout=30_000)
    finally:
        context.close()


def test_without_eventsource_the_table_follows_by_long_polls(chromium: Any, served: Served) -> None:
    context = chromium.new_context(
        viewport={"width": 1280, "height": 900}, base_url=served.base, locale="en-US"
    )
    context.add_init_script("delete window.EventSource;")
    try:
        page = context.new_page()
        _start(page)
        _my_turn(page)
        page.keyboard.press("1")
        # the person's card, and what came after it, told on the table
        eventually(page, "document.querySelector('#timeline').textContent.includes('Jugaste el')")
        eventually(page, "document.querySelectorAll('#felt svg.card').length > 0")
        page.locator("#leave").click()
        sync_api.expect(page.locator("#end")).not_to_be_empty(timeout=30_000)
    finally:
        context.close()


TABLE_PAGE_LIMIT = 100 * 1024
"""The play table's page: its HTML, stylesheet, scripts and icon, uncompressed (issue 35)."""


def test_the_table_page_weighs_under_100_kb(chromium: Any, served: Served) -> None:
    context = chromium.new_context(viewport={"width": 390, "height": 844}, base_url=served.base)
    try:
        page = context.new_page()
        _start(page)
        _my_turn(page)
        weights: dict[str, int] = {}
        kinds = {"document", "script", "stylesheet", "image"}

        def weigh(response: Any) -> None:
            if response.request.resource_type in kinds and "/v1/" not in response.url:
                weights[response.url] = len(response.body())

        page.on("response", weigh)
        page.reload(wait_until="load")
        _my_turn(page)
        assert any(url.endswith("/static/table.js") for url in weights), weights
        assert sum(weights.values()) < TABLE_PAGE_LIMIT, weights
        page.locator("#leave").click()
        sync_api.expect(page.locator("#end")).not_to_be_empty(timeout=30_000)
    finally:
        context.close()
