"""The bot-calling worker's boot: its garbage collector, tuned once the process is up.

Connected to Celery's ``worker_ready`` (the consumer is started: every module and Celery's own
objects are loaded), on a worker that consumes a bot-calling queue (``matches`` or ``ladder``):

* ``gc.freeze()``: what lives now lives for good. Frozen, it is left out of every full
  collection, which then scans only the matches' own objects and pauses the match loop less.
* ``gc.set_threshold(*GC_THRESHOLDS)``: hundreds of matches allocate fast and keep their replays
  alive to the end; at the default threshold (700 allocations) the collector ran a tenth of the
  process's CPU, walking the same live records again and again.

The trusted worker and beat keep Python's defaults.
"""

from __future__ import annotations

import gc
import logging
from collections.abc import Iterable
from typing import Any

from celery.signals import worker_ready

from services.worker.names import LADDER, MATCHES

logger = logging.getLogger(__name__)

GC_THRESHOLDS = (50_000, 20, 20)
"""The bot-calling process's garbage collector: a young collection every 50,000 net
allocations instead of 700; the older generations as often relative to it as by default."""


def calls_bots(queues: Iterable[str]) -> bool:
    """Whether a worker consuming ``queues`` plays matches (so calls bots)."""
    return bool(set(queues) & {MATCHES, LADDER})


def tune_gc() -> None:
    """Freeze what lives now and collect the young generation less often (module docstring)."""
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


@worker_ready.connect  # type: ignore[untyped-decorator]
def tune_gc_on_boot(sender: Any = None, **kwargs: Any) -> None:
    """On a worker's start (``sender`` is its consumer): tune the collector if it calls bots."""
    queues = sender.app.amqp.queues.consume_from or ()
    if calls_bots(queues):
        tune_gc()
        logger.info(
            "garbage collector: %d objects frozen, thresholds %s",
            gc.get_freeze_count(),
            GC_THRESHOLDS,
        )
