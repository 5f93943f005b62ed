"""How long a paused bot waits before its owner may resume it (pure).

A bot that walks over or forfeits ``TRUCO_LADDER_PAUSE_AFTER`` ladder matches in a row is
paused. Resuming it at once, again and again, let a bot refuse every match it feared and come
straight back (issue 33: 8 resumes, no wait). So a resume waits ``base`` seconds
(``TRUCO_LADDER_RESUME_COOLDOWN_S``, 10 minutes) after the pause, doubled for each earlier
pause of that bot on that ladder within :data:`MEMORY_S` (a week), and never more than
``most`` (``TRUCO_LADDER_RESUME_COOLDOWN_MAX_S``, a day). Leaving the ladder and joining again
waits the same: the count is the bot's, not its entry's.
"""

from __future__ import annotations

from datetime import datetime, timedelta

MEMORY_S = 7 * 86400.0
"""Pauses further apart than this start the count again."""


def cooldown_s(pauses: int, base: float, most: float) -> float:
    """The wait after the ``pauses``-th pause in a row (1: the first)."""
    if pauses <= 0 or base <= 0:
        return 0.0
    return min(most, base * 2.0 ** min(pauses - 1, 40))


def resumable_at(
    pauses: int, last_paused_at: datetime | None, base: float, most: float
) -> datetime | None:
    """When the bot may be resumed (or join again), or None if it may now."""
    if last_paused_at is None or pauses <= 0:
        return None
    return last_paused_at + timedelta(seconds=cooldown_s(pauses, base, most))
