"""The Redis client of the live feed, with short timeouts: a slow Redis must not stall a match
(the bot-calling worker writes the feed) nor a stored result (the trusted worker deletes it).
A worker process keeps one per URL in its resources (:mod:`services.worker.resources`)."""

from __future__ import annotations

import redis

TIMEOUT_S = 0.5


def live_redis(url: str) -> redis.Redis:
    """A client of the live feed on ``url``."""
    return redis.Redis.from_url(url, socket_timeout=TIMEOUT_S, socket_connect_timeout=TIMEOUT_S)
