"""A Celery worker's metrics on a port of its own (``TRUCO_METRICS_PORT``).

The worker is not an HTTP server, so it gets one: the Prometheus client's, a daemon thread
answering ``GET /metrics`` (any path) with the worker's registry. It listens on
``TRUCO_METRICS_ADDRESS`` (127.0.0.1 by default: only this machine; in containers the
address of a network that only Prometheus shares with the workers, ``infra/compose.yaml``).
It serves no other data and takes no input but the request line, so it has no token: who
can reach the port can read the numbers, and nothing else.

Started in the process that starts the pool (with a prefork pool, the parent, which reads
every pool process's files: :mod:`services.metrics.exposition`).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from threading import Thread
from wsgiref.simple_server import WSGIServer

from prometheus_client import start_http_server
from prometheus_client.registry import Collector

from services.base.config import MetricsSettings
from services.metrics.exposition import forget_dead_processes, registry_for

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class MetricsPort:
    server: WSGIServer
    thread: Thread

    @property
    def port(self) -> int:
        return int(self.server.server_port)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def serve_metrics(
    settings: MetricsSettings, extra: Iterable[Collector] = (), *, what: str = "worker"
) -> MetricsPort | None:
    """Serve this process's (or its pool's) metrics on ``settings.port``; None when the port is
    0 (off). A port that cannot be bound is logged, not fatal: the worker's work matters more
    than its numbers."""
    if settings.port == 0:
        return None
    forget_dead_processes(settings.multiproc_dir)
    registry = registry_for(settings.multiproc_dir, extra)
    try:
        server, thread = start_http_server(settings.port, settings.address, registry)
    except OSError as exc:
        logger.error(
            "%s metrics not served on %s:%s: %s", what, settings.address, settings.port, exc
        )
        return None
    logger.info("%s metrics on http://%s:%s/metrics", what, settings.address, settings.port)
    return MetricsPort(server, thread)
