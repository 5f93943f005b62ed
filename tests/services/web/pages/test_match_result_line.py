"""The match page's result line reads as the API and the CLI read it (the shared
services.tournaments.outcome): the winner first with the winner's score first, in English and
in Spanish, for every finished match of the seeded events; a walkover says who won by walkover,
with no "0-0" (no game was played)."""

from __future__ import annotations

import html
import json
import re

import asyncpg
import httpx
import pytest

from services.domain.result import stored_result
from tests.services.web.conftest import WebData

pytestmark = pytest.mark.anyio


def _line(page: str) -> str:
    found = re.search(r'<strong class="match-result">(.*?)</strong>', page, re.DOTALL)
    assert found is not None
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", found[1])).split())


async def test_the_winner_and_its_score_come_first(
    client: httpx.AsyncClient, web_data: WebData
) -> None:
    conn = await asyncpg.connect(web_data.url)
    try:
        rows = await conn.fetch(
            "SELECT m.id, m.winner_side, mr.result::text AS result FROM matches m "
            "JOIN match_results mr ON mr.match_id = m.id "
            "WHERE m.status IN ('done', 'forfeit') AND NOT m.bye ORDER BY m.id"
        )
    finally:
        await conn.close()
    won_by_side_1 = 0
    for row in rows:
        result = stored_result(json.loads(row["result"]))
        games = result.games_won
        if row["winner_side"] is None:
            expected = f"{games[0]}-{games[1]}"
        else:
            w = row["winner_side"]
            expected = f"{games[w]}-{games[1 - w]}"
            won_by_side_1 += w == 1
        told = (await client.get(f"/v1/matches/{row['id']}")).json()["outcome"]
        for language in ("en", "es"):
            page = await client.get(f"/matches/{row['id']}?lang={language}")
            assert page.status_code == 200
            line = _line(page.text)
            if told["decided_by"] == "walkover":  # no game played: no score to show
                by = "wins by walkover" if language == "en" else "por W.O."
                assert line.endswith(by) and not re.search(r"\d", line), (row["id"], line)
                continue
            assert line.endswith(f" {expected}"), (row["id"], language, line)
            if row["winner_side"] is not None and result.reason == "games":
                high, low = map(int, expected.split("-"))
                assert high > low, (row["id"], line)
    assert won_by_side_1 > 0  # the case the old line got wrong ("wins 0-2")
