"""The Celery app object and its configuration: broker, queues, routes, time limits, schedule.

The task modules (in ``matches/`` and ``results/``) import ``app`` from here; :mod:`celery_app`
(the ``celery -A`` target; the bot-calling worker's is ``matches.celery_app``) imports them to
register the tasks. Keeping the app in a module of its
own means no module imports its own importer.

The app carries the platform's :class:`~services.base.config.Settings`. Nothing is read at import:
a worker or beat reads the environment once, when it boots (Celery asks for its configuration
then), and the tasks take their settings from ``app.settings``. A process that already holds
settings (the API, tests) hands them over with :meth:`WorkerApp.use_settings`. A bad setting
stops a booting worker with one line naming the variable and exit status 78.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
from typing import Any

from celery import Celery
from celery.signals import celeryd_after_setup
from kombu.entity import Exchange, Queue

from services.base.config import ConfigError, Settings
from services.base.environment import WORKER_NEEDS, load_settings, secret_key
from services.base.limits import VISIBILITY_TIMEOUT_S
from services.base.log_levels import quiet_noisy_loggers
from services.base.secretbox import SecretBox
from services.worker.celery_types import CeleryOptions
from services.worker.names import LADDER, MATCHES, RESULTS, TASK_QUEUES
from services.worker.resources import Resources
from services.worker.schedule import beat_schedule

logger = logging.getLogger(__name__)

EX_CONFIG = 78  # sysexits.h: a configuration error; the worker exits with it
BOT_WORKER_FORBIDDEN = ("DATABASE_URL", "TRUCO_SECRET_KEY")


def _queue(name: str) -> Queue:
    """A queue with its own direct exchange and routing key (nothing lands in another)."""
    return Queue(name, Exchange(name, type="direct"), routing_key=name)


def celery_broker_url(redis_url: str) -> str:
    """Celery spells a Unix socket ``redis+socket://``; the platform's REDIS_URL ``unix://``."""
    if redis_url.startswith("unix://"):
        return "redis+socket://" + redis_url[len("unix://") :]
    return redis_url


def make_config(settings: Settings) -> CeleryOptions:
    """The Celery configuration for ``settings``."""
    transport: CeleryOptions = {"visibility_timeout": VISIBILITY_TIMEOUT_S}
    if settings.redis.prefix:
        transport["global_keyprefix"] = settings.redis.prefix
    return {
        "broker_url": celery_broker_url(settings.redis.url_or_local),
        "broker_transport_options": transport,
        "broker_connection_retry_on_startup": True,
        "task_serializer": "json",
        "accept_content": ["json"],
        "result_serializer": "json",
        "result_backend": None,
        "task_ignore_result": True,
        # One (disabled, stateless) backend for all of a worker's threads. Per thread, Celery
        # builds its own on first use, and that scans every installed package's entry points:
        # 3-4 ms of CPU in each of a bot-calling worker's 1,000 threads.
        "result_backend_thread_safe": True,
        "task_queues": tuple(_queue(name) for name in (MATCHES, LADDER, RESULTS)),
        "task_default_queue": RESULTS,
        "task_default_exchange": RESULTS,
        "task_default_routing_key": RESULTS,
        "task_routes": {name: {"queue": queue} for name, queue in TASK_QUEUES.items()},
        "task_acks_late": True,
        "task_reject_on_worker_lost": True,
        "task_acks_on_failure_or_timeout": True,
        "worker_prefetch_multiplier": 1,
        "worker_hijack_root_logger": False,
        "worker_send_task_events": False,
        "timezone": "UTC",
        "enable_utc": True,
        "beat_schedule": beat_schedule(settings.sweep, settings.ladder),
    }


def boot_settings() -> Settings:
    """The settings of a Celery process, read from its environment; a bad one stops it."""
    try:
        return load_settings(needs=WORKER_NEEDS)
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr, flush=True)
        raise SystemExit(EX_CONFIG) from None


class WorkerApp(Celery):  # type: ignore[misc]
    """The Celery app with the platform's settings (see the module docstring)."""

    def __init__(self, main: str = "truco", *, settings: Settings | None = None) -> None:
        super().__init__(main)
        self._settings = settings
        self._secret_box: tuple[Settings, SecretBox] | None = None
        self._resources: Resources | None = None
        self._resources_lock = threading.Lock()
        self.add_defaults(lambda: make_config(self.settings))

    @property
    def settings(self) -> Settings:
        """This process's settings, read from the environment on first use."""
        if self._settings is None:
            self._settings = boot_settings()
        return self._settings

    def use_settings(self, settings: Settings | None) -> None:
        """Use ``settings`` from now on (None: read the environment again on next use); a
        configuration already made takes the new broker settings too."""
        self._settings = settings
        if settings is not None and self.configured:
            self.conf.update(make_config(settings))

    @property
    def resources(self) -> Resources:
        """What this process keeps between tasks (:mod:`services.worker.resources`): one
        object per process, made again after a fork."""
        with self._resources_lock:
            if self._resources is None or self._resources.pid != os.getpid():
                self._resources = Resources()
            return self._resources

    @property
    def secret_box(self) -> SecretBox:
        """The cipher of bots' signing secrets (the trusted worker sends matches with them);
        a :class:`ConfigError` where the master key is missing (production)."""
        settings = self.settings
        if self._secret_box is None or self._secret_box[0] is not settings:
            self._secret_box = (settings, SecretBox(secret_key(settings)))
        return self._secret_box[1]


quiet_noisy_loggers()
app = WorkerApp("truco")


def bot_worker_credentials(queues: set[str], settings: Settings) -> list[str]:
    """The platform credentials a worker that consumes ``queues`` holds but must not: a worker
    that calls bots never gets ``DATABASE_URL`` or ``TRUCO_SECRET_KEY``."""
    if not queues & {MATCHES, LADDER}:
        return []
    held = (settings.database.url, settings.secrets.key)
    return [name for name, value in zip(BOT_WORKER_FORBIDDEN, held, strict=True) if value]


@celeryd_after_setup.connect  # type: ignore[untyped-decorator]
def _refuse_credentials_on_bot_worker(sender: str, instance: Any, **kwargs: Any) -> None:
    """The bot-calling worker must not hold database credentials or the master key.

    In production it exits with status 78 before its consumer starts: Celery catches (and only
    logs) an ``Exception`` raised in a signal handler and goes on to consume, so this raises
    ``SystemExit``, which the worker turns into a stop with that exit code. Local mode warns.
    """
    queues = set(instance.app.amqp.queues.consume_from or ())
    settings: Settings = instance.app.settings
    held = bot_worker_credentials(queues, settings)
    if not held:
        return
    message = (
        f"worker {sender} consumes the '{MATCHES}' queue (it calls bots) and has "
        f"{' and '.join(held)} in its environment; run the bot-calling worker without "
        "database credentials or the master key"
    )
    if settings.production:
        logger.critical("refusing to start: %s", message)
        raise SystemExit(EX_CONFIG)
    logger.warning(message)
