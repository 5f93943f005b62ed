"""A per-bot cap on concurrent matches: a counting semaphore in Redis with expiry.

Each bot has a sorted set ``{prefix}bot:{id}:slots`` of holders scored by when their hold
expires (Redis server time, so workers on several machines agree). Taking slots for all bots
of a match is one Lua script: expired holders are dropped, and either every bot has a free slot
and all are taken, or nothing is taken. A worker that dies while holding slots loses them when
they expire (after the match's hard time limit), so a crash never leaks a slot for good.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from typing import cast

import redis

_ACQUIRE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local cap = tonumber(ARGV[2])
local ttl = tonumber(ARGV[3])
for _, key in ipairs(KEYS) do
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
  if redis.call('ZCARD', key) >= cap then return 0 end
end
for _, key in ipairs(KEYS) do
  redis.call('ZADD', key, now + ttl, ARGV[1])
  redis.call('PEXPIRE', key, ttl)
end
return 1
"""


class BotSlots:
    """``acquire`` slots for the bots of a match; ``release`` them with the returned token."""

    def __init__(self, client: redis.Redis, *, cap: int, hold_s: float, prefix: str = "") -> None:
        if cap < 1:
            raise ValueError("cap must be at least 1")
        self.client = client
        self.cap = cap
        self.hold_ms = int(hold_s * 1000)
        self.prefix = prefix
        self._acquire = client.register_script(_ACQUIRE)

    def key(self, bot_id: int) -> str:
        return f"{self.prefix}bot:{bot_id}:slots"

    def _keys(self, bot_ids: Iterable[int]) -> list[str]:
        return [self.key(bot_id) for bot_id in sorted(set(bot_ids))]

    def acquire(self, bot_ids: Iterable[int]) -> str | None:
        """A token when every bot had a free slot (all taken now), else None (none taken)."""
        token = secrets.token_hex(12)
        taken = self._acquire(keys=self._keys(bot_ids), args=[token, self.cap, self.hold_ms])
        return token if int(taken) == 1 else None

    def release(self, bot_ids: Iterable[int], token: str) -> None:
        pipe = self.client.pipeline(transaction=False)
        for key in self._keys(bot_ids):
            pipe.zrem(key, token)
        pipe.execute()

    def in_use(self, bot_id: int) -> int:
        """Holders of the bot's slots right now, expired ones not counted."""
        seconds, micros = cast(tuple[int, int], self.client.time())  # a sync client
        now_ms = seconds * 1000 + micros // 1000
        return cast(int, self.client.zcount(self.key(bot_id), f"({now_ms}", "+inf"))
