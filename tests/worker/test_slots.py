"""The per-bot cap on concurrent matches, against the test run's real Redis."""

from __future__ import annotations

import time

import redis

from services.worker.slots import BotSlots
from tests.services.conftest import RedisTarget


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
    slots = _slots(redis_target, cap=1, hold_s=0.2)
    assert slots.acquire([41]) is not None  # never released: its worker "died"
    assert slots.acquire([41]) is None
    time.sleep(0.3)
    assert slots.acquire([41]) is not None
