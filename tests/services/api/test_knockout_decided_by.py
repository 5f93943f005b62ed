"""Issue 15, point 4: a knockout match level on games says what decided it, in
GET /v1/matches/{id} ("decided_by") and on the match and bracket pages
("1-1, through on tantos 45-38"). A real single elimination is played over HTTP; its stored
result is then set level on games (a level result of real bots is a matter of luck)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from arena.sdk import BotServer
from services.base.config import WebSettings
from tests.services.helpers.api_helpers import NetworkGuard, app_client
from tests.services.helpers.api_play_helpers import NO_LIMITS, PlayApi
from tests.services.helpers.flow_helpers import InProcessSender, over_http

pytestmark = pytest.mark.anyio


@pytest.fixture
async def play_api(api_database_url: str, guard: NetworkGuard) -> AsyncIterator[PlayApi]:
    """The platform without its cache of rendered pages: these tests rewrite a stored result,
    which the platform itself never does, so a page cached before would rightly not show it."""
    sender = InProcessSender(over_http)
    uncached = WebSettings(page_cache_bytes=0)
    fields = {"rate_limits": NO_LIMITS, "web": uncached}
    async with app_client(
        api_database_url, guard, pool_size=8, settings_fields=fields, sender=sender
    ) as (pool, client):
        api = PlayApi(client, pool, guard)
        api.sender = sender
        yield api


async def _set_result(
    api: PlayApi, match_id: int, winner_side: int | None, **fields: object
) -> None:
    async with api.pool.acquire() as conn, conn.transaction():
        await conn.execute(
            "UPDATE match_results SET result = result || $2::jsonb, winner_side = $3 "
            "WHERE match_id = $1",
            match_id,
            fields,
            winner_side,
        )
        await conn.execute(
            "UPDATE matches SET winner_side = $2 WHERE id = $1", match_id, winner_side
        )


async def test_a_bracket_match_says_what_decided_it(
    play_api: PlayApi, bot_servers: list[BotServer]
) -> None:
    api = play_api
    _, organiser = await api.account("org")
    _, owner = await api.account("owner")
    bots = await api.bots(owner, bot_servers[:2])
    created = await api.tournament(organiser, format="single_elimination", games_per_match=2)
    tid = created["id"]
    for bot in bots:
        entered = await api.client.post(
            f"/v1/tournaments/{tid}/entries", json={"bot_id": bot}, headers=owner
        )
        assert entered.status_code == 201, entered.text
    started = await api.client.post(f"/v1/tournaments/{tid}/start", headers=organiser)
    assert started.status_code == 202, started.text
    detail = (await api.client.get(f"/v1/tournaments/{tid}")).json()
    assert detail["status"] == "finished"
    (final,) = [m for r in detail["rounds"] for m in r["matches"]]
    url = f"/v1/matches/{final['id']}"

    played = (await api.client.get(url)).json()
    # as played: games; or level on games, and tantos; or, now and then, level on both (a clean
    # clone's run met 1-1 with equal tantos), and the seed
    assert played["bracket_match"] is not None and played["reason"] in ("games", "tantos", "draw")
    assert played["decided_by"] == ("seed" if played["reason"] == "draw" else played["reason"])
    page = (await api.client.get(f"/matches/{final['id']}")).text
    assert ("through on tantos" in page) == (played["reason"] == "tantos")

    await _set_result(api, final["id"], 0, games_won=[1, 1], tantos=[45, 38], reason="tantos")
    body = (await api.client.get(url)).json()
    assert body["decided_by"] == "tantos" and body["games_won"] == [1, 1]
    for page in (f"/matches/{final['id']}", f"/tournaments/{tid}"):
        html = await api.client.get(page)
        assert html.status_code == 200 and "1-1, through on tantos 45-38" in html.text, page

    await _set_result(api, final["id"], None, games_won=[1, 1], tantos=[40, 40], reason="draw")
    assert (await api.client.get(url)).json()["decided_by"] == "seed"
    for page in (f"/matches/{final['id']}", f"/tournaments/{tid}"):
        assert "1-1, through on seed" in (await api.client.get(page)).text, page

    # a forfeit is not "decided by" anything of the three; the reason says why
    await _set_result(api, final["id"], 1, games_won=[1, 1], tantos=[20, 25], reason="forfeit")
    assert (await api.client.get(url)).json()["decided_by"] is None


async def test_a_swiss_match_has_no_decided_by(
    play_api: PlayApi, bot_servers: list[BotServer]
) -> None:
    api = play_api
    _, organiser = await api.account("org")
    _, owner = await api.account("owner")
    bots = await api.bots(owner, bot_servers[:2])
    created = await api.tournament(organiser, games_per_match=2, rounds=1)
    tid = created["id"]
    for bot in bots:
        await api.client.post(f"/v1/tournaments/{tid}/entries", json={"bot_id": bot}, headers=owner)
    await api.client.post(f"/v1/tournaments/{tid}/start", headers=organiser)
    detail = (await api.client.get(f"/v1/tournaments/{tid}")).json()
    (match,) = [m for r in detail["rounds"] for m in r["matches"]]
    await _set_result(api, match["id"], 0, games_won=[1, 1], tantos=[45, 38], reason="tantos")
    body = (await api.client.get(f"/v1/matches/{match['id']}")).json()
    assert body["bracket_match"] is None and body["decided_by"] is None
    assert "through on" not in (await api.client.get(f"/matches/{match['id']}")).text
