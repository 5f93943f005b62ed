"""A paused bot's resume waits a cooldown that grows (services/ladder/cooldown.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from services.ladder.cooldown import cooldown_s, resumable_at


@given(st.integers(min_value=1, max_value=200))
def test_each_pause_doubles_the_wait_up_to_the_most(pauses: int) -> None:
    wait = cooldown_s(pauses, 600.0, 86400.0)
    assert wait == min(86400.0, 600.0 * 2 ** (pauses - 1))
    assert cooldown_s(pauses + 1, 600.0, 86400.0) >= wait


def test_no_pause_no_wait() -> None:
    now = datetime(2026, 12, 4, tzinfo=UTC)
    assert resumable_at(0, None, 600.0, 86400.0) is None
    assert resumable_at(3, now, 600.0, 86400.0) == now + timedelta(seconds=2400)
