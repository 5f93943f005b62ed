"""Moderation on the pages, on a database of its own: a disqualified bot's page says so (in
English and Spanish) with the moderators' actions (what, why, when; never an old name); every
bot page has a report form that works without JavaScript (sent, already waiting, refused past
the address's budget, invalid); the pages hold from 320 to 1280 px with no horizontal scroll
and no serious axe violation."""

from __future__ import annotations

import asyncio
import html
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from services.base.config import (
    DatabaseSettings,
    ModerationSettings,
    RateLimits,
    Secret,
    SecretSettings,
    Settings,
)
from services.db.pool import create_pool
from services.flow import moderation as flow
from services.launch.app import create_app
from tests.servers import (
    PostgresServer,
    new_migrated_database,
)
from tests.services.api.test_admin_api import play_ladder
from tests.services.helpers.uvicorn_thread import serving
from tests.services.web.accessibility import blocking_violations

WIDTHS = (1280, 390, 320)
WIDE = (
    "[...document.querySelectorAll('body *')]"
    ".filter(e => e.getBoundingClientRect().right > document.documentElement.clientWidth)"
    ".slice(0, 6).map(e => e.tagName + '.' + e.className)"
)
OLD_NAME = "rude-name-visible-nowhere"


@dataclass(frozen=True)
class Seed:
    disqualified: int
    renamed: int
    plain: int


async def seed(url: str) -> Seed:
    pool = await create_pool(url, min_size=1, max_size=4)
    try:
        bots = await play_ladder(pool, bots=4, ticks=4)
        admin = flow.Actor(None, "server:test@host")
        await flow.disqualify_bot(pool, bots[0], admin, "it conceded to its twin on the ladder")
        await pool.execute("UPDATE bots SET name = $2 WHERE id = $1", bots[1], OLD_NAME)
        await flow.rename(pool, "bot", bots[1], None, admin, "an offensive name")
        return Seed(bots[0], bots[1], bots[2])
    finally:
        await pool.close()


class Site:
    def __init__(self, base: str, seeded: Seed) -> None:
        self.base = base
        self.seeded = seeded

    def get(self, path: str, lang: str = "en") -> httpx.Response:
        return httpx.get(self.base + path, params={"lang": lang}, timeout=30)

    def report(self, bot: int, lang: str = "en", **form: str) -> httpx.Response:
        return httpx.post(
            f"{self.base}/bots/{bot}/report?lang={lang}",
            data={"category": "cheating", "text": "it folds", **form},
            timeout=30,
        )


@pytest.fixture(scope="module")
def site(postgres_server: PostgresServer) -> Iterator[Site]:
    url = new_migrated_database(postgres_server)  # a template's copy, dropped with the others
    seeded = asyncio.run(seed(url))
    settings = Settings(
        database=DatabaseSettings(url=url),
        secrets=SecretSettings(key=Secret("m" * 48)),
        rate_limits=RateLimits(pages_per_minute=1_000_000),
        moderation=ModerationSettings(reports_per_hour=5),
    )
    with serving(create_app(settings), lifespan="auto") as base:
        yield Site(base, seeded)


@pytest.fixture(scope="module")
def live_server(site: Site) -> str:
    return site.base


def text(response: httpx.Response) -> str:
    return html.unescape(re.sub(r"[ \t\r\n]+", " ", response.text))


def test_a_disqualified_bot_s_page_says_so_with_the_reason(site: Site) -> None:
    page = text(site.get(f"/bots/{site.seeded.disqualified}"))
    assert re.search(r"Disqualified on \d{4}-\d{2}-\d{2}\.", page)
    assert "its ladder results were annulled" in page
    section = page.split('id="moderation">', 1)[1].split("</section>", 1)[0]
    assert "disqualified" in section and "it conceded to its twin on the ladder" in section
    assert "server:test@host" not in page  # never who
    spanish = text(site.get(f"/bots/{site.seeded.disqualified}", "es"))
    assert re.search(r"Descalificado el \d{4}-\d{2}-\d{2}\.", spanish)
    assert "Moderación" in spanish and "sus resultados de la escalera se anularon" in spanish
    # an ordinary bot has neither
    plain = text(site.get(f"/bots/{site.seeded.plain}"))
    assert "Disqualified" not in plain and 'id="moderation"' not in plain


