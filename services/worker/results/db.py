"""The trusted worker's database access from inside synchronous Celery tasks.

Choice: one event loop per worker process, running in a daemon thread
(:class:`~services.worker.loop_thread.LoopThread`), with one small asyncpg pool on it (opened
on first use from ``DATABASE_URL`` in the worker app's settings). A task hands a coroutine
function to :func:`run_db` and blocks on its result. Why not ``asyncio.run`` per task: a pool cannot outlive
its loop, so each task would open fresh connections (and install the JSON codecs) every time.
The loop thread works under every Celery pool (prefork, solo, threads: tasks on several threads
share the loop safely through ``run_coroutine_threadsafe``), and it is made again after a fork
(a prefork child never uses its parent's loop or connections).

Only the trusted worker calls this; the bot-calling worker never reads DATABASE_URL.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable
from typing import TypeVar

import asyncpg

from services.base.config import ConfigError, Settings
from services.db.pool import create_pool
from services.worker.app import app
from services.worker.loop_thread import LoopThread

T = TypeVar("T")
POOL_MAX = 4


def database_url(settings: Settings) -> str:
    url = settings.database.url
    if url is None:
        raise ConfigError(
            "this task needs DATABASE_URL: run it on the trusted worker (queue 'results')"
        )
    return url


class DbRuntime:
    """A pool on an event loop in a thread (:class:`LoopThread`), for one process."""

    def __init__(self, url: str, *, max_size: int = POOL_MAX) -> None:
        self.url = url
        self.max_size = max_size
        self.pid = os.getpid()
        self._thread = LoopThread("truco-db")
        self._pool: asyncpg.Pool | None = None
        self._pool_lock: asyncio.Lock | None = None

    async def _get_pool(self) -> asyncpg.Pool:
        if self._pool_lock is None:
            self._pool_lock = asyncio.Lock()
        async with self._pool_lock:
            if self._pool is None:
                self._pool = await create_pool(self.url, min_size=1, max_size=self.max_size)
            return self._pool

    async def _call(self, work: Callable[[asyncpg.Pool], Awaitable[T]]) -> T:
        return await work(await self._get_pool())

    def run(self, work: Callable[[asyncpg.Pool], Awaitable[T]], timeout: float | None = None) -> T:
        """Run ``work(pool)`` on the loop and wait for it; cancel it if we stop waiting."""
        return self._thread.run(lambda: self._call(work), timeout)

    def close(self) -> None:
        async def shutdown() -> None:
            if self._pool is not None:
                await self._pool.close()
                self._pool = None

        self._thread.stop(shutdown)


def runtime() -> DbRuntime:
    """This process's runtime, kept in its resources (a new one after a fork, or when
    DATABASE_URL changed: the old one is closed), on the worker app's settings."""
    url = database_url(app.settings)
    return app.resources.kept("db-runtime", url, lambda: DbRuntime(url), replaced=DbRuntime.close)


def run_db(work: Callable[[asyncpg.Pool], Awaitable[T]], timeout: float | None = None) -> T:
    """Run ``work(pool)`` with this process's pool (see the module docstring)."""
    return runtime().run(work, timeout)
