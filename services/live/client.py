"""The Redis client of the live feed, one per process and URL, with short timeouts: a slow Redis
must not stall a match (the bot-calling worker writes the feed) nor a stored result (the
trusted worker deletes it)."""

from __future__ import annotations

import redis

TIMEOUT_S = 0.5

_live_redis: tuple[str, redis.Redis] | None = None


def live_redis(url: str) -> redis.Redis:
    """This process's client of the live feed on ``url``."""
    global _live_redis
    if _live_redis is None or _live_redis[0] != url:
        client = redis.Redis.from_url(
            url, socket_timeout=TIMEOUT_S, socket_connect_timeout=TIMEOUT_S
        )
        _live_redis = (url, client)
    return _live_redis[1]
