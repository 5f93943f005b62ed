"""Issue 21, break 4: one account registered 1,000 bots (no limit), entered them in an
individual 2v2 Swiss, and ``POST /start`` held every other request for the pairing's 3.1 s.

Bots per account and entries per event have limits (a 409 saying the limit), and the pairing
runs off the event loop: a request sent while a 1,000-bot start is pairing is answered before
that start is."""

from __future__ import annotations

import asyncio
import importlib
import threading
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import pytest

from arena.sdk import BotServer
from services.base.config import SizeLimits
from services.db import matches as db_matches
from services.domain.names import name_key
from tests.security.helpers import assert_problem
from tests.services.helpers.api_helpers import Api, NetworkGuard, app_client, unique
from tests.services.helpers.flow_helpers import make_account, make_bot

pytestmark = pytest.mark.anyio
flow_advance = importlib.import_module("services.flow.advance")  # the package names a function so
BOTS, ENTRIES = 3, 5


@pytest.fixture
async def sized_api(api_database_url: str, guard: NetworkGuard) -> AsyncIterator[Api]:
    """The API with small size limits and a sender that queues nothing."""

    async def hold(pool: asyncpg.Pool, match_ids: list[int]) -> None:
        return None

    fields = {"sizes": SizeLimits(bots_per_account=BOTS, entries_per_event=ENTRIES)}
    async with app_client(
        api_database_url, guard, pool_size=8, settings_fields=fields, sender=hold
    ) as (pool, client):
        yield Api(client, pool, guard)


async def _register(api: Api, headers: dict[str, str], url: str) -> int:
    answer = await api.client.post(
        "/v1/bots", json={"name": unique("sized"), "url": url}, headers=headers
    )
    return answer.status_code


async def _registered(api: Api, headers: dict[str, str], url: str) -> int:
    answer = await api.client.post(
        "/v1/bots", json={"name": unique("sized"), "url": url}, headers=headers
    )
    assert answer.status_code == 201, answer.text
    return int(answer.json()["id"])


async def test_the_bot_past_the_limit_is_a_409_naming_it(
    sized_api: Api, bot_server: BotServer
) -> None:
    api = sized_api
    _, owner = await api.account("many-bots")
    mine = [await _registered(api, owner, bot_server.url) for _ in range(BOTS)]
    refused = await api.client.post(
        "/v1/bots", json={"name": unique("one-more"), "url": bot_server.url}, headers=owner
    )
    problem = assert_problem(refused, 409)
    assert problem["type"] == "/problems/too-many-bots"
    assert f"at most {BOTS} bots" in problem["detail"]
    # deleting one frees a place; another account is not affected
    deleted = await api.client.delete(f"/v1/bots/{mine[0]}", headers=owner)
    assert deleted.status_code in (200, 204), deleted.text
    assert await _register(api, owner, bot_server.url) == 201
    _, other = await api.account("other")
    assert await _register(api, other, bot_server.url) == 201


async def test_a_burst_of_registrations_stops_exactly_at_the_limit(
    sized_api: Api, bot_server: BotServer
) -> None:
    api = sized_api
    _, owner = await api.account("burst")
    answers = await asyncio.gather(*(_register(api, owner, bot_server.url) for _ in range(8)))
    assert sorted(answers) == [201] * BOTS + [409] * (8 - BOTS)


async def _individual_swiss(api: Api, organiser: dict[str, str]) -> int:
    body: dict[str, Any] = {
        "name": unique("big 2v2"),
        "format": "swiss",
        "mode": "2v2",
        "partnership": "individual",
        "games_per_match": 2,
        "rules": {"points_to_win": 15},
    }
    created = await api.client.post("/v1/tournaments", json=body, headers=organiser)
    assert created.status_code == 201, created.text
    return int(created.json()["id"])


