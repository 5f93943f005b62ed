"""The luck of the cards on the pages (docs/luck.md): the match page's sentence names the side
dealt the better cards with the stored figure, in English and in Spanish; the replay's score by
hand shows each finished hand's luck in the omniscient view only; a bot's page sums its luck
over its matches; a live match shows none."""

from __future__ import annotations

import html
import json
import re

import asyncpg
import httpx
import pytest

from services.domain.result import stored_result
from services.web.i18n import activate, signed
from tests.services.web.conftest import WebData

pytestmark = pytest.mark.anyio


def _text(fragment: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", fragment)).split())


def _luck(page: str) -> str | None:
    found = re.search(r'<p class="luck" id="luck">(.*?)</p>', page, re.DOTALL)
    return None if found is None else _text(found[1])


async def _played(url: str) -> list[asyncpg.Record]:
    conn = await asyncpg.connect(url)
    try:
        return await conn.fetch(
            "SELECT m.id, mr.result::text AS result, "
            "array_agg(b.name ORDER BY e.slot) FILTER (WHERE e.side = 0) AS side0, "
            "array_agg(b.name ORDER BY e.slot) FILTER (WHERE e.side = 1) AS side1 "
            "FROM matches m JOIN match_results mr ON mr.match_id = m.id "
            "JOIN match_entrants e ON e.match_id = m.id JOIN bots b ON b.id = e.bot_id "
            "WHERE m.status IN ('done', 'forfeit') AND mr.result ? 'luck' "
            "GROUP BY m.id, mr.result::text ORDER BY m.id"
        )
    finally:
        await conn.close()


async def test_the_match_page_says_who_was_dealt_the_luck(
    client: httpx.AsyncClient, web_data: WebData
) -> None:
    rows = await _played(web_data.url)
    assert len(rows) >= 3
    for row in rows:
        luck = stored_result(json.loads(row["result"])).luck
        assert luck is not None
        side = 0 if luck.tantos >= 0 else 1
        names = row["side0"] if side == 0 else row["side1"]
        for language, words in (("en", "was dealt"), ("es", "las cartas le dieron")):
            activate(language)
            figure = signed(luck.tantos if side == 0 else -luck.tantos)
            page = (await client.get(f"/matches/{row['id']}?lang={language}")).text
            sentence = _luck(page)
            assert sentence is not None, (row["id"], language)
            assert words in sentence and f"{figure} tantos" in sentence, sentence
            assert all(name in sentence for name in names), (names, sentence)
    activate("en")


async def test_the_score_by_hand_shows_each_hands_luck_in_the_omniscient_view_only(
    client: httpx.AsyncClient, web_data: WebData
) -> None:
    s = web_data.seeded
    whole = (await client.get(f"/matches/{s.replay_match}?game=1&step=0&whole=1")).text
    shown = re.findall(r'<span class="hand-luck">(.*?)</span>', whole)
    rows = await _played(web_data.url)
    stored = next(r for r in rows if r["id"] == s.replay_match)
    hands = stored_result(json.loads(stored["result"])).luck.games[0].hands  # type: ignore[union-attr]
    finished = len(re.findall(r'<span class="summary">', whole))
    assert len(shown) == finished >= 1 and finished <= len(hands)
    for text, hand in zip(shown, hands, strict=False):
        assert _text(text).startswith("luck: ") and f"{signed(abs(hand.tantos))} tantos" in text
    seat = (await client.get(f"/matches/{s.replay_match}?game=1&step=9999&view=seat0")).text
    assert 'class="hand-luck"' not in seat and 'class="summary">' in seat
    live = (await client.get(f"/matches/{s.live_match}")).text
    assert 'class="hand-luck"' not in live and _luck(live) is None


async def test_a_bot_page_sums_its_luck(client: httpx.AsyncClient, web_data: WebData) -> None:
    conn = await asyncpg.connect(web_data.url)
    try:
        row = await conn.fetchrow(
            "SELECT e.bot_id, count(*) AS n, sum(CASE e.side WHEN 0 THEN 1 ELSE -1 END "
            "* (mr.result -> 'luck' ->> 'tantos')::float8) AS tantos "
            "FROM match_entrants e JOIN match_results mr ON mr.match_id = e.match_id "
            "WHERE mr.result ? 'luck' GROUP BY e.bot_id ORDER BY count(*) DESC, e.bot_id LIMIT 1"
        )
        lucky = await conn.fetchval(
            "SELECT b.id FROM bots b WHERE NOT EXISTS (SELECT 1 FROM match_entrants e "
            "JOIN match_results mr ON mr.match_id = e.match_id "
            "WHERE e.bot_id = b.id AND mr.result ? 'luck') LIMIT 1"
        )
    finally:
        await conn.close()
    assert row is not None and row["n"] >= 2
    activate("en")
    page = (await client.get(f"/bots/{row['bot_id']}?lang=en")).text
    line = _luck(page)
    assert line is not None
    assert f"{signed(row['tantos'])} tantos over {row['n']} matches" in line
    if lucky is not None:  # a bot without a played match has no luck line
        assert _luck((await client.get(f"/bots/{lucky}")).text) is None
