"""The per-bot cap on concurrent matches, against the test run's real Redis."""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path

import pytest
import redis

from services.launch.embedded import EmbeddedRedis
from services.worker.matches.play_match import release_slots, slots_client
from services.worker.matches.slots import BotSlots
from tests.servers import RedisTarget
from tests.services.worker.processes import free_port


def _slots(target: RedisTarget, cap: int, hold_s: float = 60.0) -> BotSlots:
    return BotSlots(redis.Redis.from_url(target.url), cap=cap, hold_s=hold_s, prefix=target.prefix)


def test_cap_is_all_or_nothing_and_released(redis_target: RedisTarget) -> None:
    slots = _slots(redis_target, cap=2)
    first = slots.acquire([1, 2])
    second = slots.acquire([1, 3])
    assert first and second
    assert slots.in_use(1) == 2
    assert slots.acquire([3, 1]) is None  # bot 1 is full: nothing taken, bot 3 untouched
    assert slots.in_use(3) == 1
    slots.release([1, 2], first)
    assert slots.in_use(1) == 1 and slots.in_use(2) == 0
    third = slots.acquire([1, 2])
    assert third is not None
    assert slots.key(1) == f"{redis_target.prefix}bot:1:slots"


def test_a_dead_holders_slot_expires(redis_target: RedisTarget) -> None:
    slots = _slots(redis_target, cap=1, hold_s=1.0)
    assert slots.acquire([41]) is not None  # never released: its worker "died"
    assert slots.acquire([41]) is None
    time.sleep(1.1)
    assert slots.acquire([41]) is not None


def test_a_broker_outage_at_release_keeps_the_played_match(
    redis_target: RedisTarget, caplog: pytest.LogCaptureFixture
) -> None:
    """Redis gone when a match ends: ``release_slots`` logs and returns (the task goes on to
    send the result), and the slots it could not give back expire on their own."""
    slots = _slots(redis_target, cap=1, hold_s=2.0)
    token = slots.acquire([52])
    assert token is not None
    gone = BotSlots(
        redis.Redis(host="127.0.0.1", port=free_port(), socket_connect_timeout=0.5),
        cap=1,
        hold_s=2.0,
        prefix=redis_target.prefix,
    )
    with caplog.at_level(logging.WARNING, logger="services.worker.matches.play_match"):
        release_slots(gone, [52], token)  # a port nothing listens on: ConnectionError inside
    assert "not released" in caplog.text
    assert slots.acquire([52]) is None  # still held ...
    time.sleep(2.1)
    assert slots.acquire([52]) is not None  # ... until it expires


def test_slots_are_given_back_once_a_restarted_redis_answers(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A Redis of this test's own goes away as a match ends and is back 1.5 s later: the
    slots client retries, the release lands, and the bot is free again (no warning)."""
    server = EmbeddedRedis(tmp_path / "redis", port=free_port())
    url = server.start()
    try:
        slots = BotSlots(slots_client(url), cap=1, hold_s=600)
        token = slots.acquire([61])
        assert token is not None
        server.stop()
        releasing = threading.Thread(target=release_slots, args=(slots, [61], token))
        with caplog.at_level(logging.WARNING, logger="services.worker.matches.play_match"):
            releasing.start()
            time.sleep(1.5)
            assert releasing.is_alive()  # still trying: it neither failed nor gave up
            server.start()
            releasing.join(40)
        assert not releasing.is_alive()
        assert "not released" not in caplog.text
        assert slots.in_use(61) == 0
    finally:
        server.stop()
