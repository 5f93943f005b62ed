"""The worker's per-process event loop (:mod:`services.worker.loop_thread`) and the live feed's
queued writer (:mod:`services.live.sink`), on a real Redis."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
import redis

from services.live import sink as live_sink
from services.live.feed import live_key
from services.live.publisher import LivePublisher
from services.live.sink import QueuedRedis
from services.worker import loop_thread
from services.worker.loop_thread import LoopThread
from tests.servers import RedisTarget


def test_many_waiting_threads_share_one_loop() -> None:
    runner = LoopThread("test-loop")
    seen: set[int] = set()
    results: list[int] = []

    running = [0, 0]  # now, most at once

    async def work(k: int) -> int:
        seen.add(id(asyncio.get_running_loop()))
        running[0] += 1
        running[1] = max(running)
        await asyncio.sleep(0.2)
        running[0] -= 1
        return k

    def task(k: int) -> None:
        results.append(runner.run(lambda: work(k)))

    threads = [threading.Thread(target=task, args=(k,)) for k in range(100)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    runner.stop()
    assert sorted(results) == list(range(100))
    assert seen == {id(runner.loop)}
    assert running[1] > 1  # together, not one after another (no wall clock: a loaded machine)


def test_a_wait_that_ends_cancels_the_coroutine() -> None:
    runner = LoopThread("test-loop")
    cancelled = threading.Event()

    async def forever() -> None:
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    with pytest.raises(TimeoutError):
        runner.run(forever, timeout=0.2)
    assert cancelled.wait(60)  # a hang guard
    runner.stop()
    assert runner.loop.is_closed()


def test_errors_reach_the_waiting_thread() -> None:
    runner = LoopThread("test-loop")

    async def fails() -> None:
        raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        runner.run(fails)
    assert runner.run(lambda: asyncio.sleep(0, result=7)) == 7  # the loop goes on
    runner.stop()


def test_queued_writes_keep_their_order_and_flush(redis_target: RedisTarget) -> None:
    client = redis.Redis.from_url(redis_target.url)
    sink = QueuedRedis(client)
    key = redis_target.key(f"sink-{time.monotonic_ns()}")
    try:
        sink.pipeline().delete(key).rpush(key, "0").expire(key, 60).execute()
        for k in range(1, 500):
            sink.pipeline().rpush(key, str(k)).expire(key, 60).execute()
        assert sink.flush()
        assert [int(x) for x in client.lrange(key, 0, -1)] == list(range(500))
        assert 0 < client.ttl(key) <= 60
        assert sink.written == 500
    finally:
        client.delete(key)


class CountingRedis:
    """A real client that counts the transactions sent through it."""

    def __init__(self, client: redis.Redis) -> None:
        self.client = client
        self.transactions = 0

    def pipeline(self, transaction: bool = True) -> Any:
        self.transactions += 1
        return self.client.pipeline(transaction=transaction)


def test_writes_trickling_in_are_gathered_into_few_transactions(
    redis_target: RedisTarget,
) -> None:
    """200 writes, one every 2 ms or so (as hundreds of matches write): the writer gathers them
    (:data:`live_sink.GATHER_S`) instead of waking and sending one by one. The bound is in
    gathering windows of the time the writes really took, so a loaded machine that stretches
    the 2 ms sleeps stretches the bound with them."""
    counting = CountingRedis(redis.Redis.from_url(redis_target.url))
    sink = QueuedRedis(counting)  # type: ignore[arg-type]
    key = redis_target.key(f"gather-{time.monotonic_ns()}")
    writes = 200
    try:
        began = time.monotonic()
        for k in range(writes):
            sink.pipeline().rpush(key, str(k)).expire(key, 60).execute()
            time.sleep(0.002)
        assert sink.flush()
        windows = (time.monotonic() - began) / live_sink.GATHER_S
        assert [int(x) for x in counting.client.lrange(key, 0, -1)] == list(range(writes))
        # each transaction but the flush's opens a window of GATHER_S in which it gathers
        assert counting.transactions <= windows + 2, (writes, counting.transactions, windows)
        assert counting.transactions < writes  # gathered, however slow the machine
    finally:
        counting.client.delete(key)


class WatchedEvent(threading.Event):
    """An event that tells when some thread starts waiting on it (``waiting``)."""

    def __init__(self) -> None:
        super().__init__()
        self.waiting = threading.Event()

    def wait(self, timeout: float | None = None) -> bool:
        self.waiting.set()
        return super().wait(timeout)


def test_a_flush_does_not_wait_for_the_gathering(
    redis_target: RedisTarget, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(live_sink, "GATHER_S", 3600.0)
    client = redis.Redis.from_url(redis_target.url)
    sink = QueuedRedis(client)
    # the writer gathers asleep on this event (only a flush sets it); it is read when the
    # first write arrives, so replacing it before any write is seen by the writer
    gathering = WatchedEvent()
    sink._urgent = gathering
    key = redis_target.key(f"urgent-{time.monotonic_ns()}")
    try:
        sink.pipeline().rpush(key, "a").execute()
        # the writer is now gathering, for an hour unless a flush comes (a hang guard)
        assert gathering.waiting.wait(60)
        assert sink.flush(timeout=60.0)  # flushed, so the hour's gathering was cut short
        assert client.lrange(key, 0, -1) == [b"a"]
    finally:
        client.delete(key)


def test_a_live_publisher_on_the_sink_never_waits_for_redis(redis_target: RedisTarget) -> None:
    """Redis unreachable: the publisher's writes return at once, nothing raises, the loss is
    counted as lost (logged), never as a stalled match: no connection is ever tried on the
    publishing thread (200 tries would take 100 s), only on the sink's own."""
    dead = redis.Redis(host="127.0.0.1", port=1, socket_timeout=0.5, socket_connect_timeout=0.5)
    tried_on: list[threading.Thread] = []
    get_connection = dead.connection_pool.get_connection

    def counted(*args: Any, **kwargs: Any) -> Any:
        tried_on.append(threading.current_thread())
        return get_connection(*args, **kwargs)

    dead.connection_pool.get_connection = counted  # type: ignore[method-assign]
    sink = QueuedRedis(dead)
    publisher = LivePublisher(sink, "x:", 1)  # type: ignore[arg-type]
    for _ in range(200):
        publisher.begin()
    assert sink.flush()
    assert sink.written == 0
    assert tried_on and threading.current_thread() not in tried_on


