"""Celery beat's schedule: which task runs how often (the tasks are in :mod:`results.periodic`,
:mod:`results.sweep` and :mod:`results.fit`; what each does is described there).

Scheduled messages expire after one period, so a pile of them never builds up while the
workers are down. The sweeper's period is a setting (``TRUCO_SWEEP_EVERY_S``), so the schedule
is made from the settings when the Celery app is configured, never at import.
"""

from __future__ import annotations

from services.base.config import LadderSettings, SweepSettings
from services.worker.celery_types import CeleryOptions
from services.worker.names import (
    CHECK_BOT_HEALTH,
    FIT_RATINGS,
    LADDER_TICK,
    REQUEUE_STALE,
    START_DUE_TOURNAMENTS,
    SWEEP_PLAY_SESSIONS,
    TASK_QUEUES,
)

START_DUE_EVERY_S = 30.0
HEALTH_EVERY_S = 60.0
PLAY_SWEEP_EVERY_S = 5.0
"""The play sessions' sweeper (``services.worker.results.play_results``): a session whose
worker died is abandoned within its lease (10 s) and this."""
FIT_EVERY_S = 30.0  # the rating fit (services.worker.results.fit): a pool only when it changed


def _every(task: str, seconds: float) -> CeleryOptions:
    return {
        "task": task,
        "schedule": seconds,
        "options": {"queue": TASK_QUEUES[task], "expires": seconds},
    }


def beat_schedule(sweep: SweepSettings, ladder: LadderSettings) -> dict[str, CeleryOptions]:
    """Celery's ``beat_schedule``."""
    return {
        "start-due-tournaments": _every(START_DUE_TOURNAMENTS, START_DUE_EVERY_S),
        "check-bot-health": _every(CHECK_BOT_HEALTH, HEALTH_EVERY_S),
        "requeue-stale-matches": _every(REQUEUE_STALE, sweep.every_s),
        "fit-ratings": _every(FIT_RATINGS, FIT_EVERY_S),
        "ladder-tick": _every(LADDER_TICK, ladder.every_s),
        "sweep-play-sessions": _every(SWEEP_PLAY_SESSIONS, PLAY_SWEEP_EVERY_S),
    }
