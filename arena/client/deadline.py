"""One deadline per bot call, without a new timer per call.

``asyncio.timeout`` schedules and cancels a timer for every call (about ten microseconds of
CPU each time, a large share of a fast bot call). A bot's calls follow one another and each
deadline is a little later than the one before, so :class:`Deadline` keeps ONE timer per
client: a call only records its due time; when the timer goes off it either cuts the call
in flight (its due time has passed) or re-arms itself for that due time. A timer is created
again only when a call is due earlier than the armed one (a low time bank) or after it went
off. What a call sees is the same as with ``asyncio.timeout``: the task is cancelled at its
due time, and :meth:`Deadline.cut` tells that cancellation apart from anyone else's.
"""

from __future__ import annotations

import asyncio

_EARLY_S = 0.001  # a timer this close to the due time counts as on time


class Deadline:
    """Bounds one call at a time (:meth:`begin` ... :meth:`end`) in the running loop."""

    __slots__ = ("_due", "_loop", "_task", "_timer", "expired")

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._task: asyncio.Task[object] | None = None
        self._due = 0.0
        self.expired = False

    @property
    def busy(self) -> bool:
        """A call is in flight (a second, concurrent call needs its own ``asyncio.timeout``)."""
        return self._task is not None

    def begin(self, seconds: float) -> None:
        """The current task's call must end within ``seconds`` from now."""
        loop = asyncio.get_running_loop()
        task = asyncio.current_task(loop)
        assert task is not None, "a deadline bounds a task"
        if loop is not self._loop:  # first use, or a new event loop (asyncio.run per match)
            self._cancel_timer()
            self._loop = loop
        self._task = task
        self.expired = False
        due = loop.time() + seconds
        self._due = due
        timer = self._timer
        if timer is None or timer.when() > due:
            if timer is not None:
                timer.cancel()
            self._timer = loop.call_at(due, self._fire)

    def end(self) -> None:
        """The call is over (its result is in, or it was cut)."""
        self._task = None

    def cut(self) -> bool:
        """In ``except CancelledError``: True if the deadline cancelled the call (and no one
        else asked to cancel the task), so the caller returns a timeout instead of raising."""
        task = self._task
        return self.expired and task is not None and task.uncancel() == 0

    def close(self) -> None:
        self._task = None
        self._cancel_timer()

    def _fire(self) -> None:
        self._timer = None
        task = self._task
        if task is None or self.expired:
            return  # idle: the next call arms the timer again
        loop = self._loop
        assert loop is not None
        if loop.time() + _EARLY_S < self._due:  # the call in flight started later: wait for it
            self._timer = loop.call_at(self._due, self._fire)
            return
        self.expired = True
        task.cancel()

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
