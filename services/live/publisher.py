"""Writing the live feed: what a spectator may see of a match while it is played (docs/rules.md,
R-11). The bot-calling worker (no database) publishes as it plays; the API and the web pages
read through :mod:`services.live.reader`.

* **Where and what**: :mod:`services.live.feed` defines the list, its channel and its
  items (a run's header, then one item per decision, as a spectator sees it) for the writer
  here and the readers alike.
* **When**: items are batched (docs/architecture.md, "The live feed"): one Redis round trip
  (``RPUSH`` of every waiting item, ``EXPIRE``, then ``PUBLISH`` of the match's id on
  :func:`live_channel`) when a hand or a game ends, when the oldest waiting item is
  :data:`FLUSH_AFTER_S` old, and when the match ends; a game's opening goes out at once.
  The ``PUBLISH`` wakes the readers' poller at once
  (:meth:`services.live.reader.LiveReader.notifications`); readers still poll as a safety
  net, so a lost notification costs one poll interval.

Publishing is best effort: a Redis error is logged once and the match goes on unpublished.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Sequence
from typing import Final

import redis

from arena.game.boundary import TrucoGame
from arena.game.deals import seating
from arena.game.truco import TRUCO
from arena.match.replay import Decision
from engine.events import Event
from engine.observe import SPECTATOR
from engine.state import State
from services.live.feed import (
    LIVE_TTL_S,
    LiveEvent,
    LiveHeader,
    LiveItem,
    encode,
    live_channel,
    live_key,
    spectator_events,
)

logger = logging.getLogger(__name__)

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
        shown: list[LiveEvent] = [] if decision is None else [decision_item(decision)]
        shown += spectator_events(self.game.visible(events, SPECTATOR))
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


def clear_live(client: redis.Redis, prefix: str, match_id: int, linger_s: int = 0) -> None:
    """Drop a match's live items (the trusted worker, after storing the result): at once, or
    ``linger_s`` seconds later (a stream's poller still reads the items it had not read when
    the result was stored, then ends the stream)."""
    try:
        if linger_s:
            client.expire(live_key(prefix, match_id), linger_s)
        else:
            client.delete(live_key(prefix, match_id))
    except redis.RedisError as exc:
        logger.warning("could not delete the live view of match %s: %s", match_id, exc)


__all__ = ["LivePublisher", "clear_live", "decision_item"]
