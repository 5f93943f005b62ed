"""Reading the live feed (the API and the web pages): a match's items from its Redis list, the
channel that says a match was written, and one reader per app.

Readers never write, so watching a match cannot change or slow what its worker does; a Redis
error reads as "nothing (new)" and the next poll tries again. The list, its channel and its
items are :mod:`services.live.feed`'s; the writer is :mod:`services.live.publisher`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, MutableMapping
from typing import Any, cast

import redis
import redis.asyncio

from services.base.config import RedisSettings
from services.live.feed import live_channel, live_key

logger = logging.getLogger(__name__)

REDIS_TIMEOUT_S = 0.5


class LiveReader:
    """Reads live items from Redis (asyncio client, short timeouts; errors read as empty)."""

    def __init__(self, url: str, prefix: str) -> None:
        self.url = url
        self.prefix = prefix
        self.client: redis.asyncio.Redis = redis.asyncio.Redis.from_url(
            url, socket_timeout=REDIS_TIMEOUT_S, socket_connect_timeout=REDIS_TIMEOUT_S
        )

    async def items(self, match_id: int) -> list[bytes | str]:
        try:
            found = await cast(
                Awaitable[list[bytes | str]],
                self.client.lrange(live_key(self.prefix, match_id), 0, -1),
            )
        except (redis.RedisError, OSError) as exc:
            logger.warning("live view of match %s unreadable: %s", match_id, exc)
            return []
        return found

    async def length(self, match_id: int) -> int:
        try:
            return await cast(Awaitable[int], self.client.llen(live_key(self.prefix, match_id)))
        except (redis.RedisError, OSError):
            return 0

    async def since(self, match_id: int, start: int) -> tuple[bytes | None, list[bytes]]:
        """One round trip: the list's first item (its run's header; None if the list is gone)
        and the items from index ``start`` on (the live stream's poll: O(new items)).
        A Redis error reads as "nothing new" (the next poll tries again)."""
        key = live_key(self.prefix, match_id)
        try:
            pipe = self.client.pipeline(transaction=True)
            pipe.lindex(key, 0)
            pipe.lrange(key, start, -1)
            first, items = await pipe.execute()
        except (redis.RedisError, OSError) as exc:
            logger.warning("live view of match %s unreadable: %s", match_id, exc)
            return b"", []
        return first, list(items)

    async def notifications(self, retry_s: float = 1.0) -> AsyncIterator[int]:
        """The ids of matches whose items were just written (:func:`live_channel`), for ever:
        a lost connection is logged and subscribed again after ``retry_s`` (what was
        published meanwhile is missed; the readers' polling covers it)."""
        channel = live_channel(self.prefix)
        while True:
            # a connection of its own, without the readers' short read timeout: it waits
            client = redis.asyncio.Redis.from_url(
                self.url, socket_connect_timeout=REDIS_TIMEOUT_S, health_check_interval=30
            )
            pubsub = client.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(channel)
                while True:
                    message = await pubsub.get_message(timeout=5.0)
                    if message is None or message.get("type") != "message":
                        continue
                    try:
                        yield int(message["data"])
                    except (TypeError, ValueError):
                        continue
            except (redis.RedisError, OSError) as exc:
                logger.warning("live notifications lost, subscribing again: %s", exc)
            finally:
                with contextlib.suppress(redis.RedisError, OSError):
                    await pubsub.aclose()
                    await client.aclose()
            await asyncio.sleep(retry_s)

    async def aclose(self) -> None:
        await self.client.aclose()


READER_STATE_KEY = "live_reader"


def reader_for(state: MutableMapping[str, Any], redis: RedisSettings) -> LiveReader:
    """The app's reader (made on first use, kept in the app's ``state``): the API's Redis
    (``REDIS_URL``, else the workers' local default) and key prefix (``TRUCO_REDIS_PREFIX``,
    which must be the workers')."""
    found = state.get(READER_STATE_KEY)
    if isinstance(found, LiveReader):
        return found
    reader = LiveReader(redis.url_or_local, redis.prefix)
    state[READER_STATE_KEY] = reader
    return reader


__all__ = ["READER_STATE_KEY", "LiveReader", "reader_for"]
