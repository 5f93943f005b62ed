"""The bot-calling worker tunes its garbage collector once it is up (``worker_ready``); a worker
that consumes only the trusted queue keeps Python's defaults."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from types import SimpleNamespace

import pytest
from celery.signals import worker_ready

import services.worker.celery_app  # noqa: F401  (the -A target connects the boot's handler)
from services.worker.loop_thread import LoopThread
from services.worker.matches import boot
from services.worker.matches import play_match as play


@pytest.fixture
def collector() -> Iterator[None]:
    """Python's collector as the test found it, put back after."""
    gc.unfreeze()
    before = gc.get_threshold()
    try:
        yield
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)


class Consumer:
    """What ``worker_ready`` sends (hashable, as a signal's sender must be): a consumer whose app
    consumes ``queues`` (Celery's ``consume_from`` is a dict by name)."""

    def __init__(self, *queues: str) -> None:
        consuming = SimpleNamespace(consume_from={name: object() for name in queues})
        self.app = SimpleNamespace(amqp=SimpleNamespace(queues=consuming))


@pytest.mark.parametrize("queues", [("matches", "ladder"), ("ladder",), ("matches", "results")])
def test_a_bot_calling_worker_freezes_and_raises_the_thresholds_when_ready(
    collector: None, queues: tuple[str, ...]
) -> None:
    assert gc.get_freeze_count() == 0 and gc.get_threshold() != boot.GC_THRESHOLDS
    worker_ready.send(sender=Consumer(*queues))
    assert gc.get_threshold() == boot.GC_THRESHOLDS
    assert gc.get_freeze_count() > 1000  # every module loaded so far, Celery's objects


def test_the_trusted_worker_keeps_the_defaults(collector: None) -> None:
    before = gc.get_threshold()
    worker_ready.send(sender=Consumer("results"))
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0


def test_no_match_tunes_the_collector_any_more(collector: None) -> None:
    """The gate before a match (``play.match_admission``) no longer touches the collector."""
    before = gc.get_threshold()
    loop = LoopThread("truco-test-admission")
    try:
        assert play.match_admission(loop) is play.match_admission(loop)
    finally:
        loop.stop()
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0
