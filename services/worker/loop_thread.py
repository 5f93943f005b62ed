"""One long-lived event loop per worker process, in a daemon thread, fed from Celery's threads.

A synchronous Celery task hands a coroutine to :meth:`LoopThread.run` and blocks on its result.
All the coroutines of a process share the one loop: a thousand matches waiting on their bots
are a thousand tasks of one loop (a few kilobytes each), not a thousand loops, and a Celery
thread that waits on its future costs no CPU. Used by the bot-calling worker (the matches,
:mod:`services.worker.matches.play_match`) and by the trusted worker (its database pool,
:mod:`services.worker.results.db`).

Process-bound: a loop cannot cross a fork, so a process's loops are kept by its resources
(:meth:`services.worker.resources.Resources.loop`), made again in a prefork pool process (the
parent's, if it had one, is never touched there).
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable, Coroutine
from concurrent.futures import Future
from typing import Any, TypeVar

T = TypeVar("T")

STOP_WAIT_S = 10.0
LAG_EVERY_S = 0.05
BOT_CALLS = "truco-bot-calls"
"""The loop of the bot-calling worker: every match and health probe of the process calls its
bots from it."""


class LoopThread:
    """An event loop running forever in a daemon thread of this process."""

    def __init__(self, name: str) -> None:
        self.pid = os.getpid()
        self.loop = asyncio.new_event_loop()
        self._lag_watchers: list[Callable[[float], None]] = []
        self._thread = threading.Thread(target=self._serve, name=name, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.call_soon(self._tick, self.loop.time())
        self.loop.run_forever()

    def _tick(self, due: float) -> None:
        now = self.loop.time()
        # how late the loop ran this timer: how long any coroutine on it waited for its turn
        late = max(0.0, (now - due) * 1000.0)
        self.loop.call_at(now + LAG_EVERY_S, self._tick, now + LAG_EVERY_S)
        for watch in self._lag_watchers:
            watch(late)

    def watch_lag(self, watch: Callable[[float], None]) -> None:
        """Call ``watch(ms late)`` on the loop's thread with every lag sample, every
        :data:`LAG_EVERY_S` (the admission of matches: :mod:`services.worker.matches.admission`)."""
        self.loop.call_soon_threadsafe(self._lag_watchers.append, watch)

    def submit(self, make: Callable[[], Coroutine[Any, Any, T]]) -> Future[T]:
        """Start ``make()`` on the loop (the coroutine is created there, in its own task)."""

        async def call() -> T:
            return await make()

        return asyncio.run_coroutine_threadsafe(call(), self.loop)

    def run(self, make: Callable[[], Coroutine[Any, Any, T]], timeout: float | None = None) -> T:
        """Run ``make()`` on the loop and wait for its result. If the wait ends any other way
        (a timeout, a Celery soft time limit, a worker shutting down) the coroutine is
        cancelled: nothing is left running for a task that is over."""
        future = self.submit(make)
        try:
            return future.result(timeout)
        except BaseException:
            future.cancel()
            raise

    def stop(self, last: Callable[[], Coroutine[Any, Any, None]] | None = None) -> None:
        """Run ``last()`` (a clean-up) on the loop, then stop it and close it."""
        if self.loop.is_running():
            if last is not None:
                asyncio.run_coroutine_threadsafe(last(), self.loop).result(STOP_WAIT_S)
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join(STOP_WAIT_S)
        if not self.loop.is_running():
            self.loop.close()
