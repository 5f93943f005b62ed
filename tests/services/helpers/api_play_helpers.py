"""Fixtures for the API tests of tournaments, matches and leaderboards.

``play_api`` is the app on the API tests' database with a sender that runs matches in
this process over real HTTP against SDK bot servers on 127.0.0.1 (``bot_servers``), so a
whole tournament runs inside one request to ``/start``; ``idle_api`` leaves matches pending.
"""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass

import asyncpg
import pytest

from arena.sdk import BotServer, strategy_decider
from services.api.deps import MatchSender
from services.base.config import RateLimits
from tests.services.helpers.api_helpers import Api, NetworkGuard, app_client
from tests.services.helpers.flow_helpers import InProcessSender, over_http

NO_LIMITS = RateLimits(enabled=False)


@dataclass
class PlayApi(Api):
    sender: InProcessSender | None = None

    async def bots(self, headers: dict[str, str], servers: list[BotServer]) -> list[int]:
        ids = []
        for server in servers:
            body = await self.bot(headers, server.url)
            ids.append(int(str(body["id"])))
        return ids

    async def tournament(self, headers: dict[str, str], **fields: object) -> dict[str, object]:
        body = {
            "name": f"cup-{secrets.token_hex(3)}",
            "format": "swiss",
            "mode": "1v1",
            "rules": {"points_to_win": 15},
            **fields,
        }
        response = await self.client.post("/v1/tournaments", json=body, headers=headers)
        assert response.status_code == 201, response.text
        created: dict[str, object] = response.json()
        return created


async def _api(
    database_url: str, guard: NetworkGuard, sender: MatchSender | None
) -> AsyncIterator[tuple[asyncpg.Pool, PlayApi]]:
    options = {"sender": sender, "rate_limits": NO_LIMITS}
    async with app_client(database_url, guard, pool_size=8, **options) as (pool, client):
        yield pool, PlayApi(client, pool, guard)
    guard.assert_loopback_only()


@pytest.fixture
async def play_api(api_database_url: str, guard: NetworkGuard) -> AsyncIterator[PlayApi]:
    sender = InProcessSender(over_http)
    async for _, api in _api(api_database_url, guard, sender):
        api.sender = sender
        yield api


async def _no_send(pool: asyncpg.Pool, match_ids: list[int]) -> None:
    return None


@pytest.fixture
async def idle_api(api_database_url: str, guard: NetworkGuard) -> AsyncIterator[PlayApi]:
    """The app with a sender that queues nothing: matches stay pending."""
    async for _, api in _api(api_database_url, guard, _no_send):
        yield api


@pytest.fixture
def bot_servers() -> Iterator[list[BotServer]]:
    """Four real bots on 127.0.0.1: one heuristic, three random."""
    servers = [
        BotServer(strategy_decider(strategy, seed=k), name=f"b{k}", secret=None, port=0)
        for k, strategy in enumerate(["heuristic", "random", "random", "random"])
    ]
    for server in servers:
        server.start()
    try:
        yield servers
    finally:
        for server in servers:
            server.stop()