async def test_the_entry_past_the_limit_is_a_409_naming_it(sized_api: Api) -> None:
    api = sized_api
    organiser_id, organiser = await api.account("full-event")
    tid = await _individual_swiss(api, organiser)
    bots = [await make_bot(api.pool, organiser_id) for _ in range(ENTRIES + 1)]
    for bot in bots[:ENTRIES]:
        entered = await api.client.post(
            f"/v1/tournaments/{tid}/entries", json={"bot_id": bot}, headers=organiser
        )
        assert entered.status_code == 201, entered.text
    refused = await api.client.post(
        f"/v1/tournaments/{tid}/entries", json={"bot_id": bots[-1]}, headers=organiser
    )
    problem = assert_problem(refused, 409)
    assert problem["type"] == "/problems/tournament-full"
    assert f"has {ENTRIES} entries" in problem["detail"]


@pytest.fixture
async def big_api(api_database_url: str, guard: NetworkGuard) -> AsyncIterator[Api]:
    async def hold(pool: asyncpg.Pool, match_ids: list[int]) -> None:
        return None

    async with app_client(api_database_url, guard, pool_size=6, sender=hold) as (
        pool,
        client,
    ):
        yield Api(client, pool, guard)


async def _enter_many(api: Api, tid: int, bots: int, owners: int) -> None:
    """``bots`` bots of ``owners`` accounts, stored and entered in bulk (through the API a
    thousand registrations take minutes; no match is played, so the secret is a stub)."""
    accounts = [await make_account(api.pool, "field") for _ in range(owners)]
    names = [unique("f") for _ in range(bots)]
    made = await api.pool.fetch(
        "INSERT INTO bots (owner_id, name, name_key, url, signing_secret_enc, signing_key_id) "
        "SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::bytea[], "
        "$6::text[]) RETURNING id",
        [accounts[k % owners] for k in range(bots)],
        names,
        [name_key(name) for name in names],
        ["http://127.0.0.1:9"] * bots,
        [b"stub"] * bots,
        ["stub"] * bots,
    )
    await api.pool.executemany(
        "INSERT INTO tournament_entries (tournament_id, bot_id) VALUES ($1, $2)",
        [(tid, row["id"]) for row in made],
    )


async def test_a_request_during_a_1000_bot_start_is_answered_before_the_start(
    big_api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The start's pairing waits (in its thread, up to 120 s) until another request has been
    answered; on the event loop that wait would hold the other request behind it."""
    api = big_api
    _, organiser = await api.account("big-start")
    tid = await _individual_swiss(api, organiser)
    await _enter_many(api, tid, 1000, 250)
    pairing, answered = threading.Event(), threading.Event()
    real_plan = flow_advance._plan

    def held_plan(*args: Any) -> Any:
        pairing.set()
        answered.wait(timeout=120)
        return real_plan(*args)

    monkeypatch.setattr(flow_advance, "_plan", held_plan)
    finished: list[str] = []

    async def start() -> Any:
        answer = await api.client.post(f"/v1/tournaments/{tid}/start", headers=organiser)
        finished.append("start")
        return answer

    starting = asyncio.create_task(start())
    for _ in range(6000):  # eventually (60 s): the start reaches its pairing
        if pairing.is_set() or starting.done():
            break
        await asyncio.sleep(0.01)
    assert pairing.is_set() and not starting.done()
    other = await api.client.get(f"/v1/tournaments/{tid}")
    finished.append("other")
    answered.set()
    started = await starting
    assert finished == ["other", "start"]
    assert other.status_code == 200 and other.json()["status"] == "registering"
    assert started.status_code == 202, started.text
    assert len(started.json()["queued"]) == 250  # every bot seated, four a table
    matches = await db_matches.tournament_matches(api.pool, tid)
    seated = [bot for match in matches for bot in match.seats]
    assert len(seated) == len(set(seated)) == 1000
    rows = await api.pool.fetch(
        "SELECT id, owner_id FROM bots WHERE id = ANY($1::bigint[])", seated
    )
    owners = {row["id"]: row["owner_id"] for row in rows}
    for match in matches:  # 250 owners, 4 bots each: no table need share an owner
        assert len({owners[bot] for bot in match.seats}) == 4
