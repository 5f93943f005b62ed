"""/play cannot be closed to everyone by holding sessions (issue 33, 9): 50 addresses x 2
sessions reached the per-process cap of 100, and an answer just before each 60 s clock held a
session for a whole match. Now a game has a bank of the person's thinking time: such a session
forfeits once its bank is spent, and its place goes to the next person.

In process, small numbers: two addresses hold the cap of four sessions with a person who
answers each decision late; a third address is refused while they hold, and gets its session
once they have forfeited. Before the bank, the same people played their 30-point, three-game
matches to the end."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from arena.match.human import BANK_SPENT_DETAIL
from arena.match.replay import Decision, load_replay
from services.base.config import PlaySettings, RateLimits
from services.db.pool import create_pool
from services.launch.app import create_app
from tests.services.helpers.api_helpers import FrozenCounter, NetworkGuard, settings
from tests.services.helpers.flow_helpers import make_account, make_bot

pytestmark = pytest.mark.anyio
HANG_GUARD_S = 120.0
HOLDERS = ("203.0.113.7", "203.0.113.8")
NEWCOMER = "198.51.100.9"
LONG_MATCH = {"points_to_win": 30, "games": 3}


class Platform:
    def __init__(self, app: Any) -> None:
        self.app = app
        self.clients: dict[str, httpx.AsyncClient] = {}

    def client(self, peer: str) -> httpx.AsyncClient:
        if peer not in self.clients:
            transport = httpx.ASGITransport(app=self.app, client=(peer, 4000))  # type: ignore[arg-type]
            self.clients[peer] = httpx.AsyncClient(
                transport=transport, base_url="http://testserver"
            )
        return self.clients[peer]


@pytest.fixture
async def platform(api_database_url: str, guard: NetworkGuard) -> AsyncIterator[Platform]:
    pool = await create_pool(api_database_url, min_size=1, max_size=4)
    owner = await make_account(pool, "house-owner")
    await make_bot(pool, owner, url="builtin:heuristic", prefix="house-heuristic")
    play = PlaySettings(clock_s=5.0, bank_s=1.0, per_address=2, total=4)
    app = create_app(
        settings(api_database_url, play=play),
        pool=pool,
        bot_client_factory=guard.factory,
        rate_limits=RateLimits(accounts_per_hour=1000),
        rate_counter=FrozenCounter(),
    )
    made = Platform(app)
    try:
        yield made
    finally:
        for client in made.clients.values():
            await client.aclose()
        await pool.close()


async def late_answers(client: httpx.AsyncClient, play_id: int, token: dict[str, str]) -> Any:
    """The attack: answer every decision, each one late (most of what the clock allows, here
    0.3 s of its 5 s), until the match is over; the last view."""
    view = (await client.get(f"/v1/play/{play_id}", headers=token)).json()
    while view["status"] == "playing":
        turn = view["turn"]
        if turn is not None:
            await asyncio.sleep(0.3)
            first = turn["legal_actions"][0]
            act = {"number": turn["number"], "action": first["action"], "card": first.get("card")}
            await client.post(f"/v1/play/{play_id}/act", json=act, headers=token)
        view = (
            await client.get(
                f"/v1/play/{play_id}", params={"after": view["version"]}, headers=token
            )
        ).json()
    return view


async def test_held_sessions_forfeit_at_their_bank_and_the_next_person_plays(
    platform: Platform,
) -> None:
    held = []
    for peer in HOLDERS:
        for _ in range(2):
            answer = await platform.client(peer).post("/v1/play", json=LONG_MATCH)
            assert answer.status_code == 201, answer.text
            created = answer.json()
            turn = created["view"]["turn"]
            assert turn is None or turn["bank_left_ms"] <= 1000
            held.append((peer, created["id"], {"X-Play-Token": created["token"]}))
    refused = await platform.client(NEWCOMER).post("/v1/play", json={})
    assert refused.status_code == 429  # the process's four places are held
    async with asyncio.timeout(HANG_GUARD_S):
        ends = await asyncio.gather(
            *(late_answers(platform.client(peer), pid, token) for peer, pid, token in held)
        )
    for end in ends:
        assert end["status"] == "finished" and end["outcome"]["reason"] == "forfeit"
        assert end["outcome"]["person_won"] is False
        replay = load_replay((await platform.client(NEWCOMER).get(end["replay_url"])).content)
        faults = [e for g in replay.games for e in g.events if isinstance(e, Decision) and e.fault]
        assert faults[-1].detail == BANK_SPENT_DETAIL  # forfeited by the bank, not the clock
        assert len(replay.games) == 1  # in the first of its three games
    newcomer = await platform.client(NEWCOMER).post("/v1/play", json={})
    assert newcomer.status_code == 201, newcomer.text
    token = {"X-Play-Token": newcomer.json()["token"]}
    await platform.client(NEWCOMER).post(f"/v1/play/{newcomer.json()['id']}/leave", headers=token)
