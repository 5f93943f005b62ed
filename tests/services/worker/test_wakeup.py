"""The consumer loop's wake-up timer (:mod:`services.worker.wakeup`): a threads-pool worker
takes its next message as soon as a task is acknowledged, not at the loop's next timer (up to
10 s later). Tested on kombu's real timer, without a broker: the timer is installed only where
it is needed, and it keeps coming due every :data:`~services.worker.wakeup.WAKE_EVERY_S`, each
time waking the hub that runs it."""

from __future__ import annotations

import itertools
import time
from types import SimpleNamespace

import pytest
from celery.concurrency.prefork import TaskPool as PreforkPool
from celery.concurrency.thread import TaskPool as ThreadsPool
from kombu.asynchronous.timer import Timer

from services.worker import wakeup


def test_a_threads_pool_under_a_hub_is_woken_again_and_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    runs: list[float] = []
    monkeypatch.setattr(wakeup, "_turn", lambda: runs.append(time.monotonic()))
    timer = Timer()
    pool = ThreadsPool(limit=2)
    try:
        wakeup.wake_regularly(sender=SimpleNamespace(pool=pool, hub=object(), timer=timer))
        assert wakeup.WAKE_EVERY_S <= 0.5  # a tenth of a second, not the loop's seconds
        (first,) = timer.queue
        # due one interval from now, not at a timer of the loop's own (seconds away)
        assert first.eta - time.monotonic() <= wakeup.WAKE_EVERY_S
        give_up = time.monotonic() + 60  # a hang guard, not a speed bound
        for delay, entry in timer:  # as the hub runs its timer
            if entry is not None:
                timer.apply_entry(entry)
            elif len(runs) >= 3 or time.monotonic() > give_up:
                break
            else:
                time.sleep(delay or wakeup.WAKE_EVERY_S)
        assert len(runs) >= 3  # it repeats
        # never sooner than the interval: ten empty turns a second, not a busy loop
        assert all(b - a >= wakeup.WAKE_EVERY_S * 0.9 for a, b in itertools.pairwise(runs))
    finally:
        timer.clear()
        pool.on_stop()


def test_other_workers_get_no_timer() -> None:
    threads = ThreadsPool(limit=2)
    prefork = PreforkPool(limit=1)
    for consumer in (
        SimpleNamespace(pool=prefork, hub=object(), timer=Timer()),  # processes
        SimpleNamespace(pool=threads, hub=None, timer=Timer()),  # no hub to wake
        SimpleNamespace(hub=object(), timer=Timer()),  # no pool
    ):
        wakeup.wake_regularly(sender=consumer)
        assert consumer.timer.queue == []
    threads.on_stop()