def test_a_hidden_name_is_nowhere_on_the_page(site: Site) -> None:
    bot = site.seeded.renamed
    page = text(site.get(f"/bots/{bot}"))
    assert f'<h1 class="botname">bot-{bot}</h1>' in page
    assert "name hidden by the moderators" in page and "an offensive name" in page
    assert OLD_NAME not in page
    assert OLD_NAME not in text(site.get("/ladders/1v1"))
    assert "nombre ocultado por los moderadores" in text(site.get(f"/bots/{bot}", "es"))


def test_the_report_form_sends_a_report_and_its_answers_are_pages(site: Site) -> None:
    bot = site.seeded.plain
    form = text(site.get(f"/bots/{bot}"))
    assert f'action="/bots/{bot}/report"' in form and 'name="category"' in form
    sent = site.report(bot)
    assert sent.status_code == 200 and "text/html" in sent.headers["content-type"]
    assert "Report sent" in text(sent) and "is waiting for the moderators" in text(sent)
    assert sent.headers["cache-control"] == "no-store"
    again = site.report(bot, "es")
    assert again.status_code == 409 and "ya espera a los moderadores" in text(again)
    bad = site.report(site.seeded.renamed, category="spam")
    assert bad.status_code == 422 and "Report not sent" in text(bad)
    long = site.report(site.seeded.renamed, text="x" * 1001)
    assert long.status_code == 422
    missing = site.report(987654321)
    assert missing.status_code == 404 and "There is no bot 987654321" in text(missing)
    # the address's budget (5 an hour here; the 409 and the 404 spent theirs too): the sixth
    # attempt is refused, with Retry-After
    second = site.report(site.seeded.renamed)
    assert second.status_code == 200
    third = site.report(site.seeded.disqualified)
    assert third.status_code == 200
    flood = site.report(site.seeded.disqualified, category="name")
    assert flood.status_code == 429 and int(flood.headers["retry-after"]) > 0
    assert "Too many reports" in text(flood)
    assert "Traceback" not in flood.text


@pytest.mark.parametrize("lang", ["en", "es"])
def test_the_moderation_pages_in_a_browser(browser: Any, site: Site, lang: str) -> None:
    context = browser.new_context(base_url=site.base, locale="es-AR" if lang == "es" else "en")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        for bot in (site.seeded.disqualified, site.seeded.renamed):
            for width in WIDTHS:
                page.set_viewport_size({"width": width, "height": 900})
                page.goto(f"/bots/{bot}?lang={lang}")
                page.locator("#report summary").click()  # the form open, as a reader sees it
                overflow = page.evaluate(
                    "document.documentElement.scrollWidth - document.documentElement.clientWidth"
                )
                assert overflow <= 0, (bot, width, overflow, page.evaluate(WIDE))
                assert blocking_violations(page) == [], (bot, width)
        # the form sent from the browser itself (a page of its own answers)
        page.set_viewport_size({"width": 320, "height": 900})
        page.goto(f"/bots/{site.seeded.renamed}?lang={lang}")
        page.locator("#report summary").click()
        page.select_option("#report-category", "name")
        page.fill("#report-text", "the name")
        page.locator("#report button[type=submit]").click()
        page.wait_for_load_state()
        heading = page.locator("h1").inner_text()
        assert heading in {
            "Report sent",
            "Report not sent",
            "Denuncia enviada",
            "Denuncia no enviada",
        }
        overflow = page.evaluate(
            "document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        assert overflow <= 0
        assert blocking_violations(page) == []
        assert errors == []
    finally:
        context.close()
