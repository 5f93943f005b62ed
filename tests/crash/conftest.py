# ruff: noqa: F401 - fixtures re-exported from the worker and service tests' conftest
"""Fixtures for the crash tests: the run's PostgreSQL database and Redis prefix, a pool, SDK bots
on 127.0.0.1 (see ``tests/worker/conftest.py``)."""

from __future__ import annotations

from tests.services.conftest import (
    anyio_backend,
    database_url,
    postgres_server,
    redis_target,
)
from tests.worker.conftest import bot_server_factory, pool, worker_env
