"""Abuse finding 4 (challenge flooding: per-account and per-bot quotas on open challenges, a
bot closed to others' challenges) and issue 12 point 6 (open bots: anyone may enter them
into their own tournaments)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import asyncpg
import pytest

from arena.sdk import BotServer
from services.base.config import ChallengeQuota
from tests.security.helpers import assert_problem
from tests.services.helpers.api_helpers import Api, NetworkGuard, app_client, unique

pytestmark = pytest.mark.anyio
PER_ACCOUNT, PER_BOT = 6, 3


@pytest.fixture
async def quota_api(api_database_url: str, guard: NetworkGuard) -> AsyncIterator[Api]:
    """The API with small quotas and a sender that queues nothing: challenges stay open."""
    queued: list[int] = []

    async def hold(pool: asyncpg.Pool, match_ids: list[int]) -> None:
        queued.extend(match_ids)

    fields = {"challenges": ChallengeQuota(per_account=PER_ACCOUNT, per_bot=PER_BOT)}
    async with app_client(
        api_database_url, guard, pool_size=8, settings_fields=fields, sender=hold
    ) as (pool, client):
        yield Api(client, pool, guard)


async def _challenge(api: Api, headers: dict[str, str], bot_a: object, bot_b: object) -> int:
    body = {"bot_a": bot_a, "bot_b": bot_b, "games_per_match": 2}
    answer = await api.client.post("/v1/challenges", json=body, headers=headers)
    return answer.status_code


async def test_a_challenge_burst_against_one_bot_stops_at_its_quota(
    quota_api: Api, bot_server: BotServer
) -> None:
    api = quota_api
    _, victim = await api.account("victim")
    _, flooder = await api.account("flooder")
    target = (await api.bot(victim, bot_server.url))["id"]
    mine = (await api.bot(flooder, bot_server.url))["id"]
    body = {"bot_a": mine, "bot_b": target, "games_per_match": 54}
    answers = await asyncio.gather(
        *(api.client.post("/v1/challenges", json=body, headers=flooder) for _ in range(20))
    )
    assert sorted(r.status_code for r in answers) == [202] * PER_BOT + [429] * (20 - PER_BOT)
    refused = next(r for r in answers if r.status_code == 429)
    problem = assert_problem(refused, 429)
    assert problem["type"] == "/problems/too-many-challenges"
    assert f"bot {target}" in problem["detail"]
    assert int(refused.headers["retry-after"]) >= 1
    open_count = await api.pool.fetchval(
        "SELECT count(*) FROM match_entrants e JOIN matches m ON m.id = e.match_id "
        "WHERE e.bot_id = $1 AND m.tournament_id IS NULL",
        target,
    )
    assert open_count == PER_BOT
    # the owner's own bots are not held back by strangers' challenges
    own = (await api.bot(victim, bot_server.url))["id"]
    assert await _challenge(api, victim, own, target) == 202
    # once a challenge is over, its slot is free again
    await api.pool.execute(
        "UPDATE matches SET status = 'error' WHERE id = (SELECT min(m.id) FROM matches m "
        "JOIN match_entrants e ON e.match_id = m.id AND e.side = 0 WHERE e.bot_id = $1)",
        mine,
    )
    assert await _challenge(api, flooder, mine, target) == 202


async def test_an_account_has_a_quota_of_open_challenges(
    quota_api: Api, bot_server: BotServer
) -> None:
    api = quota_api
    _, flooder = await api.account("flooder")
    mine = (await api.bot(flooder, bot_server.url))["id"]
    targets = []
    for _ in range(3):
        _, owner = await api.account("owner")
        targets.append((await api.bot(owner, bot_server.url))["id"])
    statuses = [await _challenge(api, flooder, mine, t) for t in targets for _ in range(PER_BOT)]
    assert statuses == [202] * PER_ACCOUNT + [429] * (3 * PER_BOT - PER_ACCOUNT)
    body = {"bot_a": mine, "bot_b": targets[0], "games_per_match": 2}
    refused = await api.client.post("/v1/challenges", json=body, headers=flooder)
    assert "open challenges, the most an account may have" in assert_problem(refused, 429)["detail"]


async def test_a_bot_closed_to_challenges_refuses_other_owners(
    api: Api, bot_server: BotServer
) -> None:
    _, alice = await api.account("alice")
    _, mallory = await api.account("mallory")
    created = await api.client.post(
        "/v1/bots",
        json={"name": unique("closed"), "url": bot_server.url, "challenges": "owner_only"},
        headers=alice,
    )
    assert created.status_code == 201 and created.json()["challenges"] == "owner_only"
    closed = created.json()["id"]
    assert (await api.client.get(f"/v1/bots/{closed}")).json()["challenges"] == "owner_only"
    intruder = (await api.bot(mallory, bot_server.url))["id"]
    refused = await api.client.post(
        "/v1/challenges", json={"bot_a": intruder, "bot_b": closed}, headers=mallory
    )
    assert "only from its owner" in assert_problem(refused, 403)["detail"]
    sparring = (await api.bot(alice, bot_server.url))["id"]
    assert await _challenge(api, alice, sparring, closed) == 202
    # the owner opens it again
    reopened = await api.client.patch(
        f"/v1/bots/{closed}", json={"challenges": "open"}, headers=alice
    )
    assert reopened.status_code == 200 and reopened.json()["challenges"] == "open"
    assert await _challenge(api, mallory, intruder, closed) == 202
    bad = await api.client.patch(f"/v1/bots/{closed}", json={"challenges": "nobody"}, headers=alice)
    assert_problem(bad, 422)


async def test_an_open_bot_can_be_entered_by_an_organiser(api: Api, bot_server: BotServer) -> None:
    _, owner = await api.account("owner")
    _, organiser = await api.account("organiser")
    _, stranger = await api.account("stranger")
    closed = (await api.bot(owner, bot_server.url))["id"]
    opened = await api.client.post(
        "/v1/bots",
        json={"name": unique("open"), "url": bot_server.url, "open": True},
        headers=owner,
    )
    assert opened.status_code == 201 and opened.json()["open"] is True
    open_bot = opened.json()["id"]
    assert (await api.client.get(f"/v1/bots/{open_bot}")).json()["open"] is True
    cup = await api.client.post(
        "/v1/tournaments",
        json={"name": unique("cup"), "format": "round_robin", "mode": "1v1"},
        headers=organiser,
    )
    cup_id = cup.json()["id"]

    async def enter(headers: dict[str, str], bot_id: object) -> int:
        answer = await api.client.post(
            f"/v1/tournaments/{cup_id}/entries", json={"bot_id": bot_id}, headers=headers
        )
        return answer.status_code

    assert await enter(organiser, closed) == 403  # not open: its owner's only
    assert await enter(stranger, open_bot) == 403  # open, but not the stranger's tournament
    assert await enter(organiser, open_bot) == 201
    assert await enter(owner, closed) == 201  # an owner may still enter their own bot
    # closing it again stops further entries and withdraws the organiser's (issue 21, break 8:
    # tests/security/test_abuse_farming.py)
    closing = await api.client.patch(f"/v1/bots/{open_bot}", json={"open": False}, headers=owner)
    assert closing.status_code == 200 and closing.json()["open"] is False
    withdrawn = await api.pool.fetchval(
        "SELECT withdrawn_at IS NOT NULL FROM tournament_entries "
        "WHERE tournament_id = $1 AND bot_id = $2",
        cup_id,
        open_bot,
    )
    assert withdrawn is True
    other_cup = await api.client.post(
        "/v1/tournaments",
        json={"name": unique("cup"), "format": "swiss", "mode": "1v1"},
        headers=organiser,
    )
    answer = await api.client.post(
        f"/v1/tournaments/{other_cup.json()['id']}/entries",
        json={"bot_id": open_bot},
        headers=organiser,
    )
    assert_problem(answer, 403)
