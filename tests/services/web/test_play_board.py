"""``/play`` in a real browser (Chromium through Playwright) at 390 px, in Spanish: the form
starts a match against the house heuristic, and the board is played by keyboard alone (Tab to
a button, Enter; the keys 1-3 for cards) until the match is over; the cards are named as the
replay names them. The app runs on its own database (a house bot stored there) on 127.0.0.1.
Skipped, with the reason, without a browser."""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Iterator
from typing import Any

import pytest

from services.db import play_matches as db_play
from services.db.pool import create_pool
from tests.services.helpers.api_helpers import settings as app_settings
from tests.services.helpers.flow_helpers import make_account, make_bot
from tests.services.helpers.sse_client import Served, serve
from tests.services.web.accessibility import violations_by_width
from tests.services.web.conftest import CHROMIUM, CHROMIUM_ARGS
from tests.services.web.waits import eventually

sync_api = pytest.importorskip(
    "playwright.sync_api", reason="browser tests skipped: Playwright is not installed"
)
CARD_NAME = re.compile(
    r"(ancho de (espadas|bastos)|siete de (espadas|oros)|\d+ de (espadas|bastos|oros|copas))"
)


async def _house(url: str) -> int:
    pool = await create_pool(url, min_size=1, max_size=1)
    try:
        for bot in await db_play.house_bots(pool, house_account=None):
            return bot.id
        owner = await make_account(pool, "house-owner")
        return await make_bot(pool, owner, url="builtin:heuristic", prefix="house-heuristic")
    finally:
        await pool.close()


@pytest.fixture(scope="module")
def served(api_database_url: str) -> Iterator[Served]:
    asyncio.run(_house(api_database_url))
    with serve(app_settings(api_database_url)) as served:
        yield served


@pytest.fixture(scope="module")
def chromium(served: Served) -> Iterator[Any]:
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


def _focused(page: Any) -> str:
    return str(
        page.evaluate(
            "() => document.activeElement ? "
            "document.activeElement.id || document.activeElement.className : ''"
        )
    )


def test_a_whole_match_by_keyboard_at_390_px_in_spanish(chromium: Any, served: Served) -> None:
    context = chromium.new_context(
        viewport={"width": 390, "height": 844}, base_url=served.base, locale="es-AR"
    )
    try:
        page = context.new_page()
        page.goto("/play?lang=es")
        sync_api.expect(page.locator("h1")).to_have_text("Jugá contra un bot")
        # the form by keyboard: focus the opponent, Tab to the submit button, Enter
        page.locator("#play-bot").focus()
        for _ in range(10):
            page.keyboard.press("Tab")
            if page.evaluate("() => document.activeElement.type") == "submit":
                break
        page.keyboard.press("Enter")
        page.wait_for_url(re.compile(r".*/play/\d+$"), timeout=20_000)
        board = page.locator("#board")
        sync_api.expect(board).to_be_visible()
        decisions = 0
        named: set[str] = set()
        answered = ""
        for _ in range(400):
            eventually(
                page,
                "(last) => document.querySelector('#end').textContent.trim() !== '' || "
                "(document.querySelector('#board').dataset.turn || '') !== '' && "
                "document.querySelector('#board').dataset.turn !== last",
                answered,
            )
            if page.locator("#end").inner_text().strip():
                break
            answered = board.get_attribute("data-turn") or ""
            hand = page.locator("#hand button")
            named.update(hand.all_inner_texts())
            playable = [i for i in range(hand.count()) if not hand.nth(i).is_disabled()]
            if playable and decisions % 2 == 0:
                page.keyboard.press(str(playable[0] + 1))
            else:
                # Tab from the page's top to the first enabled choice, then Enter
                page.locator("h1").focus()
                for _ in range(30):
                    page.keyboard.press("Tab")
                    if "play-choice" in _focused(page):
                        break
                page.keyboard.press("Enter")
            decisions += 1
        end = page.locator("#end").inner_text()
        assert re.search(r"(Ganaste|Perdiste|sin ganador)", end), end
        assert decisions > 0
        assert named and all(CARD_NAME.search(label) for label in named), named
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
        assert page.get_by_role("link", name="Ver la repetición").count() == 1
    finally:
        context.close()


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
        assert " & Vos vs " in page.locator("#opponent").inner_text()  # partner & you vs bot
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
        eventually(page, "(t) => document.querySelector('#board').dataset.turn !== t", turn)
        page.locator("#leave").focus()
        page.keyboard.press("Enter")
        sync_api.expect(page.locator("#end")).not_to_be_empty(timeout=30_000)
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
