"""``platform_task``: how every Celery task of the platform is declared.

In the spirit of Sentry's ``instrumented_task``: the options every task shares are set here
once, and a task module says only what is its own (name, time limits, retries):

* its queue comes from :data:`~services.worker.names.TASK_QUEUES` (a task without one fails
  at import), the same table the app routes by;
* every task is idempotent, so each is acknowledged late and rejected (so redelivered) when
  its worker process dies;
* every task has a soft and a hard time limit (``services.base.limits``), both below the broker's
  visibility timeout;
* :class:`Retry` retries a task on the errors it names, with exponential backoff.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from services.base.limits import VISIBILITY_TIMEOUT_S
from services.worker.app import app
from services.worker.celery_types import CeleryOptions
from services.worker.names import TASK_QUEUES

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True, slots=True)
class Retry:
    """Retry on ``on`` (transient errors): waits doubling from ``backoff_s`` up to
    ``backoff_max_s``, with jitter, at most ``max_retries`` times."""

    on: tuple[type[BaseException], ...]
    max_retries: int
    backoff_s: int = 2
    backoff_max_s: int = 120

    def options(self) -> CeleryOptions:
        return {
            "autoretry_for": self.on,
            "retry_backoff": self.backoff_s,
            "retry_backoff_max": self.backoff_max_s,
            "retry_jitter": True,
            "max_retries": self.max_retries,
        }


def task_options(
    name: str, limits: tuple[int, int], retry: Retry | None = None, **extra: Any
) -> CeleryOptions:
    """The options :func:`platform_task` gives Celery (shown for tests and reviews)."""
    soft, hard = limits
    if not 0 < soft < hard < VISIBILITY_TIMEOUT_S:
        raise ValueError(f"{name}: time limits {limits} must rise and stay under the visibility")
    return {
        "name": name,
        "queue": TASK_QUEUES[name],
        "acks_late": True,
        "reject_on_worker_lost": True,
        "soft_time_limit": soft,
        "time_limit": hard,
        **(retry.options() if retry is not None else {}),
        **extra,
    }


def platform_task(
    name: str,
    *,
    limits: tuple[int, int],
    retry: Retry | None = None,
    bind: bool = False,
    max_retries: int | None = None,
) -> Callable[[F], Any]:
    """Declare a task on the platform's app: ``@platform_task(PLAY_MATCH, limits=(soft, hard))``.

    ``bind`` gives the task itself as first argument (to call ``self.retry``); ``max_retries``
    (without ``retry``) bounds those calls (None: no bound)."""
    extra: CeleryOptions = {"bind": bind}
    if retry is None:
        extra["max_retries"] = max_retries
    options = task_options(name, limits, retry, **extra)

    def register(function: F) -> Any:
        return app.task(**options)(function)

    return register
