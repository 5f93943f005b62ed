"""The pages of an individual 2v2 event (four bots a match): tournament, match, replay, bot and
home pages render, name all four bots of a match, and show per-bot standings and ratings."""

from __future__ import annotations

import html

import httpx
import pytest

from services import flow
from services.db import matches as db_matches
from services.db.pool import create_pool
from tests.services.helpers.flow_helpers import InProcessSender, in_process, make_tournament
from tests.services.web.conftest import WebData

pytestmark = pytest.mark.anyio


async def test_individual_event_pages(client: httpx.AsyncClient, web_data: WebData) -> None:
    pool = await create_pool(web_data.url, min_size=1, max_size=4)
    try:
        tid, bots = await make_tournament(
            pool, "swiss", 5, mode="2v2", partnership="individual", owners=list(range(5))
        )
        await InProcessSender(in_process({}))(pool, await flow.start_tournament(pool, tid))
        matches = [m for m in await db_matches.tournament_matches(pool, tid) if not m.bye]
        names = await db_matches.entrant_names(pool, bots)
    finally:
        await pool.close()
    assert matches and all(len(m.seats) == 4 for m in matches)
    page = await client.get(f"/tournaments/{tid}")
    assert page.status_code == 200, page.text[:500]
    text = html.unescape(page.text)
    assert all(names[b] in text for b in bots)
    assert "Individual 2v2: every seat is its own bot" in text
    standings = text.split('id="standings"', 1)[1].split("</table>", 1)[0]
    assert all(names[b] in standings for b in bots)  # one line per bot
    assert "Buchholz" in standings
    match = matches[0]
    for path in (f"/matches/{match.id}", f"/matches/{match.id}?game=1&step=5&view=seat2"):
        shown = await client.get(path)
        assert shown.status_code == 200, (path, shown.text[:500])
        assert all(names[b] in html.unescape(shown.text) for b in match.seats), path
    for bot in bots:
        assert (await client.get(f"/bots/{bot}")).status_code == 200
    home = await client.get("/")
    assert home.status_code == 200 and "2v2-individual" in home.text


def test_seat_names_follow_the_rotation_of_an_individual_match() -> None:
    from arena.match.replay import EntrantRecord, GameRecord, MatchResult, Replay
    from arena.match.runner import seat_entrants
    from engine import Rules
    from services.web.views.common import BotLink
    from services.web.views.replay import _seat_names

    records = tuple(EntrantRecord(f"bot{k}", f"bot:{k}") for k in range(4))
    games = [
        GameRecord(g + 1, f"m-g{g + 1}", 0, (0, 1), [], (0, 0), seats=seat_entrants(g, 4, 4))
        for g in range(4)
    ]
    replay = Replay(
        "truco-arena-replay/1", "m", 0, Rules(players=4), True, 4, 1000, 1000, 5, records, games,
        MatchResult((0, 0), (0, 0), None, "draw"),
    )  # fmt: skip
    sides = ([BotLink("bot0", 10), BotLink("bot2", 12)], [BotLink("bot1", 11), BotLink("bot3", 13)])
    for g in range(4):
        names = [link.name for link in _seat_names(replay, g, sides)]
        assert names == [f"bot{(seat - g) % 4}" for seat in range(4)]
