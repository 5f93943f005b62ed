"""Wake a threads-pool worker's consumer loop every 0.1 s, so it takes the next message as soon
as a task is acknowledged.

The platform's workers run Celery's ``threads`` pool with late acknowledgement and a prefetch
of one message per thread. The consumer loop (kombu's hub, on the main thread) only asks Redis
for more messages (BRPOP) when fewer than that are unacknowledged, and it checks this only when
it wakes up. A task acknowledged on a pool thread does not wake it: with every thread's message
taken, the loop sleeps until its next timer, up to 10 s. A trusted worker with 4 threads
therefore took 4 results, stored them in a fraction of a second, then sat idle for about 6 s
while results waited in the queue: 1.1 results/s for two workers, 500 results in 10 minutes
(``python -m bench platform_round``; Celery issue #6941). A timer that fires every
:data:`WAKE_EVERY_S` bounds that idle time; it costs the loop ten empty turns a second.
"""

from __future__ import annotations

from typing import Any

from celery.concurrency.thread import TaskPool
from celery.signals import worker_ready

WAKE_EVERY_S = 0.1


def _turn() -> None:
    """Nothing: the timer only makes the loop wake up and poll again."""


def wakes(consumer: Any) -> bool:
    """Whether ``consumer`` (a Celery consumer) needs the timer: a threads pool under a hub."""
    return isinstance(getattr(consumer, "pool", None), TaskPool) and (
        getattr(consumer, "hub", None) is not None and getattr(consumer, "timer", None) is not None
    )


@worker_ready.connect  # type: ignore[untyped-decorator]
def wake_regularly(sender: Any = None, **kwargs: Any) -> None:
    """On a worker's start: the repeating timer, on a threads-pool worker only."""
    if wakes(sender):
        sender.timer.call_repeatedly(WAKE_EVERY_S, _turn)
