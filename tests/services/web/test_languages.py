"""The pages in Spanish and English over ASGI: ``Accept-Language`` chooses, ``?lang=`` switches
and sets a cookie that later pages follow, an unknown language falls back to English, and no
``Accept-Language`` header, however malformed, makes a page fail."""

from __future__ import annotations

import html
import re
from collections.abc import AsyncIterator

import httpx
import pytest
from babel.messages.pofile import read_po
from litestar import Litestar

from services.db.pool import create_pool
from services.web import i18n
from services.web.reference import REFERENCE_URL
from tests.services.helpers.api_helpers import client_for
from tests.services.web.conftest import WebData, web_app
from tests.services.web.pages.test_pages import pages

pytestmark = pytest.mark.anyio
SPANISH = {"accept-language": "es-AR,es;q=0.9,en;q=0.5"}


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    """Module-wide, so that the module's tests share one app (``shared_app``)."""
    return "asyncio"


@pytest.fixture(scope="module")
async def shared_app(web_data: WebData) -> AsyncIterator[Litestar]:
    """One app for the module's tests, as ``web_app`` makes it (building it is most of a test's
    cost; the tests only read the seeded database, and the page cache is keyed by language)."""
    pool = await create_pool(web_data.url, min_size=1, max_size=4)
    try:
        yield web_app(web_data.url, pool)
    finally:
        await pool.close()


@pytest.fixture
async def client(shared_app: Litestar) -> AsyncIterator[httpx.AsyncClient]:
    """A client of its own for each test (no language cookie carried from another test)."""
    async with client_for(shared_app) as c:
        yield c


def visible(page: str) -> str:
    """What a reader meets: the text, and the titles and accessible names of elements."""
    attributes = re.findall(r'\s(?:title|aria-label|alt)="([^"]*)"', page)
    text = re.sub(r"<[^>]+>", " ", page.split("<body>", 1)[-1])
    return html.unescape(" ".join([text, *attributes]))


def english_sentences() -> list[str]:
    """The English texts of the catalogue that Spanish says otherwise: several words and no
    placeholder, so that none of them can occur by chance in a Spanish page."""
    with i18n.po_path("es").open("rb") as f:
        cat = read_po(f, locale="es")
    found = []
    for m in cat:
        if not m.id or not isinstance(m.id, str) or "%(" in m.id or "<" in m.id:
            continue
        if len(m.id.split()) >= 2 and m.string != m.id:
            found.append(m.id)
    return found


async def test_accept_language_es_ar_gives_the_pages_in_spanish(
    client: httpx.AsyncClient, web_data: WebData
) -> None:
    english = english_sentences()
    assert len(english) > 40
    for path in await pages(web_data):
        response = await client.get(path, headers=SPANISH)
        assert response.status_code == 200, path
        assert '<html lang="es-AR">' in response.text, path
        assert response.headers["content-language"] == "es-AR", path
        assert "Accept-Language" in response.headers["vary"], path
        assert "set-cookie" not in response.headers  # only the switch sets the cookie
        text = visible(response.text)
        left = [s for s in english if s in text]
        assert left == [], (path, left)
    home = visible((await client.get("/", headers=SPANISH)).text)
    assert "Tablas de posiciones" in home and "Torneos" in home
    swiss = visible(
        (await client.get(f"/tournaments/{web_data.seeded.swiss_id}", headers=SPANISH)).text
    )
    assert "Posiciones" in swiss and "Ronda 1" in swiss and "Suizo" in swiss
    replay = visible(
        (await client.get(f"/matches/{web_data.seeded.replay_match}?step=40", headers=SPANISH)).text
    )
    # the narration, the cards and the cantos as players say them
    assert ": reparte " in replay and " es mano " in replay and " jugó el " in replay
    assert re.search(r"\b(\d+|ancho|siete) de (espadas|bastos|oros|copas)\b", replay)
    assert "Puntos por mano" in replay and " deals, " not in replay and " played the " not in replay


async def test_without_a_choice_the_pages_are_in_english(
    client: httpx.AsyncClient, web_data: WebData
) -> None:
    for headers in ({}, {"accept-language": "fr-FR,fr;q=0.9,de;q=0.8"}, {"accept-language": "*"}):
        response = await client.get("/", headers=headers)
        assert response.status_code == 200
        assert '<html lang="en">' in response.text
        assert "Leaderboards" in response.text and "Tablas de posiciones" not in response.text
    unknown = await client.get("/?lang=xx", headers={"accept-language": "de"})
    assert '<html lang="en">' in unknown.text
    assert "set-cookie" not in unknown.headers


