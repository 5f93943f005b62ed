"""What a Celery process shows its operators: its log lines and its metrics port.

* **Logs**: Celery asks ``setup_logging`` before it configures any logging; answering it here
  means Celery installs no handler of its own, and every line (Celery's, the tasks') goes
  through :func:`services.base.log_format.configure_logging`: JSON lines or the human format
  (``TRUCO_LOG_FORMAT``), with the match id of the task that logged it. Beat too.
* **The match a task is about**: its id is on every line logged while the task runs
  (``task_prerun`` to ``task_postrun``: Celery's own "succeeded" and "retry" lines included).
* **Metrics**: a worker serves ``/metrics`` on ``TRUCO_METRICS_PORT`` (none when 0) from the
  process that starts its pool (``worker_init``), with the broker's queue depths read at
  each scrape (:mod:`services.metrics.queues`). With a prefork pool each pool process writes
  its own files in ``PROMETHEUS_MULTIPROC_DIR`` and the parent adds them up; a pool process
  that ends takes its live gauges with it (``worker_process_shutdown``).

Both celery targets (``services.worker.celery_app``, ``services.worker.matches.celery_app``)
import this module, so its handlers are connected wherever a worker or beat starts.
"""

from __future__ import annotations

import contextvars
import logging
import os
from collections.abc import Sequence
from typing import Any

import redis
from celery.signals import (
    setup_logging,
    task_postrun,
    task_prerun,
    worker_init,
    worker_process_shutdown,
)

from services.base.log_format import MATCH_ID, configure_logging
from services.metrics.exposition import process_ended
from services.metrics.queues import QueueDepths
from services.metrics.worker_port import MetricsPort, serve_metrics
from services.worker.app import app
from services.worker.names import (
    LADDER,
    MATCH_STARTED,
    MATCH_STOPPED,
    MATCHES,
    PLAY_MATCH,
    RESULTS,
    STORE_RESULT,
)

logger = logging.getLogger(__name__)

QUEUES = (MATCHES, LADDER, RESULTS)
_served: list[MetricsPort] = []
_MATCH_ID_ARGUMENT = {
    STORE_RESULT: "match_id",
    MATCH_STARTED: "match_id",
    MATCH_STOPPED: "match_id",
}
_tokens: dict[str, contextvars.Token[int | None]] = {}


def match_of(name: str, args: Sequence[Any], kwargs: dict[str, Any]) -> int | None:
    """The match a task message is about (None: not a match's task, or unreadable)."""
    try:
        if name == PLAY_MATCH:
            spec = args[0] if args else kwargs["spec"]
            return int(spec["match_id"])
        key = _MATCH_ID_ARGUMENT.get(name)
        if key is not None:
            return int(args[0] if args else kwargs[key])
    except (LookupError, TypeError, ValueError):
        return None
    return None


@task_prerun.connect  # type: ignore[untyped-decorator]
def _match_on(task_id: str, task: Any, args: Sequence[Any] = (), **kwargs: Any) -> None:
    match_id = match_of(task.name, args, kwargs.get("kwargs") or {})
    if match_id is not None:
        _tokens[task_id] = MATCH_ID.set(match_id)


@task_postrun.connect  # type: ignore[untyped-decorator]
def _match_off(task_id: str, **kwargs: Any) -> None:
    token = _tokens.pop(task_id, None)
    if token is not None:
        try:
            MATCH_ID.reset(token)
        except ValueError:  # set in another context (not with Celery's pools): clear it here
            MATCH_ID.set(None)


@setup_logging.connect  # type: ignore[untyped-decorator]
def _logs(loglevel: Any = None, **kwargs: Any) -> None:
    configure_logging(app.settings.log_format, loglevel or logging.INFO)


def queue_depths() -> QueueDepths:
    settings = app.settings.redis
    client = redis.Redis.from_url(
        settings.url_or_local, socket_connect_timeout=2.0, socket_timeout=2.0
    )
    return QueueDepths(client, QUEUES, settings.prefix)


@worker_init.connect  # type: ignore[untyped-decorator]
def _metrics_port(**kwargs: Any) -> None:
    served = serve_metrics(app.settings.metrics, [queue_depths()])
    if served is not None:
        _served.append(served)


@worker_process_shutdown.connect  # type: ignore[untyped-decorator]
def _pool_process_ended(pid: int | None = None, **kwargs: Any) -> None:
    process_ended(app.settings.metrics.multiproc_dir, pid or os.getpid())
