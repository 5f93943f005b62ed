"""The ladder pages on a ladder really played (tests/services/web/ladder_seed.py, a database of its
own): ``/ladders/{pool}`` shows the API's table (rank, bot, owner, rating and interval, LOS,
matches, placement, paused, playing) and today's seed commitment, in English and Spanish, at a
phone's and a desktop's width with no horizontal scroll and no serious axe violation; a bot's
page has its ladder section; the nav links the
ladders; an unknown ladder is a 404 page, not an error."""

from __future__ import annotations

import asyncio
import html
import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.servers import (
    PostgresServer,
    new_migrated_database,
)
from tests.services.helpers.uvicorn_thread import serving
from tests.services.web.accessibility import WIDTHS, blocking_violations
from tests.services.web.conftest import web_app
from tests.services.web.ladder_seed import LadderSeed, seed_ladder


class Site:
    def __init__(self, base: str, seeded: LadderSeed) -> None:
        self.base = base
        self.seeded = seeded

    def get(self, path: str, lang: str = "en") -> httpx.Response:
        return httpx.get(self.base + path, params={"lang": lang}, timeout=30)

    def api(self, path: str) -> Any:
        response = httpx.get(self.base + path, timeout=30)
        assert response.status_code == 200, response.text
        return response.json()


@pytest.fixture(scope="module")
def ladder_site(postgres_server: PostgresServer) -> Iterator[Site]:
    url = new_migrated_database(postgres_server)  # a template's copy, dropped with the others
    seeded = asyncio.run(seed_ladder(url))
    with serving(web_app(url), lifespan="auto") as base:
        yield Site(base, seeded)


@pytest.fixture(scope="module")
def live_server(ladder_site: Site) -> str:
    """The browser fixtures (tests/services/web/conftest.py) on this module's site."""
    return ladder_site.base


WIDE = (
    "[...document.querySelectorAll('body *')]"
    ".filter(e => e.getBoundingClientRect().right > document.documentElement.clientWidth)"
    ".slice(0, 6).map(e => e.tagName + '.' + e.className)"
)


def text(response: httpx.Response) -> str:
    assert response.status_code == 200, response.text[:500]
    return html.unescape(re.sub(r"[ \t\r\n]+", " ", response.text))


def rows(page: str) -> dict[int, str]:
    table = page.split('<table class="board ladder', 1)[1].split("</table>", 1)[0]
    return {
        int(bot): row
        for bot, row in re.findall(
            r'<tr class="ladder-row[^"]*" data-bot="(\d+)">(.*?)</tr>', table
        )
    }


def test_the_table_shows_the_api_s_figures(ladder_site: Site) -> None:
    ladder = ladder_site.api("/v1/ladders/1v1")
    assert len(ladder["entries"]) == 8 and ladder["commitment"]
    page = text(ladder_site.get("/ladders/1v1"))
    shown = rows(page)
    assert list(shown) == [e["bot_id"] for e in ladder["entries"]]  # the API's order
    placing = 0
    for entry in ladder["entries"]:
        row = shown[entry["bot_id"]]
        assert f'href="/bots/{entry["bot_id"]}">{entry["name"]}</a>' in row
        assert f"by {entry['owner']}" in row
        assert f'<td class="num rank">{entry["rank"]}</td>' in row
        low, high = entry["interval"]
        assert f">{round(entry['rating'])}<br>" in row and f"{round(low)} to {round(high)}" in row
        assert re.search(rf'<td class="num matches"[^>]*>{entry["matches"]}</td>', row)
        placement = entry["placement"]
        if placement["state"] == "placing":
            placing += 1
            words = f"placement: {placement['matches']} of about {placement['about']} matches"
            assert words in row
        assert ("paused" in row) == entry["paused"]
        if entry["los_next"] is not None:
            assert re.search(r'<td class="num los"[^>]*>(&gt;|&lt;|>|<)?\d+(\.\d)?%</td>', row)
    assert placing, "ten ticks leave bots still placing"
    assert shown[ladder_site.seeded.paused].count('class="flag paused-flag"') == 1
    # today's commitment, and where to read how the ladder works
    assert ladder["commitment"] in page and "docs/ladder.md" in page
    assert 'href="/v1/ladders/1v1"' in page
    # the pause's cause is its owner's (the API shows it with their key only)
    assert "connection refused" not in page


