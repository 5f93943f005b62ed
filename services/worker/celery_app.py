"""The Celery app: ``celery -A services.worker.celery_app worker -Q matches`` (or ``results``).

Two queues:

* ``matches``: the bot-calling worker. Runs matches and health probes; no database
  credentials; needs egress to bots only.
* ``results``: the trusted worker. Stores results, advances tournaments, starts due
  tournaments, records health, re-sends lost matches (``results.sweep``), fits the ratings'
  intervals (``results.fit``); needs the database, never calls bots.

Messages are JSON. No result backend: tasks hand their results on as new task messages.
Every task is declared with :func:`services.worker.task.platform_task`: idempotent, so
acknowledged late and rejected (redelivered) when the worker process dies; time limits below
the visibility timeout (see ``services.base.limits``). Settings are read when the process boots
(:mod:`services.worker.app`).
"""

from __future__ import annotations

from services.worker import observe, wakeup
from services.worker.app import app, make_config
from services.worker.matches import boot, play_match, play_person, probe
from services.worker.results import (
    fit,
    ladder_tick,
    periodic,
    play_results,
    refused,
    store,
    sweep,
)

# Importing the task modules above registers their tasks on ``app``; ``wakeup`` connects the
# timer that keeps a threads-pool consumer taking messages as tasks finish, ``boot`` the
# bot-calling worker's garbage collector tuning, ``observe`` the logs' format and the metrics port.
__all__ = [
    "app",
    "boot",
    "fit",
    "ladder_tick",
    "make_config",
    "observe",
    "periodic",
    "play_match",
    "play_person",
    "play_results",
    "probe",
    "refused",
    "store",
    "sweep",
    "wakeup",
]
