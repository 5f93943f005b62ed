"""The Celery app object and its configuration: broker, queues, routes, time limits.

The task modules (``tasks_*``, ``beat``) import ``app`` from here; :mod:`celery_app` (the
``celery -A`` target) imports them to register the tasks. Keeping the app in a module of its
own means no module imports its own importer.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from typing import Any

from celery import Celery
from celery.signals import celeryd_after_setup
from kombu.entity import Exchange, Queue

from services.limits import VISIBILITY_TIMEOUT_S
from services.log_levels import quiet_noisy_loggers
from services.worker.names import MATCHES, RESULTS, TASK_QUEUES
from services.worker.settings import celery_broker_url, load_worker_settings

logger = logging.getLogger(__name__)

REQUEUE_STALE = "truco.requeue_stale_matches"  # services.worker.tasks_sweep (the sweeper)
ROUTES: dict[str, str] = {**TASK_QUEUES, REQUEUE_STALE: RESULTS}
BOT_WORKER_FORBIDDEN = ("DATABASE_URL", "TRUCO_SECRET_KEY")


def _queue(name: str) -> Queue:
    """A queue with its own direct exchange and routing key (nothing lands in another)."""
    return Queue(name, Exchange(name, type="direct"), routing_key=name)


def make_config(environ: dict[str, str] | None = None) -> dict[str, Any]:
    """The Celery configuration for the environment (``os.environ`` by default)."""
    settings = load_worker_settings(environ)
    transport: dict[str, Any] = {"visibility_timeout": VISIBILITY_TIMEOUT_S}
    if settings.redis_prefix:
        transport["global_keyprefix"] = settings.redis_prefix
    return {
        "broker_url": celery_broker_url(settings.redis_url),
        "broker_transport_options": transport,
        "broker_connection_retry_on_startup": True,
        "task_serializer": "json",
        "accept_content": ["json"],
        "result_serializer": "json",
        "result_backend": None,
        "task_ignore_result": True,
        "task_queues": tuple(_queue(name) for name in (MATCHES, RESULTS)),
        "task_default_queue": RESULTS,
        "task_default_exchange": RESULTS,
        "task_default_routing_key": RESULTS,
        "task_routes": {name: {"queue": queue} for name, queue in ROUTES.items()},
        "task_acks_late": True,
        "task_reject_on_worker_lost": True,
        "task_acks_on_failure_or_timeout": True,
        "worker_prefetch_multiplier": 1,
        "worker_hijack_root_logger": False,
        "worker_send_task_events": False,
        "timezone": "UTC",
        "enable_utc": True,
    }


quiet_noisy_loggers()
app = Celery("truco")
app.conf.update(make_config())


EX_CONFIG = 78  # sysexits.h: a configuration error; the worker exits with it


def bot_worker_credentials(queues: set[str], environ: Mapping[str, str]) -> list[str]:
    """The platform credentials a worker that consumes ``queues`` holds but must not: a worker
    that calls bots never gets ``DATABASE_URL`` or ``TRUCO_SECRET_KEY``."""
    if MATCHES not in queues:
        return []
    return [name for name in BOT_WORKER_FORBIDDEN if environ.get(name, "").strip()]


@celeryd_after_setup.connect  # type: ignore[untyped-decorator]
def _refuse_credentials_on_bot_worker(sender: str, instance: Any, **kwargs: Any) -> None:
    """The bot-calling worker must not hold database credentials or the master key.

    In production it exits with status 78 before its consumer starts: Celery catches (and only
    logs) an ``Exception`` raised in a signal handler and goes on to consume, so this raises
    ``SystemExit``, which the worker turns into a stop with that exit code. Local mode warns.
    """
    queues = set(instance.app.amqp.queues.consume_from or ())
    held = bot_worker_credentials(queues, os.environ)
    if not held:
        return
    message = (
        f"worker {sender} consumes the '{MATCHES}' queue (it calls bots) and has "
        f"{' and '.join(held)} in its environment; run the bot-calling worker without "
        "database credentials or the master key"
    )
    if os.environ.get("TRUCO_ENV", "").strip().lower() == "production":
        logger.critical("refusing to start: %s", message)
        raise SystemExit(EX_CONFIG)
    logger.warning(message)
