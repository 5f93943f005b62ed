"""Checks for ``GET /health`` (the database, the broker and at least one worker).

To wire them in, ``services/api/routes/health.py`` adds them to its ``CHECKS``::

    from services.worker.checks import check_broker, check_workers
    CHECKS = {"database": check_database, "broker": check_broker, "workers": check_workers}
"""

from __future__ import annotations

import asyncio

from services.worker import senders

PING_TIMEOUT_S = 1.0


def _broker_answers() -> None:
    with senders.current_app().connection_for_write() as connection:
        connection.ensure_connection(max_retries=1, timeout=PING_TIMEOUT_S)


def _workers() -> list[str]:
    replies = senders.current_app().control.ping(timeout=PING_TIMEOUT_S) or []
    return [name for reply in replies for name in reply]


async def check_broker(svc: object) -> None:
    """Redis accepts a connection."""
    await asyncio.to_thread(_broker_answers)


async def check_workers(svc: object) -> None:
    """At least one worker answers a ping (any queue)."""
    if not await asyncio.to_thread(_workers):
        raise RuntimeError("no Celery worker answered a ping")
