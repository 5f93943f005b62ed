"""The trusted worker's database access from inside synchronous Celery tasks.

Choice: one event loop per worker process, running in a daemon thread, with one small asyncpg
pool on it (opened on first use from ``DATABASE_URL`` in the worker app's settings). A task hands a coroutine function to
:func:`run_db` and blocks on its result. Why not ``asyncio.run`` per task: a pool cannot outlive
its loop, so each task would open fresh connections (and install the JSON codecs) every time.
The loop thread works under every Celery pool (prefork, solo, threads: tasks on several threads
share the loop safely through ``run_coroutine_threadsafe``), and it is made again after a fork
(a prefork child never uses its parent's loop or connections).

Only the trusted worker calls this; the bot-calling worker never reads DATABASE_URL.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Awaitable, Callable
from concurrent.futures import Future
from typing import TypeVar

import asyncpg

from services.config import ConfigError, Settings
from services.db.pool import create_pool
from services.worker.app import app

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
    """An event loop in a thread, and a pool on it, for one process."""

    def __init__(self, url: str, *, max_size: int = POOL_MAX) -> None:
        self.url = url
        self.max_size = max_size
        self.pid = os.getpid()
        self.loop = asyncio.new_event_loop()
        self._pool: asyncpg.Pool | None = None
        self._pool_lock: asyncio.Lock | None = None
        self._thread = threading.Thread(target=self.loop.run_forever, name="truco-db", daemon=True)
        self._thread.start()

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
        future: Future[T] = asyncio.run_coroutine_threadsafe(self._call(work), self.loop)
        try:
            return future.result(timeout)
        except BaseException:  # a soft time limit, a timeout, Ctrl-C: do not leave it running
            future.cancel()
            raise

    def close(self) -> None:
        async def shutdown() -> None:
            if self._pool is not None:
                await self._pool.close()
                self._pool = None

        if self.loop.is_running():
            asyncio.run_coroutine_threadsafe(shutdown(), self.loop).result(10)
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join(10)
        self.loop.close()


_runtime: DbRuntime | None = None
_runtime_lock = threading.Lock()


def runtime() -> DbRuntime:
    """This process's runtime (a new one after a fork or when DATABASE_URL changed), on the
    worker app's settings."""
    global _runtime
    url = database_url(app.settings)
    with _runtime_lock:
        current = _runtime
        if current is None or current.pid != os.getpid() or current.url != url:
            if current is not None and current.pid == os.getpid():
                current.close()
            _runtime = current = DbRuntime(url)
        return current


def run_db(work: Callable[[asyncpg.Pool], Awaitable[T]], timeout: float | None = None) -> T:
    """Run ``work(pool)`` with this process's pool (see the module docstring)."""
    return runtime().run(work, timeout)


def close_runtime() -> None:
    global _runtime
    with _runtime_lock:
        if _runtime is not None and _runtime.pid == os.getpid():
            _runtime.close()
        _runtime = None