def test_the_table_in_spanish(ladder_site: Site) -> None:
    ladder = ladder_site.api("/v1/ladders/1v1")
    page = text(ladder_site.get("/ladders/1v1", "es"))
    assert "<h1>Escalera 1v1</h1>" in page and "Tabla" in page
    shown = rows(page)
    for entry in ladder["entries"]:
        row = shown[entry["bot_id"]]
        if entry["placement"]["state"] == "placing":
            p = entry["placement"]
            assert f"en ubicación: {p['matches']} de unos {p['about']} partidos" in row
        if entry["los_next"] is not None and 0.01 <= entry["los_next"] <= 0.99:
            assert f"{round(100 * entry['los_next'])}\u00a0%" in row  # "97 %": CLDR's Spanish
        low, high = entry["interval"]
        assert f"{round(low)} a {round(high)}" in row
    assert "en pausa" in shown[ladder_site.seeded.paused]
    # the footnote names the column as the column does (it said "LOS" under a column "PS")
    assert "PS: la probabilidad" in page and "LOS" not in page
    assert "Semilla de hoy" in page and "Su hash:" in page


def test_a_ladder_waiting_for_its_first_match(ladder_site: Site) -> None:
    page = text(ladder_site.get("/ladders/2v2-individual"))
    row = rows(page)[ladder_site.seeded.waiting]
    assert "waiting for its first match" in row and '<td class="num rank">–</td>' in row
    assert "No ladder match yet on" in page  # no commitment before the day's first match
    page = text(ladder_site.get("/ladders/2v2-individual", "es"))
    assert "esperando su primer partido" in rows(page)[ladder_site.seeded.waiting]


def test_an_unknown_ladder_is_a_404_page(ladder_site: Site) -> None:
    for name in ("2v2", "x" * 40, "%3Cscript%3E"):
        response = ladder_site.get(f"/ladders/{name}")
        assert response.status_code in (400, 404), response.status_code
        assert "<script>" not in response.text and "Traceback" not in response.text
    assert "There is no ladder 2v2" in html.unescape(ladder_site.get("/ladders/2v2").text)


def test_the_bot_page_has_its_ladder_section(ladder_site: Site) -> None:
    ladder = ladder_site.api("/v1/ladders/1v1")
    for entry in ladder["entries"][:1] + [
        e for e in ladder["entries"] if e["bot_id"] == ladder_site.seeded.paused
    ]:
        page = text(ladder_site.get(f"/bots/{entry['bot_id']}"))
        section = page.split('<section class="panel" id="ladders">', 1)[1].split("</section>")[0]
        assert 'href="/ladders/1v1">1v1</a>' in section
        assert f"{entry['rank']} of 8" in section
        assert ("paused" in section) == entry["paused"]
    page = text(ladder_site.get(f"/bots/{ladder_site.seeded.waiting}", "es"))
    assert "Escaleras" in page and "esperando su primer partido" in page
    # a bot on no ladder has no section
    other = text(ladder_site.get("/ladders/1v1"))
    assert 'href="/ladders/1v1">Ladders</a>' in other  # the nav


@pytest.mark.parametrize("lang", ["en", "es"])
def test_the_ladder_page_in_a_browser(browser: Any, ladder_site: Site, lang: str) -> None:
    context = browser.new_context(
        base_url=ladder_site.base, locale="es-AR" if lang == "es" else "en"
    )
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        for path in (
            "/ladders/1v1",
            "/ladders/2v2-individual",
            f"/bots/{ladder_site.seeded.bots[0]}",
        ):
            for width in WIDTHS:
                page.set_viewport_size({"width": width, "height": 900})
                page.goto(f"{path}?lang={lang}")
                overflow = page.evaluate(
                    "document.documentElement.scrollWidth - document.documentElement.clientWidth"
                )
                if path.startswith("/bots/"):
                    # the ladder section itself fits (the whole page too, below)
                    box = page.locator("#ladders").bounding_box()
                    assert box is not None and box["x"] + box["width"] <= width, (path, width)
                wide = page.evaluate(WIDE)
                assert overflow <= 0, (
                    f"{wide} {path} at {width} px scrolls sideways by {overflow} px"
                )
                assert blocking_violations(page) == [], (path, width)
                if path == "/ladders/1v1":
                    table = page.locator("table.ladder")
                    assert table.is_visible()
                    first = page.locator("tr.ladder-row").first
                    for cell in ("td.rank", "td.rating", "td.los", "td.matches", "td.placement"):
                        assert first.locator(cell).is_visible(), (cell, width)
                    assert page.locator("code.commitment").is_visible()
        nav = page.get_by_role("link", name="Escaleras" if lang == "es" else "Ladders")
        assert nav.first.get_attribute("href") == "/ladders/1v1"
    finally:
        context.close()
    assert errors == []
