"""``/matches/{id}/steps``: a finished match's game as one view may see it (the events and the
table they are played at, worded in the page's language); a match not over (only a spectator
may see it, R-11), an unknown match or game: a 404."""

from __future__ import annotations

import httpx
import pytest

from tests.services.web.conftest import WebData

pytestmark = pytest.mark.anyio


async def test_a_finished_games_steps(client: httpx.AsyncClient, web_data: WebData) -> None:
    s = web_data.seeded
    r = await client.get(f"/matches/{s.replay_match}/steps?game=1&view=seat0")
    assert r.status_code == 200
    data = r.json()
    assert data["view"] == "seat0" and data["table"]["players"] == 2
    events = data["events"]
    assert len([e for e in events if e["type"] != "decision"]) > 10
    assert events[0]["type"] == "hand_started"
    # seat 0's view: its own cards, nothing of seat 1's until played
    deals = [e["deal"] for e in events if e["type"] == "hand_started"]
    assert all(all(c is not None for c in d[0]) and d[1] == [None] * len(d[1]) for d in deals)
    assert "Content-Security-Policy" in r.headers
    seat1 = (await client.get(f"/matches/{s.replay_match}/steps?game=1&view=seat1")).json()
    assert all(d[0] == [None] * 3 for d in (e["deal"] for e in seat1["events"] if "deal" in e))
    names = [seat["name"] for seat in data["table"]["seats"]]
    assert len(set(names)) == 2


@pytest.mark.parametrize(
    "path", ["/matches/{live}/steps", "/matches/999999/steps", "/matches/{done}/steps?game=99"]
)
async def test_no_steps_for_a_live_or_unknown_match(
    client: httpx.AsyncClient, web_data: WebData, path: str
) -> None:
    s = web_data.seeded
    r = await client.get(path.format(live=s.live_match, done=s.replay_match))
    assert r.status_code == 404
