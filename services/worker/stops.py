"""Stopping a match that is being played: a per-match stop flag in Redis, and the watch on it.

A match decided without its play (its tournament or SPRT test cancelled or ended, a bot
withdrawn) may already be in a bot-calling worker's hands. Whoever decides it sets the match's
flag (:func:`request_stops`, after the decision is committed: the API, beat's health checks,
the trusted worker whose stored result ended an SPRT test); the bot-calling worker

* checks the flag before it starts a match (:meth:`StopWatch.requested`): a cancelled match
  still waiting in the broker is never played;
* while a match plays, one thread per process (:class:`StopWatch`) reads the flags of every
  match the process is playing, one ``MGET`` every :data:`POLL_S`, and cancels the future of a
  flagged one: its coroutine is cancelled on the loop at once, the bot call in flight
  included, so no bot is called for it again;
* then says so with ``truco.match_stopped``, and the trusted worker marks the match stopped
  (``matches.stopping_since`` back to NULL: its seeds may now be shown, docs/verify.md).

A flag lives :data:`FLAG_TTL_S` (a week: longer than any message waits in the broker). If
Redis cannot be reached when a match is decided, the recovery sweeper sets the flags of every
match still stopping on its next pass, and after the longest a match can run it marks them
stopped (no worker can still be playing them then).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Iterable, Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from typing import Any, Final, cast

import redis

logger = logging.getLogger(__name__)

POLL_S: Final = 0.5
"""How often a bot-calling process reads the flags of the matches it plays."""
FLAG_TTL_S: Final = 7 * 86400


def stop_key(prefix: str, match_id: int) -> str:
    return f"{prefix}match:{match_id}:stop"


def request_stops(client: redis.Redis, prefix: str, match_ids: Iterable[int]) -> None:
    """Flag ``match_ids`` to be stopped (one round trip)."""
    ids = sorted(set(match_ids))
    if not ids:
        return
    pipe = client.pipeline(transaction=False)
    for match_id in ids:
        pipe.set(stop_key(prefix, match_id), b"1", ex=FLAG_TTL_S)
    pipe.execute()


def flagged(client: redis.Redis, prefix: str, match_ids: list[int]) -> set[int]:
    """Those of ``match_ids`` whose stop flag is set."""
    if not match_ids:
        return set()
    values = cast(list[Any], client.mget([stop_key(prefix, m) for m in match_ids]))
    return {m for m, value in zip(match_ids, values, strict=True) if value is not None}


class StopWatch:
    """The stop flags of the matches this process plays, read every ``every_s`` by a daemon
    thread (started on first use); a flagged match's future is cancelled."""

    def __init__(self, client: redis.Redis, prefix: str, every_s: float = POLL_S) -> None:
        self.client = client
        self.prefix = prefix
        self.every_s = every_s
        self.pid = os.getpid()
        self._playing: dict[int, set[Future[Any]]] = {}
        self._stopped: set[Future[Any]] = set()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def requested(self, match_id: int) -> bool:
        """Is the match's flag set now? (Redis not answering: no, the watch tries again.)"""
        try:
            return bool(flagged(self.client, self.prefix, [match_id]))
        except redis.RedisError as exc:
            logger.warning("match %s: its stop flag could not be read (%s)", match_id, exc)
            return False

    @contextmanager
    def watching(self, match_id: int, future: Future[Any]) -> Iterator[None]:
        """Watch ``match_id``'s flag while ``future`` (its play) runs."""
        with self._lock:
            self._playing.setdefault(match_id, set()).add(future)
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._serve, name="truco-match-stops", daemon=True
                )
                self._thread.start()
        try:
            yield
        finally:
            with self._lock:
                futures = self._playing.get(match_id, set())
                futures.discard(future)
                if not futures:
                    self._playing.pop(match_id, None)

    def stopped(self, future: Future[Any]) -> bool:
        """Was ``future`` cancelled by this watch (its match's flag)? Forgets it."""
        with self._lock:
            found = future in self._stopped
            self._stopped.discard(future)
            return found

    def check(self) -> list[int]:
        """One pass: cancel the play of every flagged match; their ids."""
        with self._lock:
            ids = list(self._playing)
        try:
            found = flagged(self.client, self.prefix, ids)
        except redis.RedisError as exc:
            logger.warning("stop flags not read (%s); again in %ss", exc, self.every_s)
            return []
        with self._lock:
            for match_id in found:
                for future in self._playing.get(match_id, set()):
                    if future.cancel():
                        self._stopped.add(future)
        if found:
            logger.info("matches %s: stopped (decided without their play)", sorted(found))
        return sorted(found)

    def _serve(self) -> None:
        while True:
            time.sleep(self.every_s)
            try:
                self.check()
            except Exception:  # never let the watch die: the next pass tries again
                logger.exception("the stop watch's pass failed")


def flags_client(url: str) -> redis.Redis:
    """A client for the flags with short timeouts: a slow Redis delays a stop, nothing else."""
    return redis.Redis.from_url(url, socket_timeout=2.0, socket_connect_timeout=2.0)
