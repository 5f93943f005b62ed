"""The broker's queue depths, read from Redis when Prometheus scrapes a worker.

Celery's Redis transport keeps each queue as a list named after it (behind the platform's
key prefix), with one more list per priority step (``name`` + ``\\x06\\x16`` + the step) when
messages carry priorities; messages taken and not yet acknowledged are in one hash,
``unacked``. One pipeline of ``LLEN``s and an ``HLEN`` per scrape: nothing is counted in
between, so every worker shows the same numbers (a dashboard takes their ``max``).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence

import redis
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from services.metrics.catalog import BROKER_UNACKED, QUEUE_DEPTH

logger = logging.getLogger(__name__)

PRIORITY_SEPARATOR = "\x06\x16"
PRIORITY_STEPS = (3, 6, 9)
"""kombu's default steps past 0 (the plain list)."""
UNACKED = "unacked"


class QueueDepths(Collector):
    """A collector of :data:`~services.metrics.catalog.QUEUE_DEPTH` for ``queues``."""

    def __init__(self, client: redis.Redis, queues: Sequence[str], prefix: str = "") -> None:
        self._client = client
        self._queues = tuple(queues)
        self._prefix = prefix

    def depths(self) -> tuple[dict[str, int], int]:
        """Each queue's waiting messages, and the messages taken but not acknowledged."""
        pipe = self._client.pipeline(transaction=False)
        for queue in self._queues:
            pipe.llen(self._prefix + queue)
            for step in PRIORITY_STEPS:
                pipe.llen(f"{self._prefix}{queue}{PRIORITY_SEPARATOR}{step}")
        pipe.hlen(self._prefix + UNACKED)
        counts = [int(n) for n in pipe.execute()]
        per = 1 + len(PRIORITY_STEPS)
        depths = {
            queue: sum(counts[i * per : (i + 1) * per]) for i, queue in enumerate(self._queues)
        }
        return depths, counts[-1]

    def collect(self) -> Iterable[GaugeMetricFamily]:
        try:
            depths, unacked = self.depths()
        except (redis.RedisError, OSError) as exc:  # no numbers beat wrong ones
            logger.warning("queue depths not read: %s", exc)
            return []
        depth = GaugeMetricFamily(
            QUEUE_DEPTH, "Messages waiting in a broker queue, by queue", labels=["queue"]
        )
        for queue, count in depths.items():
            depth.add_metric([queue], count)
        held = GaugeMetricFamily(
            BROKER_UNACKED,
            "Messages taken by the workers and not acknowledged yet (playing, or held at a "
            "worker's gate)",
            value=unacked,
        )
        return [depth, held]

    def describe(self) -> Iterable[GaugeMetricFamily]:
        return []  # no Redis round trip when the collector is registered
