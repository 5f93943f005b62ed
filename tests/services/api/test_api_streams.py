"""The live streams on a real server (uvicorn on 127.0.0.1): a match's items arrive as SSE
messages with their index as ``id`` and resume after ``Last-Event-ID``; many spectators of
one match share ONE poller; ``end`` closes the stream (at once for a finished match); caps
per address answer 429 and free up when a client goes away; a tournament's stream sends its
matches and ends when it is cancelled; garbage ids are 400/404, never a 500."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator

import asyncpg
import httpx
import pytest
import redis

from services import flow
from services.api.sse import feeds
from services.api.sse.feeds import Hub
from services.base.config import RedisSettings, StreamSettings
from services.db.pool import create_pool
from services.live import feed as live_feed
from tests.servers import RedisTarget
from tests.services.helpers.api_helpers import settings as app_settings
from tests.services.helpers.flow_helpers import make_account, make_bot, make_tournament
from tests.services.helpers.sse_client import Served, messages, serve, take

pytestmark = pytest.mark.anyio
WAIT_S = 20


@pytest.fixture
def served(api_database_url: str, redis_target: RedisTarget) -> Iterator[Served]:
    settings = app_settings(
        api_database_url,
        redis=RedisSettings(url=redis_target.url, prefix=redis_target.prefix),
        streams=StreamSettings(per_address=3, total=5),
    )
    with serve(settings) as served:
        yield served


@pytest.fixture
async def pool(api_database_url: str) -> AsyncIterator[asyncpg.Pool]:
    created = await create_pool(api_database_url, min_size=1, max_size=2)
    try:
        yield created
    finally:
        await created.close()


@pytest.fixture
def feed_writer(redis_target: RedisTarget) -> Iterator[redis.Redis]:
    """Writes live lists; they are deleted afterwards (match ids repeat across the run's
    databases, the Redis prefix is the run's)."""
    client = redis.Redis.from_url(redis_target.url)
    yield client
    doomed = list(client.scan_iter(match=live_feed.live_key(redis_target.prefix, 0)[:-1] + "*"))
    if doomed:
        client.delete(*doomed)
    client.close()


async def _match(pool: asyncpg.Pool) -> int:
    owner = await make_account(pool)
    bots = [await make_bot(pool, owner) for _ in range(2)]
    return await flow.create_challenge(
        pool, bots[0], bots[1], mode="1v1", rules={}, games_per_match=1, rated=False
    )


def _push(client: redis.Redis, prefix: str, match_id: int, items: list[bytes]) -> None:
    client.rpush(live_feed.live_key(prefix, match_id), *items)


def _item(run: str, k: int) -> bytes:
    return b'{"run":"%s","game":1,"teams":[0,1],"score":[%d,0],"events":[]}' % (run.encode(), k)


def _hub(served: Served) -> Hub:
    hub = served.app.state.get("live_hub")
    assert isinstance(hub, Hub)
    return hub


async def test_items_arrive_in_order_resume_after_last_event_id_and_end(
    served: Served, pool: asyncpg.Pool, feed_writer: redis.Redis, redis_target: RedisTarget
) -> None:
    match_id = await _match(pool)
    prefix = redis_target.prefix
    header = b'{"run":"r1","header":true,"format":"truco-arena-live/1"}'
    _push(feed_writer, prefix, match_id, [header, _item("r1", 1), _item("r1", 2)])
    url = f"{served.base}/v1/matches/{match_id}/stream"
    async with httpx.AsyncClient(timeout=WAIT_S) as client:
        async with client.stream("GET", url) as response:
            assert response.status_code == 200
            assert response.headers["content-type"].startswith("text/event-stream")
            assert response.headers["x-accel-buffering"] == "no"
            stream = messages(response)
            first = await asyncio.wait_for(take(stream, 3), WAIT_S)
            assert [(m.event, m.id) for m in first] == [
                ("run", "0"),
                ("message", "1"),
                ("message", "2"),
            ]
            assert first[2].json()["score"] == [2, 0]
            # a new item is pushed to the open stream
            _push(feed_writer, prefix, match_id, [_item("r1", 3)])
            (more,) = await asyncio.wait_for(take(stream, 1), WAIT_S)
            assert (more.id, more.json()["score"]) == ("3", [3, 0])

        # resume: only what follows the last id received
        _push(feed_writer, prefix, match_id, [_item("r1", 4)])
        async with client.stream("GET", url, headers={"Last-Event-ID": "2"}) as response:
            stream = messages(response)
            resumed = await asyncio.wait_for(take(stream, 2), WAIT_S)
            assert [m.id for m in resumed] == ["3", "4"]
            # the match is decided: the result is stored, the list deleted -> end, closed
            await pool.execute(
                "UPDATE matches SET status = 'done', winner_side = 0 WHERE id = $1", match_id
            )
            feed_writer.delete(live_feed.live_key(prefix, match_id))
            rest = await asyncio.wait_for(take(stream, 10), WAIT_S)  # ends before 10
            assert [m.event for m in rest] == ["end"]
            assert rest[0].json()["status"] == "done"
            assert rest[0].json()["winner_side"] == 0

        # a finished match ends at once
        response = await client.get(url)
        assert response.status_code == 200
        assert "event: end" in response.text and '"status":"done"' in response.text
    for _ in range(100):  # the last subscriber left: the poller stops, the frames go
        if not _hub(served).feeds:
            break
        await asyncio.sleep(0.05)
    assert not _hub(served).feeds


async def test_a_new_run_starts_the_stream_over(
    served: Served, pool: asyncpg.Pool, feed_writer: redis.Redis, redis_target: RedisTarget
) -> None:
    match_id = await _match(pool)
    key = live_feed.live_key(redis_target.prefix, match_id)
    _push(feed_writer, redis_target.prefix, match_id, [b'{"run":"a","header":true}', _item("a", 1)])
    url = f"{served.base}/v1/matches/{match_id}/stream"
    async with (
        httpx.AsyncClient(timeout=WAIT_S) as client,
        client.stream("GET", url) as response,
    ):
        stream = messages(response)
        assert len(await asyncio.wait_for(take(stream, 2), WAIT_S)) == 2
        pipe = feed_writer.pipeline(transaction=True)  # what a redelivered task does
        pipe.delete(key)
        pipe.rpush(key, b'{"run":"b","header":true}', _item("b", 7), _item("b", 8))
        pipe.execute()
        again = await asyncio.wait_for(take(stream, 3), WAIT_S)
        assert [(m.event, m.id) for m in again] == [
            ("run", "0"),
            ("message", "1"),
            ("message", "2"),
        ]
        assert again[0].json()["run"] == "b"


async def test_spectators_of_one_match_share_one_poller_and_caps_hold(
    served: Served, pool: asyncpg.Pool, feed_writer: redis.Redis, redis_target: RedisTarget
) -> None:
    match_id = await _match(pool)
    _push(feed_writer, redis_target.prefix, match_id, [b'{"run":"a","header":true}'])
    url = f"{served.base}/v1/matches/{match_id}/stream"
    async with httpx.AsyncClient(timeout=WAIT_S) as client:
        async with (
            client.stream("GET", url) as one,
            client.stream("GET", url) as two,
            client.stream("GET", url) as three,
        ):
            streams = [messages(response) for response in (one, two, three)]  # kept open
            for response, stream in zip((one, two, three), streams, strict=True):
                assert response.status_code == 200
                await asyncio.wait_for(take(stream, 1), WAIT_S)
            hub = _hub(served)
            assert list(hub.feeds) == [("match", match_id)]
            assert hub.feeds[("match", match_id)].subscribers == 3
            # past the per-address cap (3): a problem, not a stream
            refused = await client.get(url)
            assert refused.status_code == 429
            assert refused.headers["content-type"].startswith("application/problem+json")
            assert refused.json()["type"].endswith("/too-many-streams")
            assert int(refused.headers["retry-after"]) > 0
        # the clients went away: their slots are free again
        for _ in range(100):
            caps = served.app.state.get("stream_caps")
            if caps is not None and caps.open == 0:
                break
            await asyncio.sleep(0.05)
        assert served.app.state["stream_caps"].open == 0
        async with client.stream("GET", url) as again:
            assert again.status_code == 200


async def test_heartbeat_comments_keep_an_idle_stream_open(
    served: Served,
    pool: asyncpg.Pool,
    feed_writer: redis.Redis,
    redis_target: RedisTarget,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(feeds, "HEARTBEAT_S", 0.2)
    match_id = await _match(pool)
    _push(feed_writer, redis_target.prefix, match_id, [b'{"run":"a","header":true}'])
    comments: list[str] = []
    url = f"{served.base}/v1/matches/{match_id}/stream"
    async with (
        httpx.AsyncClient(timeout=WAIT_S) as client,
        client.stream("GET", url) as response,
    ):
        stream = messages(response, comments)
        await asyncio.wait_for(take(stream, 1), WAIT_S)
        await asyncio.sleep(0.6)  # idle for three heartbeats
        _push(feed_writer, redis_target.prefix, match_id, [_item("a", 1)])
        await asyncio.wait_for(take(stream, 1), WAIT_S)
    assert "keep-alive" in comments


async def test_a_tournament_stream_sends_its_matches_and_ends_when_cancelled(
    served: Served, pool: asyncpg.Pool
) -> None:
    tournament_id, _ = await make_tournament(pool, "round_robin", 3)
    await flow.start_tournament(pool, tournament_id)
    url = f"{served.base}/v1/tournaments/{tournament_id}/stream"
    async with httpx.AsyncClient(timeout=WAIT_S) as client:
        async with client.stream("GET", url) as response:
            assert response.status_code == 200
            stream = messages(response)
            seen = []
            async for message in stream:
                seen.append(message)
                if message.event == "tournament":
                    break
            matches = [m.json() for m in seen if m.event == "match"]
            assert matches and all(m["status"] in ("pending", "queued") for m in matches)
            assert seen[-1].json()["status"] == "running"
            await flow.cancel_tournament(pool, tournament_id)
            rest = await asyncio.wait_for(take(stream, 100), WAIT_S)
            assert rest[-1].event == "end" and rest[-1].json()["status"] == "cancelled"
            assert {m.json()["status"] for m in rest if m.event == "match"} <= {"cancelled"}
        response = await client.get(url)  # over: ends at once
        assert "event: end" in response.text


@pytest.mark.parametrize(
    ("path", "headers", "status"),
    [
        ("/v1/matches/999999999/stream", {}, 404),
        ("/v1/matches/0/stream", {}, 400),
        ("/v1/matches/99999999999999999999999/stream", {}, 400),
        ("/v1/matches/abc/stream", {}, 404),
        ("/v1/tournaments/999999999/stream", {}, 404),
        ("/v1/tournaments/-1/stream", {}, 400),
        ("/v1/matches/1/stream", {"Last-Event-ID": "x; DROP"}, 400),
        ("/v1/matches/1/stream", {"Last-Event-ID": "9" * 40}, 400),
    ],
)
async def test_garbage_is_a_problem_never_a_server_error(
    served: Served, path: str, headers: dict[str, str], status: int
) -> None:
    async with httpx.AsyncClient(timeout=WAIT_S) as client:
        response = await client.get(served.base + path, headers=headers)
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
