"""Live matches: what a spectator may see of a match while it is played (docs/rules.md, R-11).

The bot-calling worker (no database) publishes as it plays; the API and the web pages read.

* **Where and what**: :mod:`services.live.feed` defines the list, its channel and its
  items (a run's header, then one item per decision, as a spectator sees it) for the writer
  here and the readers alike.
* **When**: items are batched (docs/architecture.md, "The live feed"): one Redis round trip
  (``RPUSH`` of every waiting item, ``EXPIRE``, then ``PUBLISH`` of the match's id on
  :func:`live_channel`) when a hand or a game ends, when the oldest waiting item is
  :data:`FLUSH_AFTER_S` old, and when the match ends; a game's opening goes out at once.
  The ``PUBLISH`` wakes the readers' poller at once (:meth:`LiveReader.notifications`);
  readers still poll as a safety net, so a lost notification costs one poll interval.
* **Status**: when the task starts playing it sends ``truco.match_started`` (queue
  ``results``); the trusted worker sets ``matches.status = 'running'`` if the match is still
  pending or queued (a late message never reopens a finished match).

Publishing is best effort: a Redis error is logged once and the match goes on unpublished.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import AsyncIterator, Awaitable, MutableMapping, Sequence
from typing import Any, Final, cast

import redis
import redis.asyncio

from arena.game.boundary import TrucoGame
from arena.game.deals import seating
from arena.game.truco import TRUCO
from arena.match.replay import Decision
from engine.events import Event
from engine.observe import SPECTATOR
from engine.state import State
from services.base.config import RedisSettings
from services.live.feed import (
    LIVE_TTL_S,
    LiveHeader,
    LiveItem,
    encode,
    live_channel,
    live_key,
)
from services.worker.names import MATCH_STARTED

logger = logging.getLogger(__name__)

REDIS_TIMEOUT_S = 0.5
FLUSH_AFTER_S: Final = 0.2
"""The longest a decision waits in the batch before spectators see it (besides hand ends)."""
MAX_BATCH: Final = 256
"""A batch this long is written at once (bounds the memory of a very fast match)."""


# --- publishing (the bot-calling worker) ----------------------------------------------------


def decision_item(decision: Decision) -> Decision:
    """The runner's decision record as spectators see it: seat, latency and fault kind."""
    return Decision(seat=decision.seat, latency_ms=decision.latency_ms, fault=decision.fault)


class LivePublisher:
    """Turns the runner's progress hook ``(game index, state, decision, events)`` into
    spectator items, written to Redis in batches (see the module docstring).

    ``flush_after_s=0`` writes every item at once: one round trip per decision, as the feed
    did before batching. ``notify=False`` leaves out the ``PUBLISH`` (readers then see the
    items at their next poll: the benchmark's baseline).
    """

    def __init__(
        self,
        client: redis.Redis | None,
        prefix: str,
        match_id: int,
        game: TrucoGame = TRUCO,
        *,
        flush_after_s: float = FLUSH_AFTER_S,
        notify: bool = True,
    ) -> None:
        self.client = client
        self.key = live_key(prefix, match_id)
        self.match_id = match_id
        self.channel = live_channel(prefix) if notify else None
        self.game = game
        self.flush_after_s = flush_after_s
        self.run = secrets.token_hex(6)
        self.writes = 0  # Redis round trips so far
        self._batch: list[bytes] = []
        self._timer: asyncio.TimerHandle | None = None
        self._broken = client is None

    def begin(self) -> None:
        """Start this run's items (a new header; older runs' items are dropped by readers)."""
        self._batch = [encode(LiveHeader(self.run))]
        self.flush(reset=True)

    def item(
        self, index: int, state: State, decision: Decision | None, events: Sequence[Event]
    ) -> LiveItem:
        """The spectator item of one progress call (pure; tests use it)."""
        shown: list[Any] = [] if decision is None else [decision_item(decision)]
        shown += self.game.visible(events, SPECTATOR)
        return LiveItem(self.run, index + 1, seating(index), self.game.score(state), shown)

    def progress(
        self, index: int, state: State, decision: Decision | None, events: Sequence[Event]
    ) -> None:
        """The runner's progress hook: queue the item, write the batch when it is due."""
        if self._broken:
            return
        try:
            self._batch.append(encode(self.item(index, state, decision, events)))
        except Exception:  # never let the live view break a match
            logger.exception("live view of %s: could not build the item", self.key)
            return
        due = (
            decision is None
            or self.flush_after_s <= 0
            or len(self._batch) >= MAX_BATCH
            or any(self.game.closes(e) for e in events)
        )
        if due:
            self.flush()
        elif self._timer is None:
            self._schedule()

    def _schedule(self) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop (a synchronous caller): the next hand end writes it
            return
        self._timer = loop.call_later(self.flush_after_s, self.flush)

    def flush(self, reset: bool = False) -> None:
        """Write every waiting item in one round trip (``reset``: drop the key first)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        batch, self._batch = self._batch, []
        if not batch or self._broken or self.client is None:
            return
        try:
            pipe = self.client.pipeline(transaction=reset)
            if reset:
                pipe.delete(self.key)
            pipe.rpush(self.key, *batch)
            pipe.expire(self.key, LIVE_TTL_S)
            if self.channel is not None:
                pipe.publish(self.channel, str(self.match_id))
            pipe.execute()
            self.writes += 1
        except redis.RedisError as exc:
            self._broken = True
            logger.warning("live view of %s is off for this match: %s", self.key, exc)

    def close(self) -> None:
        """The match is over (or stopped): write what is left."""
        self.flush()


def send_started(match_id: int) -> None:
    """Tell the trusted worker that the match is being played (best effort)."""
    from services.worker.names import RESULTS
    from services.worker.senders import current_app

    try:
        current_app().send_task(MATCH_STARTED, args=[match_id], queue=RESULTS)
    except Exception as exc:  # the status is cosmetic; the match must go on
        logger.warning("could not send %s for match %s: %s", MATCH_STARTED, match_id, exc)


def clear_live(client: redis.Redis, prefix: str, match_id: int) -> None:
    """Drop a match's live items (the trusted worker, after storing the result)."""
    try:
        client.delete(live_key(prefix, match_id))
    except redis.RedisError as exc:
        logger.warning("could not delete the live view of match %s: %s", match_id, exc)


# --- reading (the API and the web pages) ----------------------------------------------------


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


__all__ = [
    "MATCH_STARTED",
    "LivePublisher",
    "LiveReader",
    "clear_live",
    "decision_item",
    "reader_for",
    "send_started",
]
