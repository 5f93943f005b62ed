"""A ladder's table as the matchmaker sees it, on plain rows: the hourly cap is a pace, and a
bot still placing may play two matches at once."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from services.ladder.table import LadderRow, ladder_bot

NOW = datetime(2026, 12, 4, 12, 0, tzinfo=UTC)


def test_the_hourly_cap_is_a_pace_for_placed_bots_and_owners_caps() -> None:
    """A placed bot under a cap of 60 an hour starts at most one match a minute, so a pool that
    joins together does not spend its hour at once; a bot still placing under the platform's
    cap is not paced; a cap its owner lowered paces it all the same."""

    def row(
        *, placed: bool, cap: int, ago_s: float | None, last_hour: int, placing_hour: int = 0
    ) -> LadderRow:
        return LadderRow(
            bot_id=1, bot_name="b", owner_id=1, owner_name="o", bot_status="active",
            answered=True, joined_at=NOW, hourly_cap=cap, paused_at=None, pause_cause=None,
            elo=1500.0, rating=1500.0, low=1450.0 if placed else 1300.0,
            high=1550.0 if placed else 1700.0, los_next=None, matches=10,
            last_hour=last_hour, playing=False,
            last_started=None if ago_s is None else NOW - timedelta(seconds=ago_s),
            last_hour_placing=placing_hour,
            last_paced=None if ago_s is None or placing_hour else NOW - timedelta(seconds=ago_s),
        )  # fmt: skip

    def available(**kw: Any) -> bool:
        return ladder_bot(row(**kw), 1500.0, 60, NOW).available

    assert not available(placed=True, cap=60, ago_s=30, last_hour=1)
    assert available(placed=True, cap=60, ago_s=61, last_hour=1)
    assert available(placed=True, cap=60, ago_s=None, last_hour=0)
    assert not available(placed=True, cap=60, ago_s=3000, last_hour=60)  # the hour is spent
    assert available(placed=False, cap=60, ago_s=5, last_hour=60)  # placing: not held
    assert not available(placed=False, cap=10, ago_s=300, last_hour=1)  # its owner's pace
    assert available(placed=False, cap=10, ago_s=361, last_hour=1)
    # matches that placed bots do not spend the platform's cap, but do spend an owner's
    assert available(placed=True, cap=60, ago_s=5, last_hour=60, placing_hour=60)
    assert not available(placed=True, cap=10, ago_s=5, last_hour=10, placing_hour=10)


def test_a_bot_still_placing_may_play_two_ladder_matches_at_once() -> None:
    """Under the platform's cap a bot still placing plays up to ``placing_at_once`` ladder
    matches at once; a placed bot, and a bot whose owner lowered its cap, play one."""

    def available(*, placed: bool, cap: int, in_play: int, at_once: int = 2) -> bool:
        row = LadderRow(
            bot_id=1, bot_name="b", owner_id=1, owner_name="o", bot_status="active",
            answered=True, joined_at=NOW, hourly_cap=cap, paused_at=None, pause_cause=None,
            elo=1500.0, rating=1500.0, low=1450.0 if placed else 1300.0,
            high=1550.0 if placed else 1700.0, los_next=None, matches=10, last_hour=0,
            playing=in_play > 0, in_play=in_play,
        )  # fmt: skip
        return ladder_bot(row, 1500.0, 60, NOW, at_once).available

    assert available(placed=False, cap=60, in_play=0)
    assert available(placed=False, cap=60, in_play=1)  # a second match while placing
    assert not available(placed=False, cap=60, in_play=2)
    assert not available(placed=False, cap=60, in_play=1, at_once=1)  # the platform said one
    assert not available(placed=True, cap=60, in_play=1)  # placed: one at a time
    assert available(placed=True, cap=60, in_play=0)
    assert not available(placed=False, cap=30, in_play=1)  # its owner lowered the cap
