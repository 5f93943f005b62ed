"""``/v1/play`` on the real database: a person plays a whole match against the house heuristic
(choosing the first legal action), the replay verifies, the bot's rating is untouched and its
record against people counts it; an illegal action is a 422, a stale one a 409, another
session's token a 403; no answer in time is a timeout fault; leaving forfeits; the caps."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import httpx
import pytest

from arena.match.replay import Decision, load_replay
from arena.match.verify import verify_replay
from arena.sdk import BotServer
from engine.events import ActionTaken
from services.base.config import PlaySettings
from services.db import bots as db_bots
from services.db import play_matches as db_play
from services.domain.result import played_result
from tests.services.helpers.api_helpers import Api, NetworkGuard, app_client
from tests.services.helpers.flow_helpers import make_account, make_bot

pytestmark = pytest.mark.anyio
WAIT_S = 60


class Table:
    def __init__(self, pool: asyncpg.Pool, client: httpx.AsyncClient, house: int) -> None:
        self.pool, self.client, self.house = pool, client, house

    async def start(self, **body: Any) -> tuple[int, dict[str, str], dict[str, Any]]:
        answer = await self.client.post("/v1/play", json=body)
        assert answer.status_code == 201, answer.text
        created = answer.json()
        return created["id"], {"X-Play-Token": created["token"]}, created["view"]

    async def view(self, play_id: int, token: dict[str, str], after: int | None = None) -> Any:
        params = {} if after is None else {"after": after}
        answer = await self.client.get(f"/v1/play/{play_id}", headers=token, params=params)
        assert answer.status_code == 200, answer.text
        return answer.json()

    async def turn(self, play_id: int, token: dict[str, str]) -> dict[str, Any]:
        """The view once the person owes a decision (or the match is over)."""
        view = await self.view(play_id, token)
        async with asyncio.timeout(WAIT_S):
            while view["turn"] is None and view["status"] == "playing":
                view = await self.view(play_id, token, after=view["version"])
        return dict(view)

    async def finished(self, play_id: int, token: dict[str, str]) -> dict[str, Any]:
        view = await self.view(play_id, token)
        async with asyncio.timeout(WAIT_S):
            while view["status"] == "playing":
                view = await self.view(play_id, token, after=view["version"])
        return dict(view)


async def _house(pool: asyncpg.Pool) -> int:
    existing = await db_play.house_bots(pool, house_account=None)
    for bot in existing:
        if bot.url == "builtin:heuristic":
            return bot.id
    owner = await make_account(pool, "house-owner")
    return await make_bot(pool, owner, url="builtin:heuristic", prefix="house-heuristic")


async def _table(
    api_database_url: str, guard: NetworkGuard, play: PlaySettings
) -> AsyncIterator[Table]:
    async with app_client(api_database_url, guard, settings_fields={"play": play}) as (
        pool,
        client,
    ):
        yield Table(pool, client, await _house(pool))


@pytest.fixture
async def table(api_database_url: str, guard: NetworkGuard) -> AsyncIterator[Table]:
    async for made in _table(api_database_url, guard, PlaySettings(clock_s=30)):
        yield made


@pytest.fixture
async def quick_table(api_database_url: str, guard: NetworkGuard) -> AsyncIterator[Table]:
    async for made in _table(api_database_url, guard, PlaySettings(clock_s=0.2, per_address=1)):
        yield made


def _first(view: dict[str, Any]) -> dict[str, Any]:
    first = view["turn"]["legal_actions"][0]
    return {"number": view["turn"]["number"], "action": first["action"], "card": first.get("card")}


async def test_a_person_plays_a_whole_match_against_the_house_heuristic(table: Table) -> None:
    ratings_before = await db_bots.ratings(table.pool, [table.house])
    record_before = await db_play.record_vs_people(table.pool, table.house)
    play_id, token, view = await table.start(points_to_win=15)
    assert view["opponent"]["bot_id"] == table.house and view["status"] == "playing"
    decisions = 0
    async with asyncio.timeout(WAIT_S * 4):
        while True:
            view = await table.turn(play_id, token)
            if view["status"] != "playing":
                break
            observation = view["observation"]
            assert observation["seat"] == observation["to_act"]  # the person's own seat only
            assert len(observation["cards"]) <= 3
            answer = await table.client.post(
                f"/v1/play/{play_id}/act", json=_first(view), headers=token
            )
            assert answer.status_code == 200, answer.text
            decisions += 1
    assert view["status"] == "finished" and decisions > 0
    assert view["outcome"]["reason"] != "walkover"
    replay_answer = await table.client.get(view["replay_url"])
    assert replay_answer.status_code == 200
    replay = load_replay(replay_answer.content)
    verify_replay(replay)
    faults = [e for g in replay.games for e in g.events if isinstance(e, Decision) and e.fault]
    assert faults == []
    assert replay.entrants[1].source == f"bot:{table.house}"
    # never a rated match: the bot's ratings are as they were, its record against people counts it
    assert await db_bots.ratings(table.pool, [table.house]) == ratings_before
    matches = await table.pool.fetchval(
        "SELECT count(*) FROM match_entrants WHERE bot_id = $1", table.house
    )
    assert matches == 0
    record = await db_play.record_vs_people(table.pool, table.house)
    assert record.played == record_before.played + 1
    # the stored result is the one result document, typed where the row is read
    stored = await db_play.get_play_match(table.pool, play_id)
    assert stored is not None and stored.result == played_result(replay)
    assert stored.rules == replay.rules
    page = await table.client.get(f"/bots/{table.house}?lang=en")
    assert page.status_code == 200 and "Against people (never rated)" in page.text


async def test_wrong_tokens_illegal_and_stale_actions_are_clear_4xx(table: Table) -> None:
    play_id, token, _ = await table.start()
    other_id, other_token, _ = await table.start()
    view = await table.turn(play_id, token)
    assert view["turn"] is not None
    act = f"/v1/play/{play_id}/act"
    wrong = await table.client.post(act, json=_first(view), headers=other_token)
    assert wrong.status_code == 403 and wrong.json()["type"].endswith("/play-token-wrong")
    missing = await table.client.get(f"/v1/play/{play_id}")
    assert missing.status_code == 401
    unknown = await table.client.get("/v1/play/999999999", headers=token)
    assert unknown.status_code == 404
    illegal = {"number": view["turn"]["number"], "action": "play", "card": "not"}
    refused = await table.client.post(act, json=illegal, headers=token)
    assert refused.status_code == 422 and "not a legal action" in refused.json()["detail"]
    stale = dict(_first(view), number=view["turn"]["number"] + 5)
    closed = await table.client.post(act, json=stale, headers=token)
    assert closed.status_code == 409
    garbage = await table.client.post(act, json={"number": "x"}, headers=token)
    assert 400 <= garbage.status_code < 500
    for leaving, leaving_token in ((play_id, token), (other_id, other_token)):
        left = await table.client.post(f"/v1/play/{leaving}/leave", headers=leaving_token)
        assert left.status_code == 200


async def test_leaving_forfeits(table: Table) -> None:
    play_id, token, _ = await table.start()
    await table.turn(play_id, token)
    left = await table.client.post(f"/v1/play/{play_id}/leave", headers=token)
    assert left.status_code == 200
    view = await table.finished(play_id, token)
    assert view["outcome"]["person_won"] is False and view["outcome"]["winner_side"] == 1
    replay = load_replay((await table.client.get(view["replay_url"])).content)
    assert replay.games[-1].forfeit == 0
    verify_replay(replay)


async def test_no_answer_in_time_is_a_timeout_fault_and_the_caps(quick_table: Table) -> None:
    table = quick_table
    play_id, token, _ = await table.start()
    second = await table.client.post("/v1/play", json={})
    assert second.status_code == 429 and second.json()["type"].endswith("too-many-play-sessions")
    view = await table.finished(play_id, token)
    assert view["outcome"]["person_won"] is False
    replay = load_replay((await table.client.get(view["replay_url"])).content)
    faults = [e for g in replay.games for e in g.events if isinstance(e, Decision) and e.fault]
    assert faults and {f.fault for f in faults} == {"timeout"}
    assert all(f.seat in replay.games[-1].seats and f.fallback for f in faults)
    again = await table.client.post("/v1/play", json={})  # the slot is free again
    assert again.status_code == 201
    await table.client.post(
        f"/v1/play/{again.json()['id']}/leave", headers={"X-Play-Token": again.json()["token"]}
    )


async def test_other_bots_need_an_account(table: Table) -> None:
    owner = await make_account(table.pool, "someone")
    bot = await make_bot(table.pool, owner)
    refused = await table.client.post("/v1/play", json={"bot_id": bot})
    assert refused.status_code == 401 and "house bots" in refused.json()["detail"]
    bad = await table.client.post("/v1/play", json={"points_to_win": 20})
    assert bad.status_code in (400, 422)


async def test_a_2v2_with_a_house_partner_and_senas(table: Table) -> None:
    play_id, token, view = await table.start(players=4)
    assert view["partner"] is not None and view["rules"]["players"] == 4
    first = await table.turn(play_id, token)
    body = dict(_first(first), sena="tres")
    answer = await table.client.post(f"/v1/play/{play_id}/act", json=body, headers=token)
    assert answer.status_code == 200, answer.text
    bad = await table.turn(play_id, token)
    if bad["status"] == "playing":
        refused = await table.client.post(
            f"/v1/play/{play_id}/act", json=dict(_first(bad), sena="nope"), headers=token
        )
        assert refused.status_code == 422 and "seña" in refused.json()["detail"]
        left = await table.client.post(f"/v1/play/{play_id}/leave", headers=token)
        assert left.status_code == 200
    view = await table.finished(play_id, token)
    replay = load_replay((await table.client.get(view["replay_url"])).content)
    verify_replay(replay)
    assert len(replay.entrants) == 4 and replay.entrants[0].source == "person"
    person_seat = replay.games[0].seats.index(0)
    said = [
        e
        for e in replay.games[0].events
        if isinstance(e, ActionTaken) and e.seat == person_seat and e.sena is not None
    ]
    assert said and said[0].sena == "tres"


async def test_senas_are_for_2v2_only(table: Table) -> None:
    play_id, token, _ = await table.start()
    view = await table.turn(play_id, token)
    refused = await table.client.post(
        f"/v1/play/{play_id}/act", json=dict(_first(view), sena="tres"), headers=token
    )
    assert refused.status_code == 422 and "2v2" in refused.json()["detail"]
    await table.client.post(f"/v1/play/{play_id}/leave", headers=token)


async def test_a_signed_in_person_plays_an_open_http_bot(
    table: Table, bot_server: BotServer, guard: NetworkGuard
) -> None:
    """The bot is called over HTTP (the SDK's server on 127.0.0.1) from the API process, through
    the guarded client; someone else's closed bot is a 403."""
    api = Api(table.client, table.pool, guard)
    _, owner = await api.account("owner")
    _, person = await api.account("person")
    bot = await api.bot(owner, bot_server.url, "open-bot")
    closed = await api.bot(owner, bot_server.url, "closed-bot")
    opened = await table.client.patch(f"/v1/bots/{bot['id']}", json={"open": True}, headers=owner)
    assert opened.status_code == 200, opened.text
    refused = await table.client.post("/v1/play", json={"bot_id": closed["id"]}, headers=person)
    assert refused.status_code == 403
    answer = await table.client.post("/v1/play", json={"bot_id": bot["id"]}, headers=person)
    assert answer.status_code == 201, answer.text
    play_id, token = answer.json()["id"], {"X-Play-Token": answer.json()["token"]}
    async with asyncio.timeout(WAIT_S * 4):
        while True:
            view = await table.turn(play_id, token)
            if view["status"] != "playing":
                break
            acted = await table.client.post(
                f"/v1/play/{play_id}/act", json=_first(view), headers=token
            )
            assert acted.status_code == 200, acted.text
    replay = load_replay((await table.client.get(view["replay_url"])).content)
    verify_replay(replay)
    assert replay.entrants[1].source == f"bot:{bot['id']}"
    assert replay.result.reason != "walkover"
    assert guard.connected and all(host == "127.0.0.1" for host, _ in guard.connected)