async def test_the_switch_sets_a_cookie_that_the_next_pages_follow(
    client: httpx.AsyncClient, web_data: WebData
) -> None:
    s = web_data.seeded
    page = await client.get(f"/tournaments/{s.swiss_id}")
    switch = re.search(r'<a href="([^"]+)" lang="es"', page.text)
    assert switch is not None
    target = html.unescape(switch.group(1))
    assert target == f"/tournaments/{s.swiss_id}?lang=es"
    chosen = await client.get(target)
    assert '<html lang="es-AR">' in chosen.text
    cookie = chosen.headers["set-cookie"]
    assert cookie.startswith("lang=es;") and "Path=/" in cookie and "SameSite=lax" in cookie
    # the client keeps the cookie: the next page, asked for in English, stays in Spanish
    bot = await client.get(
        f"/bots/{next(iter(s.bots.values()))}", headers={"accept-language": "en"}
    )
    assert '<html lang="es-AR">' in bot.text and "Partidos recientes" in bot.text
    # and back to English, which sticks in the same way
    back = await client.get(f"/matches/{s.replay_match}?game=2&step=3&lang=en")
    assert '<html lang="en">' in back.text
    assert back.headers["set-cookie"].startswith("lang=en;")
    assert '<html lang="en">' in (await client.get("/", headers=SPANISH)).text


async def test_the_api_reference_speaks_and_keeps_the_language_like_every_page(
    client: httpx.AsyncClient,
) -> None:
    chosen = await client.get(f"{REFERENCE_URL}?lang=es")
    assert '<html lang="es-AR">' in chosen.text
    assert chosen.headers["content-language"] == "es-AR"
    assert chosen.headers["set-cookie"].startswith("lang=es;")
    assert "Content-Security-Policy" in chosen.headers  # the page's own headers are kept
    kept = await client.get(REFERENCE_URL, headers={"accept-language": "en"})
    assert kept.headers["content-language"] == "es-AR" and "set-cookie" not in kept.headers
    document = await client.get("/schema/openapi-full.json")  # the JSON says no language
    assert "content-language" not in document.headers


async def test_the_switch_keeps_the_pages_other_parameters(
    client: httpx.AsyncClient, web_data: WebData
) -> None:
    path = f"/matches/{web_data.seeded.replay_match}?game=2&step=9&view=seat1&lang=en"
    page = await client.get(path)
    links = dict(re.findall(r'<a href="([^"]+)" lang="(en|es)"', page.text))
    hrefs = {lang: html.unescape(href) for href, lang in links.items()}
    match = web_data.seeded.replay_match
    assert hrefs["es"] == f"/matches/{match}?game=2&step=9&view=seat1&lang=es"
    assert hrefs["en"] == f"/matches/{match}?game=2&step=9&view=seat1&lang=en"


@pytest.mark.parametrize(
    "header",
    [
        "es;q=",
        "es;q=1e999",
        ";q=0.5",
        "es-AR;;;q=0.5;;",
        ",,,,",
        "\x7f\x01",
        "é-ñ;q=é",
        "es" * 3000,
        "es;q=0.5," * 500,
        "en;q=-1, es;q=0.001",
    ],
)
async def test_a_malformed_accept_language_never_errs(
    client: httpx.AsyncClient, header: str
) -> None:
    for path in ("/", "/no/such/page"):
        response = await client.get(path, headers={"accept-language": header.encode("latin-1")})
        assert response.status_code in (200, 404), (header, response.status_code)
        assert re.search(r'<html lang="(en|es-AR)">', response.text)


async def test_error_pages_follow_the_language(client: httpx.AsyncClient) -> None:
    response = await client.get("/bots/999999", headers=SPANISH)
    assert response.status_code == 404
    assert '<html lang="es-AR">' in response.text
    assert "No hay ningún bot 999999." in response.text and "No encontrado" in response.text
    missing = await client.get("/no/such/page", headers=SPANISH)
    assert "No hay ninguna página en esta dirección." in missing.text
    bad = await client.get("/matches/1?step=abc", headers=SPANISH)
    assert bad.status_code == 400 and "Pedido inválido" in bad.text
