"""The live stream never shows a card early: a real match played by the play task's code
(SDK bots on 127.0.0.1 over HTTP, the live feed written to the real Redis) while a spectator
follows ``GET /v1/matches/{id}/stream`` on the API served by uvicorn. Every message is one
live item with its index as id, in order; no message carries a deal, a seña, a seed, or a card
that has not been played by then (hand-end proofs aside, as R-11 allows); and the stream, put
together, is exactly the spectator view of the full replay. Then the match is decided and the
stream ends with its status."""

from __future__ import annotations

import asyncio
from typing import Any

import asyncpg
import httpx
import pytest
import redis

from arena.client.signing import generate_secret
from arena.match.verify import verify_replay
from services import flow
from services.base.config import DatabaseSettings, RedisSettings, Secret, SecretSettings, Settings
from services.live import feed as live_feed
from services.live import publisher as live
from services.worker.matches import play_match as play
from tests.servers import RedisTarget
from tests.services.helpers.sse_client import Message, messages, serve
from tests.services.worker.fixtures import SECRET_KEY, make_account, make_bot
from tests.services.worker.matches.test_live import (
    _message,
    cards_in,
    expected_spectator_events,
    keys_in,
)

pytestmark = pytest.mark.anyio
PROOFS = ("hand_ended", "game_ended")  # a hand's end shows the envido proofs


async def _collect(response: httpx.Response, out: list[Message]) -> None:
    async for message in messages(response):
        out.append(message)
        if message.event == "end":
            return


@pytest.mark.parametrize("players", [2, 4])
async def test_a_spectator_stream_never_shows_a_card_before_it_is_played(
    pool: asyncpg.Pool,
    database_url: str,
    worker_env: RedisTarget,
    bot_server_factory: Any,
    players: int,
) -> None:
    settings = play.app.settings
    keys = [generate_secret(), generate_secret()]
    bots = [bot_server_factory("heuristic", keys[0]), bot_server_factory("random", keys[1])]
    owner = await make_account(pool)
    bot_ids = [await make_bot(pool, owner, b.url, k) for b, k in zip(bots, keys, strict=True)]
    match_id = await flow.create_challenge(
        pool, bot_ids[0], bot_ids[1], mode="1v1", rules={}, games_per_match=2, rated=False
    )
    message = _message(bots, keys, match_id, players=players, sena_seen_by_opponents=0.5)
    api_settings = Settings(
        database=DatabaseSettings(url=database_url),
        redis=RedisSettings(url=worker_env.url, prefix=settings.redis.prefix),
        secrets=SecretSettings(key=Secret(SECRET_KEY)),
    )
    key = live_feed.live_key(settings.redis.prefix, match_id)
    feed = redis.Redis.from_url(worker_env.url)
    feed.delete(key)  # match ids repeat across the run's databases; the prefix is the run's
    received: list[Message] = []
    with serve(api_settings) as served:
        url = f"{served.base}/v1/matches/{match_id}/stream"
        async with httpx.AsyncClient(timeout=60) as client, client.stream("GET", url) as response:
            assert response.status_code == 200
            spectator = asyncio.create_task(_collect(response, received))
            replay = await play.play(message, allow_loopback=True, live=settings)
            play.live_writes(worker_env.url).flush()
            length = feed.llen(key)
            for _ in range(400):
                if len(received) >= length:
                    break
                await asyncio.sleep(0.05)
            # the trusted worker stores the result and deletes the feed
            await pool.execute(
                "UPDATE matches SET status = 'done', winner_side = 0 WHERE id = $1", match_id
            )
            live.clear_live(feed, settings.redis.prefix, match_id)
            await asyncio.wait_for(spectator, 30)
    feed.close()
    verify_replay(replay)

    assert received[-1].event == "end" and received[-1].json()["status"] == "done"
    items = received[:-1]
    assert [m.id for m in items] == [str(k) for k in range(len(items))] and len(items) == length
    assert items[0].event == "run" and all(m.event == "message" for m in items[1:])
    played: set[str] = set()
    games: dict[int, list[dict[str, Any]]] = {}
    for m in items[1:]:
        item = m.json()
        assert not keys_in(item) & {"deal", "sena", "sena_seen_by", "seed", "detail"}, item
        events = item["events"]
        played |= {e["card"] for e in events if e.get("type") == "action" and e.get("card")}
        shown = cards_in([e for e in events if e.get("type") not in PROOFS])
        assert shown <= played, (shown - played, item)
        games.setdefault(item["game"], []).extend(events)
    assert sorted(games) == [1, 2]
    for k, number in enumerate(sorted(games)):
        assert games[number] == expected_spectator_events(replay, k)
