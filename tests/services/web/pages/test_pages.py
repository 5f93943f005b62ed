"""The pages over ASGI (no browser): every page renders from real data, escapes what bots and
users supply, answers with a strict CSP, and a seat's view never carries hidden cards."""

from __future__ import annotations

import html
import re

import httpx
import pytest

from engine.events import HandStarted
from services.web import CSP, REFERENCE_URL
from tests.services.web.conftest import WebData
from tests.services.web.seed import XSS_NAME, XSS_SAY

pytestmark = pytest.mark.anyio


def data_cards(text: str) -> list[str]:
    return re.findall(r'data-card="([0-9]+[EBOC])"', text)


def seat_cards(text: str, seat: int) -> list[str]:
    """Face-up cards in seat ``seat``'s hand on the table."""
    block = text.split(f'id="seat-{seat}"', 1)[1].split('class="hand"', 1)[1]
    block = block.split("</div>", 1)[0]
    return data_cards(block)


async def pages(web: WebData) -> list[str]:
    s = web.seeded
    bot_pages = [f"/bots/{b}" for b in s.bots.values()]
    return [
        "/",
        f"/tournaments/{s.swiss_id}",
        f"/tournaments/{s.double_id}",
        f"/tournaments/{s.robin_id}",
        f"/matches/{s.replay_match}",
        f"/matches/{s.replay_match}?game=2&step=9&view=seat1",
        f"/matches/{s.live_match}",
        *bot_pages,
        REFERENCE_URL,
    ]


async def test_every_page_renders_with_a_strict_csp(
    client: httpx.AsyncClient, web_data: WebData
) -> None:
    for path in await pages(web_data):
        response = await client.get(path)
        assert response.status_code == 200, (path, response.text[:500])
        assert response.headers["content-type"].startswith("text/html")
        csp = response.headers["content-security-policy"]
        assert csp == CSP
        assert "default-src 'self'" in csp and "script-src 'self'" in csp
        assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
        assert response.headers["x-content-type-options"] == "nosniff"
        # no inline script or style: every <script> has a src from /static
        for tag in re.findall(r"<script\b[^>]*>", response.text):
            assert 'src="/static/' in tag, (path, tag)
        assert "<style" not in response.text and " style=" not in response.text
        assert not re.search(r"<[a-z]+[^>]*\son[a-z]+=", response.text), path
        # every page's footer links to the API reference
        footer = response.text.split("<footer", 1)[1]
        assert f'href="{REFERENCE_URL}"' in footer, path


async def test_static_files_are_served_with_the_csp(client: httpx.AsyncClient) -> None:
    for path, kind in [("/static/site.css", "text/css"), ("/static/live.js", "javascript")]:
        response = await client.get(path)
        assert response.status_code == 200
        assert kind in response.headers["content-type"]
        assert response.headers["content-security-policy"] == CSP


async def test_hostile_names_and_says_are_escaped(
    client: httpx.AsyncClient, web_data: WebData
) -> None:
    s = web_data.seeded
    escaped_name = html.escape(XSS_NAME, quote=False)
    for path in [
        "/",
        f"/tournaments/{s.swiss_id}",
        f"/bots/{s.bots[XSS_NAME]}",
        f"/matches/{s.replay_match}",
    ]:
        text = (await client.get(path)).text
        assert escaped_name in text, path
        assert XSS_NAME not in text, path
    # the bot's say shows in speech bubbles and the timeline, escaped, never as markup
    replay = s.replays[s.replay_match]
    game = replay.games[0]
    xss_seat = next(
        seat for seat in range(2) if replay.entrants[game.teams[seat % 2]].name == XSS_NAME
    )
    step = next(
        k
        for k, ev in enumerate(e for e in game.events if e.__class__.__name__ != "Decision")
        if getattr(ev, "say", None) == XSS_SAY and ev.seat == xss_seat  # type: ignore[union-attr]
    )
    text = (await client.get(f"/matches/{s.replay_match}?game=1&step={step}")).text
    assert html.escape(XSS_SAY, quote=False) in text
    assert "<img src=x" not in text and XSS_SAY not in text
    # the organiser's and owner's names are escaped too
    bot_page = (await client.get(f"/bots/{s.bots[XSS_NAME]}")).text
    assert "web &lt;b&gt;owner&lt;/b&gt;" in bot_page
    # the bot's URL is private: never shown
    assert "example.invalid" not in bot_page


