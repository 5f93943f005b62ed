"""The index pages (/tournaments, /bots, /leaderboards) over ASGI against the seeded data: each
section lists what it should, pages page, the nav links them from every page, and a bad page
number or section is the site's 400 page, never a 500; and a result's words (views/result.py):
the winner's games first, and why when the games did not decide it."""

from __future__ import annotations

import html
import re

import httpx
import pytest

from services.domain.result import ResultReason, StoredResult
from services.web.pages import lists
from services.web.views.common import outcome
from services.web.views.result import result_words
from tests.services.web.conftest import WebData
from tests.services.web.views.test_views import match

anyio = pytest.mark.anyio


def _names(page: str, pattern: str) -> list[str]:
    return [html.unescape(x) for x in re.findall(pattern, page)]


@anyio
async def test_tournaments_lists_running_upcoming_and_finished(
    client: httpx.AsyncClient, web_data: WebData
) -> None:
    page = (await client.get("/tournaments")).text
    assert 'id="running"' in page and 'id="upcoming"' in page and 'id="finished"' in page
    running = page.split('id="running"', 1)[1].split("</section>", 1)[0]
    assert f'href="/tournaments/{web_data.seeded.swiss_id}"' in running
    finished = page.split('id="finished"', 1)[1].split("</section>", 1)[0]
    for tid in (web_data.seeded.double_id, web_data.seeded.robin_id, web_data.seeded.faults_id):
        assert f'href="/tournaments/{tid}"' in finished
    assert f'href="/tournaments/{web_data.seeded.swiss_id}"' not in finished
    only = (await client.get("/tournaments?status=finished")).text
    assert 'id="running"' not in only and 'id="finished"' in only


@anyio
async def test_tournaments_and_bots_page_through_everything_once(
    client: httpx.AsyncClient, web_data: WebData, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(lists, "PER_PAGE", 3)
    seen: list[str] = []
    for number in range(1, 50):
        page = (await client.get(f"/tournaments?status=finished&page={number}")).text
        section = page.split('id="finished"', 1)[1].split("</section>", 1)[0]
        found = re.findall(r'href="/tournaments/(\d+)"', section)
        assert len(found) <= 3
        seen += found
        if 'rel="next"' not in section:
            break
        assert f"page={number + 1}" in section
    assert len(seen) == len(set(seen)) >= 6  # every finished event once, in pages of three
    bots: list[str] = []
    for number in range(1, 50):
        page = (await client.get(f"/bots?page={number}")).text
        bots += _names(page, r'<a class="bot" href="/bots/\d+">([^<]*)</a>')
        if 'rel="next"' not in page:
            break
    assert sorted(bots, key=str.lower) == bots  # by name
    ladder = web_data.seeded.ladder
    on_ladders = set(ladder.names.values()) if ladder is not None else set()
    assert set(web_data.seeded.bots) | on_ladders == set(bots)  # every bot, once
    assert len(bots) == len(set(bots))


@anyio
async def test_leaderboards_and_the_nav(client: httpx.AsyncClient, web_data: WebData) -> None:
    page = (await client.get("/leaderboards")).text
    for pool in ("1v1", "2v2", "2v2-individual"):
        assert f'id="leaderboard-{pool}"' in page
    assert "El Ancho" in page and "solo-uno" in page
    for address in ("/", f"/tournaments/{web_data.seeded.swiss_id}", "/no/such/page"):
        nav = (await client.get(address)).text.split("<nav", 2)[1]
        for href in ("/leaderboards", "/tournaments", "/bots"):
            assert f'href="{href}"' in nav, (address, href)
        assert "/#tournaments" not in nav


@anyio
@pytest.mark.parametrize(
    "address",
    [
        "/tournaments?page=0",
        "/tournaments?page=-1",
        "/tournaments?page=99999999999999999999",
        "/tournaments?page=abc",
        "/tournaments?status=%3Cscript%3E",
        "/tournaments?status=cancelled",
        "/bots?page=0",
        "/bots?page=1e9",
    ],
)
async def test_a_bad_page_or_section_is_a_400_page(client: httpx.AsyncClient, address: str) -> None:
    page = await client.get(address)
    assert page.status_code == 400, (address, page.status_code)
    assert page.headers["content-type"].startswith("text/html")
    assert "<script>" not in page.text


@anyio
async def test_a_page_past_the_end_says_there_is_nothing(client: httpx.AsyncClient) -> None:
    page = await client.get("/tournaments?status=finished&page=100000")
    assert page.status_code == 200 and "No finished tournaments yet." in page.text
    assert 'rel="prev"' in page.text  # and the way back
    assert (await client.get("/bots?page=100000")).status_code == 200


def _result(games: tuple[int, int], tantos: tuple[int, int], reason: ResultReason) -> StoredResult:
    return StoredResult((), games, tantos, reason, None, (), (0, 0))


def test_a_result_puts_the_winner_first_and_says_why() -> None:
    m = match(1, 1, 1, 5, 6, winner=1)
    m.result = _result((0, 2), (12, 30), "games")
    words = result_words(m, outcome(m))
    assert words is not None and (words.winner_side, words.score, words.why) == (1, "2-0", "")
    m.result = _result((1, 1), (20, 31), "tantos")
    words = result_words(m, outcome(m))
    assert words is not None and (words.score, words.why) == ("1-1", "on tantos 31-20")
    m.result = _result((0, 0), (0, 0), "walkover")
    words = result_words(m, outcome(m))
    assert words is not None and (words.score, words.why) == ("", "by walkover")
    m.result = _result((1, 0), (3, 0), "forfeit")
    words = result_words(m, outcome(m))
    assert words is not None and words.why == "by forfeit" and words.score == ""
    m.bracket_match = "W1-1"
    m.winner_side = None
    m.result = _result((1, 1), (20, 20), "draw")
    words = result_words(m, outcome(m))
    assert words is not None and (words.score, words.why) == ("1-1", "through on seed")
    m.status = "running"
    assert result_words(m, outcome(m)) is None
