"""``/matches/{id}/steps``: a finished match's game, step by step, in the page's language; a
match not over (only a spectator may see it, R-11), an unknown match or game: a 404."""

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
    assert data["view"] == "seat0" and len(data["steps"]) == len(data["timeline"]) > 10
    assert data["hand_starts"][0] == 0 and data["hands"]
    assert "Content-Security-Policy" in r.headers
    es = (await client.get(f"/matches/{s.replay_match}/steps?lang=es")).json()
    assert es["words"]["back"] != data["words"]["back"]  # worded in Spanish


@pytest.mark.parametrize(
    "path", ["/matches/{live}/steps", "/matches/999999/steps", "/matches/{done}/steps?game=99"]
)
async def test_no_steps_for_a_live_or_unknown_match(
    client: httpx.AsyncClient, web_data: WebData, path: str
) -> None:
    s = web_data.seeded
    r = await client.get(path.format(live=s.live_match, done=s.replay_match))
    assert r.status_code == 404