def test_the_publisher_writes_through_the_sink(redis_target: RedisTarget) -> None:
    client = redis.Redis.from_url(redis_target.url)
    sink = QueuedRedis(client)
    publisher = LivePublisher(sink, redis_target.prefix, 77)  # type: ignore[arg-type]
    publisher.begin()
    assert sink.flush()
    key = live_key(redis_target.prefix, 77)
    try:
        items = [json.loads(raw) for raw in client.lrange(key, 0, -1)]
        assert items == [{"run": publisher.run, "header": True, "format": "truco-arena-live/1"}]
    finally:
        client.delete(key)


def test_a_busy_loop_shows_its_lag_to_its_watchers() -> None:
    """A stall of the loop's thread shows in the next sample as at least the stall less one
    sampling interval, and the samples after it are back to the idle lag: no bound on how late
    an idle loop may run, since a loaded machine decides that."""
    runner = LoopThread("test-loop")
    samples: list[float] = []
    runner.watch_lag(samples.append)
    assert _until(lambda: len(samples) >= 3)  # sampled over and over
    stall_s = 1.0
    stalled_at = len(samples)
    runner.loop.call_soon_threadsafe(time.sleep, stall_s)  # the loop's core taken
    assert _until(lambda: len(samples) >= stalled_at + 3)
    after = samples[stalled_at:]
    stall_ms = max(after)
    assert stall_ms >= (stall_s - loop_thread.LAG_EVERY_S) * 1000 - 5  # the stall shows
    assert after[-1] < stall_ms  # and is not carried into the samples that follow
    runner.stop()


def _until(condition: Callable[[], bool], within_s: float = 60.0) -> bool:
    """Wait for ``condition`` (a hang guard, not a speed bound)."""
    deadline = time.monotonic() + within_s
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True
