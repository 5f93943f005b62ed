"""The live feed's Redis writes, taken off the match loop and written many per round trip.

:class:`~services.live.publisher.LivePublisher` writes its batches of items as small pipelines
(``delete``/``rpush``/``expire``/``publish``) on a synchronous Redis client. In a worker that plays all
its matches on one event loop (:mod:`services.worker.tasks_play`), a blocking round trip per
decision would stop every match of the process for its duration: measured, the feed's writes
were three quarters of the loop's time with twenty matches. :class:`QueuedRedis` stands in
for that client: ``pipeline().execute()`` only queues the commands (no I/O, never raises),
and one writer thread per process sends everything queued so far as ONE transaction.

Order is kept (one queue, one writer); the feed stays best effort: a Redis error drops the
batch and is logged (at most once a minute), and when Redis cannot keep up the queue stops
growing at :data:`MAX_QUEUED` writes (what does not fit is dropped and counted).
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from typing import Any, Self

import redis

logger = logging.getLogger(__name__)

MAX_QUEUED = 100_000
MAX_BATCH = 2_000
GATHER_S = 0.05
"""After the first write of a batch arrives, the writer waits this long (or until a flush) for
more, so it wakes and sends at most about twenty times a second however many matches write:
woken on every write, the thread cost the process a quarter of its loop's CPU (600 matches)."""
LOG_EVERY_S = 60.0
FLUSH_WAIT_S = 2.0

Command = tuple[str, tuple[Any, ...]]


class QueuedPipeline:
    """Records ``delete``, ``rpush``, ``expire`` and ``publish``; ``execute`` hands them to the
    writer."""

    def __init__(self, sink: QueuedRedis) -> None:
        self._sink = sink
        self._commands: list[Command] = []

    def delete(self, *keys: str) -> Self:
        self._commands.append(("delete", keys))
        return self

    def rpush(self, key: str, *values: str | bytes) -> Self:
        self._commands.append(("rpush", (key, *values)))
        return self

    def expire(self, key: str, seconds: int) -> Self:
        self._commands.append(("expire", (key, seconds)))
        return self

    def publish(self, channel: str, message: str) -> Self:
        self._commands.append(("publish", (channel, message)))
        return self

    def execute(self) -> list[Any]:
        self._sink.put(self._commands)
        self._commands = []
        return []


class QueuedRedis:
    """The live feed's client: writes queued here, sent by a thread of its own."""

    def __init__(self, client: redis.Redis) -> None:
        self._client = client
        self._queue: queue.Queue[list[Command] | threading.Event] = queue.Queue(MAX_QUEUED)
        self.dropped = 0
        self.written = 0
        self._logged_at = -LOG_EVERY_S
        self._urgent = threading.Event()  # a flush is waiting: write without gathering more
        self._thread = threading.Thread(target=self._write_forever, name="truco-live", daemon=True)
        self._thread.start()

    def pipeline(self, transaction: bool = True) -> QueuedPipeline:
        return QueuedPipeline(self)

    def put(self, commands: list[Command]) -> None:
        try:
            self._queue.put_nowait(commands)
        except queue.Full:
            self.dropped += 1
            self._log(f"live feed writes dropped ({self.dropped} so far): Redis cannot keep up")

    def flush(self, timeout: float = FLUSH_WAIT_S) -> bool:
        """Wait (at most ``timeout``) until what was queued before this call is written: a
        match's last items go out before its result does, so the trusted worker's delete of
        the feed comes after them. False if it did not happen in time."""
        done = threading.Event()
        try:
            self._queue.put(done, timeout=timeout)
        except queue.Full:
            return False
        self._urgent.set()
        return done.wait(timeout)

    def _write_forever(self) -> None:
        while True:
            batch = [self._queue.get()]
            if not isinstance(batch[0], threading.Event):
                # gather: asleep on an event only a flush sets, so the writes queued meanwhile
                # (put_nowait notifies no one) do not wake this thread one by one
                self._urgent.wait(GATHER_S)
            self._urgent.clear()
            while len(batch) < MAX_BATCH:
                try:
                    batch.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            self._write([item for item in batch if not isinstance(item, threading.Event)])
            for item in batch:
                if isinstance(item, threading.Event):
                    item.set()

    def _write(self, batch: list[list[Command]]) -> None:
        if not batch:
            return
        try:
            pipe = self._client.pipeline(transaction=True)
            for commands in batch:
                for name, args in commands:
                    getattr(pipe, name)(*args)
            pipe.execute()
            self.written += len(batch)
        except (redis.RedisError, OSError) as exc:
            self._log(f"live feed: {len(batch)} writes lost ({exc})")

    def _log(self, text: str) -> None:
        now = time.monotonic()
        if now - self._logged_at >= LOG_EVERY_S:
            self._logged_at = now
            logger.warning(text)
