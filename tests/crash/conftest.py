"""Fixtures of the crash tests: the stack's environment with a fast recovery sweeper, and
slow bot servers stopped after the test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.crash.stack import SlowBots, base_env, use_sender
from tests.servers import RedisTarget

SWEEP_FAST = {
    "TRUCO_SWEEP_EVERY_S": "1",
    "TRUCO_SWEEP_PENDING_AFTER_S": "2",
    "TRUCO_SWEEP_QUEUED_AFTER_S": "8",  # far above a test match (2-4 s), far below 2 h
}


@pytest.fixture
def env(
    database_url: str, redis_target: RedisTarget, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[dict[str, str]]:
    environment = base_env(database_url, redis_target.url, redis_target.prefix, tmp_path / "d")
    environment.update(SWEEP_FAST)  # read by beat (period) and the trusted worker (thresholds)
    sender = use_sender(monkeypatch, environment)
    yield environment
    sender.close()


@pytest.fixture
def bots() -> Iterator[SlowBots]:
    made = SlowBots()
    yield made
    made.stop()
