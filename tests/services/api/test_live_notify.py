"""A worker's write wakes the API's poller at once: the feed's safety-net poll is set to an
hour here, so every item of a real match reaches the feed only through the live channel's
notifications (``LivePublisher`` publishes, the hub's one subscription nudges the feed)."""

from __future__ import annotations

import asyncio
import time

import pytest
import redis

from arena.client.connection import InProcessBot
from arena.match.replay import EntrantRecord
from arena.match.runner import MatchSettings, run_match
from arena.sdk import strategy_decider
from engine.rules import Rules
from services.api.sse.feeds import Feed, Hub, poll_match
from services.live import feed as live_feed
from services.live import publisher as live
from services.live.reader import LiveReader
from services.worker.results import store as store_results
from tests.servers import RedisTarget

pytestmark = pytest.mark.anyio
HOUR_S = 3600.0
WAIT_S = 30.0
MATCH_ID = 424242


async def _never_decided() -> bytes | None:
    return None


async def _until(check: object, what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not check():  # type: ignore[operator]
        assert time.monotonic() < deadline, what
        await asyncio.sleep(0.02)


async def test_every_item_reaches_the_feed_through_notifications_not_polls(
    redis_target: RedisTarget,
) -> None:
    writer = redis.Redis.from_url(redis_target.url)
    reader = LiveReader(redis_target.url, redis_target.prefix)
    hub = Hub()
    publisher = live.LivePublisher(writer, redis_target.prefix, MATCH_ID)
    publisher.begin()  # the header, before anyone watches

    async def poller(feed: Feed) -> None:
        await poll_match(feed, reader, MATCH_ID, _never_decided, poll_s=HOUR_S, status_s=HOUR_S)

    try:
        hub.listen(reader.notifications)
        channel = live_feed.live_channel(redis_target.prefix)
        await _until(
            lambda: dict(writer.pubsub_numsub(channel)).get(channel.encode(), 0) >= 1,
            "the hub subscribed",
        )
        async with hub.watch(("match", MATCH_ID), poller) as feed:
            await _until(lambda: len(feed.frames) == 1, "the header, read at once")
            bots = [
                (EntrantRecord(n, f"builtin:{n}"), InProcessBot(n, strategy_decider(n, k)))
                for k, n in enumerate(("heuristic", "random"))
            ]
            await run_match(
                "m", 3, MatchSettings(rules=Rules(points_to_win=15), games_per_match=1), bots,
                publisher.progress,
            )  # fmt: skip
            publisher.close()
            written = writer.llen(live_feed.live_key(redis_target.prefix, MATCH_ID))
            assert written > 10 and publisher.writes > 2
            await _until(lambda: len(feed.frames) == written, "every item, by notification")
            assert [f.split(b"\n")[0] for f in feed.frames[:2]] == [b"id: 0", b"id: 1"]
    finally:
        await hub.aclose()
        await reader.aclose()
        writer.delete(live_feed.live_key(redis_target.prefix, MATCH_ID))
        writer.close()


async def test_a_publisher_told_not_to_notify_publishes_nothing(redis_target: RedisTarget) -> None:
    writer = redis.Redis.from_url(redis_target.url)
    pubsub = writer.pubsub(ignore_subscribe_messages=True)
    channel = live_feed.live_channel(redis_target.prefix)
    pubsub.subscribe(channel)
    try:
        quiet = live.LivePublisher(writer, redis_target.prefix, MATCH_ID + 1, notify=False)
        loud = live.LivePublisher(writer, redis_target.prefix, MATCH_ID + 2)
        quiet.begin()
        loud.begin()
        got = []
        deadline = time.monotonic() + WAIT_S
        while not got and time.monotonic() < deadline:
            message = pubsub.get_message(timeout=0.5)
            if message is not None:
                got.append(message["data"])
        assert got == [str(MATCH_ID + 2).encode()]  # the quiet one's write came first
    finally:
        pubsub.close()
        writer.delete(*(live_feed.live_key(redis_target.prefix, MATCH_ID + k) for k in (1, 2)))
        writer.close()


async def test_the_items_written_before_the_result_reach_the_stream(
    redis_target: RedisTarget,
) -> None:
    """The last items, written just before the result was sent, and the result stored (the
    match ``done``, its feed dropped by the trusted worker) before the poller read them: the
    stream still gives them, then ends. (Found by the cluster soak: the feed was deleted at
    once, the poller found it gone and ended the stream without them.)"""
    writer = redis.Redis.from_url(redis_target.url)
    reader = LiveReader(redis_target.url, redis_target.prefix)
    hub = Hub()  # not listening: the poller reads only when nudged here
    publisher = live.LivePublisher(writer, redis_target.prefix, MATCH_ID + 1)
    publisher.begin()
    stored: list[bytes] = []

    async def decided() -> bytes | None:
        return stored[0] if stored else None

    async def poller(feed: Feed) -> None:
        await poll_match(feed, reader, MATCH_ID + 1, decided, poll_s=HOUR_S, status_s=0)

    try:
        async with hub.watch(("match", MATCH_ID + 1), poller) as feed:
            await _until(lambda: len(feed.frames) == 1, "the header, read at once")
            bots = [
                (EntrantRecord(n, f"builtin:{n}"), InProcessBot(n, strategy_decider(n, k)))
                for k, n in enumerate(("heuristic", "random"))
            ]
            await run_match(
                "m", 3, MatchSettings(rules=Rules(points_to_win=15), games_per_match=1), bots,
                publisher.progress,
            )  # fmt: skip
            publisher.close()
            written = writer.llen(live_feed.live_key(redis_target.prefix, MATCH_ID + 1))
            stored.append(b"event: end\ndata: {}\n\n")  # the result is stored ...
            drop_live_now = store_results.LIVE_LINGER_S
            live.clear_live(writer, redis_target.prefix, MATCH_ID + 1, drop_live_now)  # ... dropped
            feed.nudge()  # the poller, behind until now, reads
            await _until(lambda: feed.end is not None, "the end")
            assert len(feed.frames) == written > 10
    finally:
        await hub.aclose()
        await reader.aclose()
        writer.delete(live_feed.live_key(redis_target.prefix, MATCH_ID + 1))
        writer.close()