async def test_unknown_ids_are_html_404_with_the_csp(client: httpx.AsyncClient) -> None:
    for path in ["/bots/999999", "/tournaments/999999", "/matches/999999"]:
        response = await client.get(path)
        assert response.status_code == 404
        assert response.headers["content-type"].startswith("text/html")
        assert response.headers["content-security-policy"] == CSP
    response = await client.get("/matches/1?step=abc")
    assert response.status_code == 400
    assert response.headers["content-security-policy"] == CSP


async def test_every_browser_route_errs_with_the_site_error_page(
    client: httpx.AsyncClient,
) -> None:
    cases = [
        ("GET", "/no/such/page", 404),
        ("GET", "/bots/abc", 404),
        ("GET", "/tournaments/abc/live/x", 404),
        ("GET", "/static/nope.css", 404),
        ("GET", "/static/swagger_ui/LICENSE", 404),  # only css, js and images are served
        ("GET", "/static/%2e%2e/pages.py", 404),  # files are looked up by name, never opened
        ("GET", "/static/swagger_ui/%2e%2e/%2e%2e/pages.py", 404),
        ("GET", "/bots/999999", 404),
        ("GET", "/matches/1?step=abc", 400),
        ("DELETE", "/", 405),
    ]
    for method, path, status in cases:
        response = await client.request(method, path)
        assert response.status_code == status, path
        assert response.headers["content-type"] == "text/html; charset=utf-8", path
        assert response.headers["content-security-policy"] == CSP, path
        assert response.headers["x-frame-options"] == "DENY", path
        assert '<header class="top">' in response.text, path  # the site's layout
        assert f"<h1>{status}: " in response.text, path
        assert f'href="{REFERENCE_URL}"' in response.text.split("<footer", 1)[1], path
    # the API keeps its problem documents, also where a path looks like a page's
    for path in ["/v1", "/v1/no/such", "/v1/bots/abc", "/v1/bots/999999", "/health/x"]:
        response = await client.get(path, headers={"accept": "text/html"})
        assert response.status_code in (400, 404), path
        assert response.headers["content-type"] == "application/problem+json", path
        assert response.json()["status"] == response.status_code


async def test_pages_send_one_charset(client: httpx.AsyncClient, web_data: WebData) -> None:
    paths = [*await pages(web_data), "/no/such/page", "/static/site.css", "/static/live.js"]
    for path in paths:
        kind = (await client.get(path)).headers["content-type"]
        assert kind.count("charset") == 1 and kind.endswith("; charset=utf-8"), (path, kind)


async def test_seat_view_hides_other_seats_unplayed_cards(
    client: httpx.AsyncClient, web_data: WebData
) -> None:
    s = web_data.seeded
    replay = s.replays[s.replay_match]
    deal = next(e for e in replay.games[0].events if isinstance(e, HandStarted)).deal
    url = f"/matches/{s.replay_match}?game=1&step=0"
    omniscient = (await client.get(url + "&view=all")).text
    assert sorted(seat_cards(omniscient, 0)) == sorted(deal[0])
    assert sorted(seat_cards(omniscient, 1)) == sorted(deal[1])
    for seat in (0, 1):
        text = (await client.get(url + f"&view=seat{seat}")).text
        other = 1 - seat
        assert sorted(seat_cards(text, seat)) == sorted(deal[seat])
        assert seat_cards(text, other) == []
        assert text.count('class="card back') >= 3
        # nowhere on the page: not in the timeline, not in an attribute
        assert not set(data_cards(text)) & set(deal[other])


async def test_live_match_shows_only_what_spectators_see(
    client: httpx.AsyncClient, web_data: WebData
) -> None:
    s = web_data.seeded
    for query in ["", "?view=all", "?view=seat0&step=0", "?step=0"]:
        text = (await client.get(f"/matches/{s.live_match}{query}")).text
        assert "Spectator (live)" in text and "Omniscient" not in text
        assert seat_cards(text, 0) == [] and seat_cards(text, 1) == []
        assert 'data-poll="/matches/' in text
    live = (await client.get(f"/matches/{s.live_match}/live")).json()
    assert live["live"] is True and live["version"].startswith("running.")


async def test_swiss_page_polls_and_finished_pages_do_not(
    client: httpx.AsyncClient, web_data: WebData
) -> None:
    s = web_data.seeded
    text = (await client.get(f"/tournaments/{s.swiss_id}")).text
    assert f'data-poll="/tournaments/{s.swiss_id}/live"' in text
    state = (await client.get(f"/tournaments/{s.swiss_id}/live")).json()
    assert state["live"] is True and state["version"].startswith("running.3.")
    assert "data-poll" not in (await client.get(f"/tournaments/{s.double_id}")).text
    response = await client.get("/tournaments/999999/live")
    assert response.status_code == 404 and response.json()["status"] == 404
