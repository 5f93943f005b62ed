"""A play session's Server-Sent Events on a real server (uvicorn on 127.0.0.1): the view at
once and after each change, with the token in the query (EventSource sends no header); a
wrong token is a 403; leaving ends the stream with ``event: end``."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import httpx
import pytest

from services.db import play_matches as db_play
from services.db.pool import create_pool
from tests.services.helpers.api_helpers import settings as app_settings
from tests.services.helpers.flow_helpers import make_account, make_bot
from tests.services.helpers.sse_client import Served, messages, serve

pytestmark = pytest.mark.anyio
WAIT_S = 30


@pytest.fixture
def served(api_database_url: str) -> Iterator[Served]:
    with serve(app_settings(api_database_url)) as served:
        yield served


async def _house(url: str) -> None:
    pool = await create_pool(url, min_size=1, max_size=1)
    try:
        if not await db_play.house_bots(pool, house_account=None):
            owner = await make_account(pool, "house-owner")
            await make_bot(pool, owner, url="builtin:heuristic", prefix="house-h")
    finally:
        await pool.close()


async def test_the_stream_shows_each_change_and_ends(served: Served, api_database_url: str) -> None:
    await _house(api_database_url)
    async with httpx.AsyncClient(base_url=served.base, timeout=WAIT_S) as client:
        created = await client.post("/v1/play", json={})
        assert created.status_code == 201, created.text
        play_id, token = created.json()["id"], created.json()["token"]
        wrong = await client.get(f"/v1/play/{play_id}/stream", params={"token": "nope"})
        assert wrong.status_code == 403
        url = f"/v1/play/{play_id}/stream"
        async with client.stream("GET", url, params={"token": token}) as response:
            assert response.headers["content-type"].startswith("text/event-stream")
            stream = messages(response)
            seen = []
            async with asyncio.timeout(WAIT_S):
                async for message in stream:
                    seen.append(message)
                    view = message.json()
                    assert message.event in ("view", "end") and message.id == str(view["version"])
                    if message.event == "end":
                        break
                    if view["turn"] is not None and len(seen) < 4:
                        first = view["turn"]["legal_actions"][0]
                        answer = await client.post(
                            f"/v1/play/{play_id}/act",
                            json={"number": view["turn"]["number"], **first},
                            headers={"X-Play-Token": token},
                        )
                        assert answer.status_code == 200, answer.text
                    elif view["turn"] is not None:
                        left = await client.post(
                            f"/v1/play/{play_id}/leave", params={"token": token}
                        )
                        assert left.status_code == 200
        assert seen[-1].event == "end" and seen[-1].json()["status"] == "finished"
        versions = [int(m.id or 0) for m in seen]
        assert versions == sorted(versions) and len(set(versions)) == len(versions)
